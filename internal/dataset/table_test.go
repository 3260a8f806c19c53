package dataset

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSpecs pins the table of datasets: vLLM's names in vLLM's order, every
// flag a Spec names described by a Flag, every Flag read by a Spec, and
// every pending flag owned by a dataset gobench does not have yet.
func TestSpecs(t *testing.T) {
	t.Parallel()
	want := []string{"sharegpt", "burstgpt", "sonnet", "random", "random-mm", "random-rerank", "hf",
		"custom", "custom_audio", "custom_image", "custom_mm", "prefix_repetition",
		"spec_bench", "speed_bench", "timed_trace"}
	if diff := cmp.Diff(want, Names()); diff != "" {
		t.Errorf("names (-vllm +gobench):\n%s", diff)
	}
	// Every dataset vLLM has is built now.
	if diff := cmp.Diff(Names(), Supported()); diff != "" {
		t.Errorf("supported (-want +got):\n%s", diff)
	}
	described := map[string]Flag{}
	for _, f := range Flags() {
		described[f.Name] = f
	}
	read := map[string]bool{}
	for _, s := range Specs() {
		for _, name := range s.Flags {
			f, ok := described[name]
			if !ok {
				t.Errorf("%s reads --%s, which no Flag describes", s.Name, name)
			}
			if f.Pending() && s.Supported() {
				t.Errorf("%s is supported but its flag --%s is pending", s.Name, name)
			}
			read[name] = true
		}
		for _, name := range []string{s.InputLen, s.OutputLen} {
			if f, ok := described[name]; name != "" && (!ok || f.Pending() || !isLength(f)) {
				t.Errorf("%s: --input-len or --output-len sets --%s, which is no length flag", s.Name, name)
			}
		}
	}
	general := []string{"dataset-name", "dataset-path", "no-oversample", "disable-shuffle", "skip-chat-template", "enable-multimodal-chat"}
	for name, f := range described {
		if !read[name] && !slices.Contains(general, name) {
			t.Errorf("--%s is read by no dataset", name)
		}
		if owner, ok := FlagOwner(name); f.Pending() && (!ok || owner.Supported()) {
			t.Errorf("pending flag --%s has no dataset gobench lacks as its owner", name)
		}
		if !f.Pending() && f.Kind != "" {
			t.Errorf("--%s has a field and a Kind", name)
		}
	}
}

// isLength reports whether f sets a number of tokens (an int, or an int
// that defaults to None).
func isLength(f Flag) bool {
	switch f.Field(&Options{}).(type) {
	case *int, **int:
		return true
	}
	return false
}

// TestFlagFields: every bound flag sets a field of the options, of a type
// the command line binds.
func TestFlagFields(t *testing.T) {
	t.Parallel()
	var o Options
	for _, f := range Flags() {
		if f.Pending() {
			continue
		}
		switch f.Field(&o).(type) {
		case *int, *float64, *string, *bool, **int, *RangeRatio:
		default:
			t.Errorf("--%s: field of type %T", f.Name, f.Field(&o))
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	with := func(edit func(*Options)) Options { o := DefaultOptions(); edit(&o); return o }
	tests := []struct {
		name string
		opts Options
		want string
		is   error
	}{
		{"random", DefaultOptions(), "", nil},
		{"unknown", Options{Name: "nope"}, "Unknown dataset: nope", nil},
		{"path forbidden", Options{Name: "random", Path: "x.json"}, "Cannot use 'random' dataset with --dataset-path", nil},
		{"forbidden before unsupported", Options{Name: "prefix_repetition", Path: "x"}, "Cannot use 'prefix_repetition'", nil},
		{"path required", Options{Name: "custom"}, "--dataset-name custom needs --dataset-path", nil},
		{"range ratio", Options{Name: "random", RandomRangeRatio: RangeRatio{1, 0}}, "input_range_ratio must be in [0, 1).", nil},
		{"range ratio ignored elsewhere", Options{Name: "custom", Path: "a.jsonl", RandomRangeRatio: RangeRatio{1, 0}}, "", nil},
		{"batches", with(func(o *Options) { o.RandomBatchSize = 2 }), "", nil},
		{"batch of none", with(func(o *Options) { o.RandomBatchSize = 0 }), "argument --random-batch-size: must be at least 1 (got 0)", nil},
		{"batch size ignored elsewhere", Options{Name: "custom", Path: "a.jsonl", RandomBatchSize: 0, NumPrompts: 1}, "", nil},
		{"rerank batch of none", with(func(o *Options) { o.Name, o.RandomBatchSize = "random-rerank", 0 }), "argument --random-batch-size: must be at least 1 (got 0)", nil},
		{"no-reranker needs two per batch", with(func(o *Options) { o.Name, o.NoReranker = "random-rerank", true }),
			"--no-reranker: each batch's first prompt is its query, so --random-batch-size (1) and --num-prompts (1000) must both be at least 2", nil},
		{"no-reranker", with(func(o *Options) { o.Name, o.NoReranker, o.RandomBatchSize = "random-rerank", true, 2 }), "", nil},
		{"token ids", with(func(o *Options) { o.PromptTokenIDs, o.Backend = true, "vllm" }), "", nil},
		{"token ids to chat", with(func(o *Options) { o.PromptTokenIDs, o.Backend = true, "openai-chat" }),
			"--prompt-token-ids: --backend openai-chat sends text; token ids go to the completions backends (openai, vllm) only", nil},
		{"token ids in batches", with(func(o *Options) { o.PromptTokenIDs, o.RandomBatchSize = true, 2 }),
			"--prompt-token-ids: a request carries the token ids of one prompt, so --random-batch-size must be 1 (got 2)", nil},
		{"token ids of another dataset", with(func(o *Options) { o.Name, o.PromptTokenIDs = "random-rerank", true }),
			"--prompt-token-ids: only the random dataset sends token ids (got --dataset-name random-rerank)", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Validate(tt.opts)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("err = %v, want errors.Is %v", err, tt.is)
			}
		})
	}
}

// TestValidateCounts: --num-prompts and the token
// lengths of the dataset in use, with vLLM's meanings kept (custom's "every
// sample" for 0 or less, -1 for each row's output length) and the others'
// flags ignored, as vLLM ignores them.
func TestValidateCounts(t *testing.T) {
	t.Parallel()
	random := DefaultOptions()
	custom := Options{Name: "custom", Path: "a.jsonl", CustomOutputLen: 256}
	with := func(o Options, edit func(*Options)) Options { edit(&o); return o }
	neg := -4
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"random needs a prompt", with(random, func(o *Options) { o.NumPrompts = 0 }), "argument --num-prompts: must be at least 1 for the random dataset (got 0)"},
		{"sharegpt needs a prompt", Options{Name: "sharegpt", Path: "s.json", NumPrompts: -1}, "argument --num-prompts: must be at least 1 for the sharegpt dataset (got -1)"},
		{"custom takes every sample", with(custom, func(o *Options) { o.NumPrompts = -1 }), ""},
		{"at most MaxSamples", with(custom, func(o *Options) { o.NumPrompts = MaxSamples + 1 }), "argument --num-prompts: must be at most 100000000 (got 100000001)"},
		{"negative input", with(random, func(o *Options) { o.RandomInputLen = -1 }), "argument --random-input-len: must not be negative (got -1)"},
		{"zero input with a prefix", with(random, func(o *Options) { o.RandomInputLen, o.RandomPrefixLen = 0, 4 }), ""},
		{"output 0 is 1 token in vLLM", with(random, func(o *Options) { o.RandomOutputLen = 0 }), ""},
		{"negative output", with(random, func(o *Options) { o.RandomOutputLen = -1 }), "argument --random-output-len: must not be negative (got -1)"},
		{"huge prefix", with(random, func(o *Options) { o.RandomPrefixLen = MaxTokens + 1 }), "argument --random-prefix-len: must be at most 16777216 tokens (got 16777217)"},
		{"another dataset's flag is ignored", with(custom, func(o *Options) { o.RandomPrefixLen = -3 }), ""},
		{"custom -1 is each row's", with(custom, func(o *Options) { o.CustomOutputLen = -1 }), ""},
		{"custom -2", with(custom, func(o *Options) { o.CustomOutputLen = -2 }), "argument --custom-output-len: must be -1 (each row's output_tokens) or a number of tokens (got -2)"},
		{"sharegpt output", Options{Name: "sharegpt", Path: "s.json", NumPrompts: 1, SharegptOutputLen: &neg}, "argument --sharegpt-output-len: must not be negative (got -4)"},
	}
	for _, tt := range tests {
		err := Validate(tt.opts)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || err.Error() != tt.want):
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestLookupFlag: LookupFlag finds every flag Flags lists, as Flags has
// it, and nothing else.
func TestLookupFlag(t *testing.T) {
	t.Parallel()
	for _, want := range Flags() {
		got, ok := LookupFlag(want.Name)
		if !ok || got.Name != want.Name || got.Help != want.Help || got.Pending() != want.Pending() {
			t.Errorf("LookupFlag(%q) = %+v, %v; Flags has %+v", want.Name, got, ok, want)
		}
	}
	for _, name := range []string{"", "seed", "--dataset-name", "Dataset-Name"} {
		if fl, ok := LookupFlag(name); ok {
			t.Errorf("LookupFlag(%q) = %+v: no such dataset flag", name, fl)
		}
	}
}
