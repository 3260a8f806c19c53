package dataset

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPrefixRepetitionMatchesVLLM compares with samples produced by a copy
// of vLLM's PrefixRepetitionRandomDataset run with NumPy
// (tools/gen-dataset-vectors): the tokens and fix-ups drawn from the legacy
// global generator, totals below --num-prompts, an empty prefix, an empty
// suffix, --disable-shuffle and a seed above 2**31; and the state it leaves
// NumPy's global generator in, which vLLM's arrival gammas continue.
func TestPrefixRepetitionMatchesVLLM(t *testing.T) {
	t.Parallel()
	var cases []struct {
		Seed           int64  `json:"seed"`
		NumPrompts     int    `json:"num_prompts"`
		PrefixLen      int    `json:"prefix_len"`
		SuffixLen      int    `json:"suffix_len"`
		NumPrefixes    int    `json:"num_prefixes"`
		OutputLen      int    `json:"output_len"`
		DisableShuffle bool   `json:"disable_shuffle"`
		NextUint32     uint32 `json:"next_uint32"`
		Samples        []goldenSample
	}
	readJSON(t, "prefix_repetition_golden.json", &cases)
	if len(cases) == 0 {
		t.Fatal("no cases in prefix_repetition_golden.json")
	}
	for _, c := range cases {
		opts := prefixRepOptions(c.Seed, c.NumPrompts, c.PrefixLen, c.SuffixLen, c.NumPrefixes, c.OutputLen)
		opts.DisableShuffle = c.DisableShuffle
		g := NewGlobals(c.Seed + 1) // the loader reseeds both
		got, err := Load(opts, newFake(), g, io.Discard)
		if err != nil {
			t.Fatalf("seed %d: %v", c.Seed, err)
		}
		if diff := cmp.Diff(c.Samples, toGolden(got)); diff != "" {
			t.Errorf("seed %d (-vllm +gobench):\n%s", c.Seed, diff)
		}
		if next := g.NumPy.Uint32(); next != c.NextUint32 {
			t.Errorf("seed %d: NumPy's global generator left at %d, vLLM's at %d", c.Seed, next, c.NextUint32)
		}
	}
}

func prefixRepOptions(seed int64, n, prefixLen, suffixLen, numPrefixes, outputLen int) Options {
	return Options{Name: "prefix_repetition", NumPrompts: n, Seed: seed, RequestIDPrefix: "ignored-",
		PrefixRepetitionPrefixLen: prefixLen, PrefixRepetitionSuffixLen: suffixLen,
		PrefixRepetitionNumPrefixes: numPrefixes, PrefixRepetitionOutputLen: outputLen}
}

// TestPrefixRepetitionErrors checks vLLM's refusals, and the ones gobench
// adds where vLLM would crash or misbehave.
func TestPrefixRepetitionErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		opts Options
		want string
	}{
		{"fewer prompts than prefixes", prefixRepOptions(0, 3, 4, 4, 4, 8), "num_requests (3) must be greater than or equal to num_prefixes (4)"},
		{"no prefix", prefixRepOptions(0, 3, 4, 4, 0, 8), "argument --prefix-repetition-num-prefixes: must be between 1 and 100000000 (got 0)"},
		{"negative suffix", prefixRepOptions(0, 3, 4, -1, 1, 8), "argument --prefix-repetition-suffix-len: must not be negative (got -1)"},
		{"negative seed", prefixRepOptions(-1, 3, 4, 4, 1, 8), "--seed -1: the prefix_repetition dataset needs a seed in [0, 2**32) (np.random.seed rejects others)"},
		{"seed too large", prefixRepOptions(1<<32, 3, 4, 4, 1, 8), "--seed 4294967296: the prefix_repetition dataset needs a seed in [0, 2**32) (np.random.seed rejects others)"},
		{"dataset path", func() Options { o := prefixRepOptions(0, 3, 4, 4, 1, 8); o.Path = "x.json"; return o }(),
			"Cannot use 'prefix_repetition' dataset with --dataset-path."},
	} {
		_, err := Load(c.opts, newFake(), nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

// TestPrefixRepetitionMismatchWarning checks vLLM's warning when the
// fix-up budget runs out: a tokenizer that encodes every text to three
// tokens can never reach a target of zero (the prefix) or two (each
// suffix), so the prefix's mismatch (3) counts once and each suffix's (1)
// once per request.
func TestPrefixRepetitionMismatchWarning(t *testing.T) {
	t.Parallel()
	var warn bytes.Buffer
	got, err := Load(prefixRepOptions(3, 2, 0, 2, 1, 8), threeTokens{newFake()}, nil, &warn)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].PromptLen != 6 || got[0].Prompt != "aaaaaa" {
		t.Fatalf("got %d samples, the first %q of %d tokens, want 2 of \"aaaaaa\", 6 tokens (the last re-encodings)", len(got), got[0].Prompt, got[0].PromptLen)
	}
	want := "WARNING: Across all generated prompts, there were 5 more tokens than expected after decoding and re-encoding. This is expected due to the imperfect nature of the sampling procedure.\n"
	if warn.String() != want {
		t.Errorf("warning = %q, want %q", warn.String(), want)
	}
}

// threeTokens encodes every text as "aaa".
type threeTokens struct{ *fakeTokenizer }

func (threeTokens) Encode(string, bool) []int { return []int{2, 2, 2} }
