package dataset

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/datasets"
	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/tokenizer"
	"github.com/google/go-cmp/cmp"
)

// chatFake is fakeTokenizer with the chat template that
// tools/gen-dataset-vectors/gen_dataset_vectors.py gives ChatFakeTokenizer.
type chatFake struct{ *fakeTokenizer }

func (chatFake) ApplyChatTemplate(msgs []tokenizer.Message, addGenerationPrompt bool, _ map[string]any) (string, error) {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString("<s>" + m.Role + ": " + m.Content + "</s>")
	}
	if addGenerationPrompt {
		b.WriteString(" the cat:")
	}
	return b.String(), nil
}

// TestSonnetMatchesVLLM compares with samples produced by a copy of vLLM's
// SonnetDataset run on the same files (tools/gen-dataset-vectors): the
// built-in sonnet.txt and a poem with CRLF, CR and no final newline;
// chat-formatted prompts, raw ones for openai-chat, a prefix longer than
// the input, and prompts redrawn for being too long, all from CPython's
// global random as main_async seeds it.
func TestSonnetMatchesVLLM(t *testing.T) {
	t.Parallel()
	var cases []struct {
		Path       string `json:"path"`
		Seed       int64  `json:"seed"`
		NumPrompts int    `json:"num_prompts"`
		InputLen   int    `json:"input_len"`
		OutputLen  int    `json:"output_len"`
		PrefixLen  int    `json:"prefix_len"`
		Backend    string `json:"backend"`
		Samples    []goldenSample
	}
	readJSON(t, "sonnet_golden.json", &cases)
	if len(cases) == 0 {
		t.Fatal("no cases in sonnet_golden.json")
	}
	for _, c := range cases {
		opts := Options{Name: "sonnet", NumPrompts: c.NumPrompts, Seed: c.Seed, RequestIDPrefix: "s-", Backend: c.Backend,
			SonnetInputLen: c.InputLen, SonnetOutputLen: c.OutputLen, SonnetPrefixLen: c.PrefixLen}
		if c.Path != "" {
			opts.Path = filepath.Join("testdata", c.Path)
		}
		got, err := Load(opts, chatFake{newFake()}, nil, io.Discard)
		if err != nil {
			t.Fatalf("%s seed %d: %v", c.Path, c.Seed, err)
		}
		if diff := cmp.Diff(c.Samples, toGolden(got)); diff != "" {
			t.Errorf("%s seed %d (-vllm +gobench):\n%s", c.Path, c.Seed, diff)
		}
	}
}

// TestSonnetEmbedded: the built-in file is vLLM's sonnet.txt, 518 poem
// lines without a final newline.
func TestSonnetEmbedded(t *testing.T) {
	t.Parallel()
	lines, err := sonnetLines("")
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 518 || lines[0] != "FROM fairest creatures we desire increase,\n" || lines[517] != "This wish I have; then ten times happy me!" {
		t.Errorf("%d lines, first %q, last %q", len(lines), lines[0], lines[len(lines)-1])
	}
	if len(datasets.Sonnet) != 22706 {
		t.Errorf("sonnet.txt has %d bytes, want 22706", len(datasets.Sonnet))
	}
}

// TestSonnetErrors checks vLLM's refusals and gobench's own where vLLM
// would draw forever.
func TestSonnetErrors(t *testing.T) {
	t.Parallel()
	opts := func(in, prefix int) Options {
		return Options{Name: "sonnet", NumPrompts: 2, SonnetInputLen: in, SonnetOutputLen: 4, SonnetPrefixLen: prefix}
	}
	for _, c := range []struct {
		name string
		opts Options
		tok  tokenizer.Tokenizer
		want string
		code exitcode.Code
	}{
		{"no chat template", opts(100, 0), newFake(), "Tokenizer/model must have chat template for sonnet dataset.", exitcode.BadUsage},
		{"input within the base prompt", opts(28, 0), chatFake{newFake()}, "argument --sonnet-input-len: 'input_len' must be higher than the base prompt length (28).", exitcode.BadUsage},
		{"nothing fits", func() Options { o := opts(40, 2000); o.Path = filepath.Join("testdata", "poem_crlf.txt"); return o }(), chatFake{newFake()}, "10000 draws in a row gave prompts longer than --sonnet-input-len 40 tokens", exitcode.Failure},
		{"missing file", func() Options { o := opts(100, 0); o.Path = filepath.Join("testdata", "absent.txt"); return o }(), chatFake{newFake()}, "absent.txt", exitcode.Failure},
	} {
		_, err := Load(c.opts, c.tok, nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
			continue
		}
		if got := exitcode.Of(err); got != c.code {
			t.Errorf("%s: exit %d, want %d", c.name, got, c.code)
		}
	}
	if _, err := Load(opts(100, 0), chatFake{newFake()}, nil, nil); errors.Is(err, exitcode.ErrNotSupported) {
		t.Error("sonnet is still refused")
	}
}
