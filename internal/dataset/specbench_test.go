package dataset

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/tokenizer"
	"github.com/google/go-cmp/cmp"
)

// TestSpecBenchMatchesVLLM: each question's first turn, the category
// filter, the shuffle and the oversampling with seed 0 whatever --seed
// says (vLLM's dispatcher gives SpecBench no seed), chat-formatted unless
// --skip-chat-template, give vLLM's samples.
func TestSpecBenchMatchesVLLM(t *testing.T) {
	t.Parallel()
	var cases []struct {
		Category         string `json:"category"`
		NumPrompts       int    `json:"num_prompts"`
		OutputLen        int    `json:"output_len"`
		SkipChatTemplate bool   `json:"skip_chat_template"`
		Shuffle          bool   `json:"shuffle"`
		Samples          []goldenSample
	}
	readJSON(t, "specbench_golden.json", &cases)
	for _, c := range cases {
		opts := Options{Name: "spec_bench", Path: filepath.Join("testdata", "specbench30.jsonl"), NumPrompts: c.NumPrompts,
			Seed: 99, RequestIDPrefix: "sb-", SpecBenchOutputLen: c.OutputLen, SpecBenchCategory: c.Category,
			SkipChatTemplate: c.SkipChatTemplate, DisableShuffle: !c.Shuffle}
		var tok tokenizer.Tokenizer = newFake()
		if !c.SkipChatTemplate {
			tok = chatFake{newFake()}
		}
		got, err := Load(opts, tok, nil, io.Discard)
		if err != nil {
			t.Fatalf("%+v: %v", opts, err)
		}
		if diff := cmp.Diff(c.Samples, toGolden(got)); diff != "" {
			t.Errorf("category %q n %d (-vllm +gobench):\n%s", c.Category, c.NumPrompts, diff)
		}
	}
}

// TestSpecBenchErrors: a file without turns, a bad turn and an empty
// category fail naming the file (and the line).
func TestSpecBenchErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ name, body, category, want string }{
		{"no turns", `{"prompt":"a"}` + "\n", "", "JSONL file must contain a 'turns' column."},
		{"turn not text", `{"turns":[5]}` + "\n", "", `q.jsonl:1: "turns"[0] must be a string`},
		{"no such category", `{"turns":["a"],"category":"math"}` + "\n", "writing", "no row to sample"},
		{"not an object", "[1]\n", "", "q.jsonl:1: not a JSON object"},
	} {
		path := filepath.Join(dir, "q.jsonl")
		if err := os.WriteFile(path, []byte(c.body), 0o600); err != nil {
			t.Fatal(err)
		}
		opts := Options{Name: "spec_bench", Path: path, NumPrompts: 2, SpecBenchOutputLen: 8, SpecBenchCategory: c.category, SkipChatTemplate: true}
		_, err := Load(opts, newFake(), nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}
