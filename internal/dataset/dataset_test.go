package dataset

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type goldenSample struct {
	Prompt            string `json:"prompt"`
	PromptLen         int    `json:"prompt_len"`
	ExpectedOutputLen int    `json:"expected_output_len"`
	RequestID         string `json:"request_id"`
}

func toGolden(ss []Sample) []goldenSample {
	out := make([]goldenSample, len(ss))
	for i, s := range ss {
		out[i] = goldenSample{Prompt: s.Prompt, PromptLen: s.PromptLen, ExpectedOutputLen: s.ExpectedOutputLen, RequestID: s.RequestID}
	}
	return out
}

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

// TestRandomMatchesVLLM compares with samples produced by a copy of vLLM's
// RandomDataset run with NumPy (tools/gen-dataset-vectors), including the
// prefix, range ratios (float and dict) and the decode/re-encode fix-ups.
func TestRandomMatchesVLLM(t *testing.T) {
	t.Parallel()
	var cases []struct {
		Seed       int64  `json:"seed"`
		NumPrompts int    `json:"num_prompts"`
		PrefixLen  int    `json:"prefix_len"`
		RangeRatio string `json:"range_ratio"`
		InputLen   int    `json:"input_len"`
		OutputLen  int    `json:"output_len"`
		Samples    []goldenSample
	}
	readJSON(t, "random_golden.json", &cases)
	for _, c := range cases {
		opts := Options{Name: "random", NumPrompts: c.NumPrompts, Seed: c.Seed, RequestIDPrefix: "bench-x-",
			RandomInputLen: c.InputLen, RandomOutputLen: c.OutputLen, RandomPrefixLen: c.PrefixLen,
			RandomRangeRatio: mustRangeRatio(t, c.RangeRatio), RandomBatchSize: 1}
		got, err := Load(opts, newFake(), nil, io.Discard)
		if err != nil {
			t.Fatalf("seed %d: %v", c.Seed, err)
		}
		if diff := cmp.Diff(c.Samples, toGolden(got)); diff != "" {
			t.Errorf("seed %d (-vllm +gobench):\n%s", c.Seed, diff)
		}
	}
}

func TestCustomMatchesVLLM(t *testing.T) {
	t.Parallel()
	var cases []struct {
		Seed       int64 `json:"seed"`
		NumPrompts int   `json:"num_prompts"`
		OutputLen  int   `json:"output_len"`
		Shuffle    bool  `json:"shuffle"`
		Samples    []goldenSample
	}
	readJSON(t, "custom_golden.json", &cases)
	for _, c := range cases {
		opts := Options{Name: "custom", Path: filepath.Join("testdata", "custom60.jsonl"), NumPrompts: c.NumPrompts,
			Seed: c.Seed, RequestIDPrefix: "p-", CustomOutputLen: c.OutputLen, SkipChatTemplate: true, DisableShuffle: !c.Shuffle}
		got, err := Load(opts, newFake(), nil, io.Discard)
		if err != nil {
			t.Fatalf("seed %d: %v", c.Seed, err)
		}
		if diff := cmp.Diff(c.Samples, toGolden(got)); diff != "" {
			t.Errorf("seed %d n %d (-vllm +gobench):\n%s", c.Seed, c.NumPrompts, diff)
		}
	}
}

func TestShareGPTMatchesVLLM(t *testing.T) {
	t.Parallel()
	var cases []struct {
		Seed       int64 `json:"seed"`
		NumPrompts int   `json:"num_prompts"`
		OutputLen  *int  `json:"output_len"`
		Samples    []goldenSample
	}
	readJSON(t, "sharegpt_golden.json", &cases)
	for _, c := range cases {
		opts := Options{Name: "sharegpt", Path: filepath.Join("testdata", "sharegpt40.json"), NumPrompts: c.NumPrompts,
			Seed: c.Seed, RequestIDPrefix: "s-", SharegptOutputLen: c.OutputLen}
		got, err := Load(opts, newFake(), nil, io.Discard)
		if err != nil {
			t.Fatalf("seed %d: %v", c.Seed, err)
		}
		if diff := cmp.Diff(c.Samples, toGolden(got)); diff != "" {
			t.Errorf("seed %d (-vllm +gobench):\n%s", c.Seed, diff)
		}
	}
}

// The random dataset is isolated: same seed, same samples; different seeds
// differ (vLLM's test_random_dataset.py).
func TestRandomDeterminism(t *testing.T) {
	t.Parallel()
	opts := Options{Name: "random", NumPrompts: 16, Seed: 123, RandomInputLen: 50, RandomOutputLen: 20,
		RandomPrefixLen: 7, RandomRangeRatio: RangeRatio{0.3, 0.3}, RandomBatchSize: 1}
	a, _ := Load(opts, newFake(), nil, nil)
	b, _ := Load(opts, newFake(), nil, nil)
	if !cmp.Equal(a, b) {
		t.Error("same seed gave different samples")
	}
	opts.Seed = 999
	c, _ := Load(opts, newFake(), nil, nil)
	if cmp.Equal(a, c) {
		t.Error("different seeds gave the same samples")
	}
}

func TestSamplingParams(t *testing.T) {
	t.Parallel()
	// vLLM's test_sampling_params.py cases, with the fake tokenizer's one
	// special token: input 129 -> 128 after specials.
	tests := []struct {
		name    string
		rr      RangeRatio
		in, out int
		inLo    int64
		inHi    int64
		outLo   int64
		outHi   int64
		wantErr string
	}{
		{"fixed", RangeRatio{0, 0}, 129, 64, 128, 128, 64, 64, ""},
		{"input half", RangeRatio{0.5, 0}, 201, 50, 100, 300, 50, 50, ""},
		{"output 0.3", RangeRatio{0, 0.3}, 101, 100, 100, 100, 70, 130, ""},
		{"output floor 1", RangeRatio{0, 0.99}, 10, 1, 9, 9, 1, 2, ""},
		{"input below 0", RangeRatio{-0.1, 0}, 10, 10, 0, 0, 0, 0, "input_range_ratio"},
		{"input 1", RangeRatio{1, 0}, 10, 10, 0, 0, 0, 0, "input_range_ratio"},
		{"output 1.5", RangeRatio{0, 1.5}, 10, 10, 0, 0, 0, 0, "output_range_ratio"},
		{"specials exceed input", RangeRatio{0, 0}, 0, 5, 0, 0, 5, 5, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in, out, off, err := SamplingParams(newGen(1), 200, tt.rr, tt.in, tt.out, newFake())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := range in {
				if in[i] < tt.inLo || in[i] > tt.inHi || out[i] < tt.outLo || out[i] > tt.outHi || off[i] < 0 || off[i] >= int64(newFake().VocabSize()) {
					t.Fatalf("sample %d out of range: in %d out %d off %d", i, in[i], out[i], off[i])
				}
			}
		})
	}
}

func TestRangeRatioParse(t *testing.T) {
	t.Parallel()
	if rr, err := ParseRangeRatio(`{"input": 0.3, "output": 0.5}`); err != nil || rr != (RangeRatio{0.3, 0.5}) {
		t.Errorf("dict: %v %v", rr, err)
	}
	if rr, err := ParseRangeRatio(" 0.25 "); err != nil || rr != (RangeRatio{0.25, 0.25}) {
		t.Errorf("float: %v %v", rr, err)
	}
	_, err := ParseRangeRatio(`{"input": 0.1}`)
	if err == nil || err.Error() != "When range_ratio is a dict it must contain 'input' and 'output' keys, got: ['input']" {
		t.Errorf("missing key: %v", err)
	}
	if _, err := ParseRangeRatio("abc"); err == nil {
		t.Error("abc accepted")
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"random with path", Options{Name: "random", Path: "x.json"},
			"Cannot use 'random' dataset with --dataset-path. Please specify the appropriate --dataset-name (e.g., 'sharegpt', 'custom', 'sonnet') for your dataset file: x.json"},
		{"unknown", Options{Name: "nope"}, "Unknown dataset: nope"},
		{"custom not jsonl", Options{Name: "custom", Path: "a.json", SkipChatTemplate: true}, "Only JSONL format is supported for CustomDataset."},
		{"custom bad line", Options{Name: "custom", Path: write("bad.jsonl", "{\"prompt\":\"a\"}\n\n{oops\n"), SkipChatTemplate: true, NumPrompts: 1},
			"bad.jsonl:3: not a JSON object"},
		{"custom prompt type", Options{Name: "custom", Path: write("num.jsonl", "{\"prompt\":12}\n"), SkipChatTemplate: true, NumPrompts: 1},
			"num.jsonl:1: \"prompt\" must be a string"},
		{"custom no column", Options{Name: "custom", Path: write("nocol.jsonl", "{\"text\":\"a\"}\n"), SkipChatTemplate: true, NumPrompts: 1},
			"JSONL file must contain a 'prompt' column."},
		{"custom missing output_tokens", Options{Name: "custom", Path: write("noout.jsonl", "{\"prompt\":\"a\"}\n"), SkipChatTemplate: true, NumPrompts: 1, CustomOutputLen: -1},
			"noout.jsonl:1: If no output length is provided the custom dataset must contain an 'output_tokens' field."},
		{"custom bad output_tokens", Options{Name: "custom", Path: write("badout.jsonl", "{\"prompt\":\"a\",\"output_tokens\":\"x\"}\n"), SkipChatTemplate: true, NumPrompts: 1, CustomOutputLen: -1},
			"Invalid value for 'output_tokens' in custom dataset: 'x'. Must be an integer."},
		{"custom chat template", Options{Name: "custom", Path: "a.jsonl"}, "the tokenizer has no chat template to apply: pass --skip-chat-template"},
		{"sharegpt syntax", Options{Name: "sharegpt", Path: write("s.json", "[\n {\"conversations\": [}\n]"), NumPrompts: 1},
			"s.json:2:"},
		{"sharegpt all filtered", Options{Name: "sharegpt", Path: write("f.json", `[{"conversations":[{"value":"a b c d e"},{"value":"x"}]}]`), NumPrompts: 1, SharegptOutputLen: intp(2048)},
			"output_len=2048"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Load(tt.opts, newFake(), nil, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// Without a tokenizer the custom dataset counts one token in and one out,
// whatever the flags say (vLLM's behaviour with --skip-tokenizer-init).
func TestCustomWithoutTokenizer(t *testing.T) {
	t.Parallel()
	got, err := Load(Options{Name: "custom", Path: filepath.Join("testdata", "custom60.jsonl"), NumPrompts: 3, CustomOutputLen: 99}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range got {
		if s.PromptLen != 1 || s.ExpectedOutputLen != 1 {
			t.Fatalf("%+v", s)
		}
	}
}

func intp(v int) *int { return &v }

// FuzzParseCustom: no input panics the JSONL reader, and every error names
// the file.
func FuzzParseCustom(f *testing.F) {
	f.Add([]byte("{\"prompt\":\"a\",\"output_tokens\":3}\n\n{\"prompt\":\"b\"}\n"))
	f.Add([]byte("{\"prompt\":1}\n"))
	f.Add([]byte("[1,2]\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := parseCustom(bytes.NewReader(data), "f.jsonl", maxValueBytes)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.jsonl") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, r := range rows {
			if r.line <= 0 {
				t.Fatalf("row without a line number: %+v", r)
			}
		}
	})
}

// FuzzReadShareGPT: no input panics the ShareGPT reader, and on a valid
// JSON list the streaming reader keeps exactly the entries that decoding
// the whole list keeps.
func FuzzReadShareGPT(f *testing.F) {
	f.Add([]byte(`[{"conversations":[{"value":"a"},{"value":"b"}]}, 3, {"conversations":[]}]`))
	f.Add([]byte("[\n{\"conversations\": [}\n]"))
	f.Add([]byte(`["]\"[", {"conversations":[{"value":"{"},{"value":"}\\"}], "image": null}, -1.5e3, true]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "s.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readShareGPT(p, 3)
		var all []json.RawMessage
		if json.Unmarshal(data, &all) != nil {
			return
		}
		var want []shareGPTEntry
		for i, raw := range all {
			e, keep, werr := shareGPTConversation(bytes.TrimSpace(raw))
			if werr != nil {
				return // both fail, with their own messages
			}
			if keep {
				e.index = i
				want = append(want, e)
			}
		}
		if err != nil {
			t.Fatalf("valid list refused: %v", err)
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(shareGPTEntry{})); diff != "" {
			t.Fatalf("(-whole +streamed):\n%s", diff)
		}
	})
}

// mustRangeRatio parses a --random-range-ratio value of a golden case.
func mustRangeRatio(t *testing.T, s string) RangeRatio {
	t.Helper()
	rr, err := ParseRangeRatio(s)
	if err != nil {
		t.Fatal(err)
	}
	return rr
}
