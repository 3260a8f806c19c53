package dataset

import (
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchDatasetsHonourSkipChatTemplate: spec_bench and speed_bench send
// their prompts as written with --skip-chat-template and chat-formatted
// without it, with a tokenizer that has a chat template. vLLM's dispatcher
// at the parity commit does not pass the flag to either (a deliberate
// difference, listed in docs/compatibility.md).
func TestBenchDatasetsHonourSkipChatTemplate(t *testing.T) {
	t.Parallel()
	for _, opts := range []Options{
		{Name: "spec_bench", Path: filepath.Join("testdata", "specbench30.jsonl"), SpecBenchOutputLen: 8},
		{Name: "speed_bench", Path: filepath.Join("testdata", "speedbench"), SpeedBenchSubset: "qualitative", SpeedBenchOutputLen: 8},
	} {
		for _, skip := range []bool{false, true} {
			o := opts
			o.NumPrompts, o.SkipChatTemplate, o.DisableShuffle = 2, skip, true
			got, err := Load(o, chatFake{newFake()}, nil, io.Discard)
			if err != nil {
				t.Fatalf("%s skip %v: %v", o.Name, skip, err)
			}
			for _, s := range got {
				if templated := strings.HasPrefix(s.Prompt, "<s>user: "); templated == skip {
					t.Errorf("%s --skip-chat-template %v: prompt %.40q", o.Name, skip, s.Prompt)
				}
			}
		}
	}
}
