package dataset

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// traceGolden is one timed_trace sample as the generator writes it.
type traceGolden struct {
	PromptTokenIDs    []int   `json:"prompt_token_ids"`
	Prompt            string  `json:"prompt"`
	PromptLen         int     `json:"prompt_len"`
	ExpectedOutputLen int     `json:"expected_output_len"`
	RequestID         string  `json:"request_id"`
	Timestamp         float64 `json:"timestamp"`
}

// TestTimedTraceMatchesVLLM: the hash ids expand into vLLM's chunks (one
// per id, the last cut), the token ids, their text, the lengths, the ids
// by line and the scaled timestamps equal the generator's copy of vLLM's
// TimedTrace, for several chunk sizes and multipliers.
func TestTimedTraceMatchesVLLM(t *testing.T) {
	t.Parallel()
	var cases []struct {
		ChunkSize     int     `json:"chunk_size"`
		SecMultiplier float64 `json:"sec_multiplier"`
		NumPrompts    int     `json:"num_prompts"`
		Samples       []traceGolden
	}
	readJSON(t, "timedtrace_golden.json", &cases)
	for _, c := range cases {
		opts := DefaultOptions()
		opts.Name, opts.Path, opts.NumPrompts, opts.RequestIDPrefix = "timed_trace", filepath.Join("testdata", "trace20.jsonl"), c.NumPrompts, "t-"
		opts.TimedTraceChunkHashSize, opts.TimedTraceSecMultiplier = c.ChunkSize, c.SecMultiplier
		got, err := Load(opts, newFake(), nil, io.Discard)
		if err != nil {
			t.Fatalf("chunk %d: %v", c.ChunkSize, err)
		}
		out := make([]traceGolden, len(got))
		for i, s := range got {
			out[i] = traceGolden{PromptTokenIDs: s.PromptTokenIDs, Prompt: s.Prompt, PromptLen: s.PromptLen,
				ExpectedOutputLen: s.ExpectedOutputLen, RequestID: s.RequestID, Timestamp: *s.Timestamp}
		}
		if diff := cmp.Diff(c.Samples, out); diff != "" {
			t.Errorf("chunk %d (-vllm +gobench):\n%s", c.ChunkSize, diff)
		}
	}
}

// TestTimedTracePrefixes is the later upstream's test
// (tests/benchmarks/test_timed_trace_dataset.py@c99c8c47): with chunk 8,
// lengths 12, 16, 16; a cut chunk is the start of the full one; a shared
// hash id shares its tokens and different ids differ.
func TestTimedTracePrefixes(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	body := `{"ts": 0, "input_length": 12, "output_length": 3, "hash_ids": [7, 11]}
{"ts": 1, "input_length": 16, "output_length": 3, "hash_ids": [7, 19]}
{"ts": 2, "input_length": 16, "output_length": 3, "hash_ids": [7, 11]}`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.Name, opts.Path, opts.NumPrompts, opts.TimedTraceChunkHashSize, opts.TimedTraceLabelTimestamp = "timed_trace", path, 3, 8, "ts"
	got, err := Load(opts, newFake(), nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	p0, p1, p2 := got[0].PromptTokenIDs, got[1].PromptTokenIDs, got[2].PromptTokenIDs
	if len(p0) != 12 || len(p1) != 16 || len(p2) != 16 {
		t.Fatalf("lengths %d %d %d, want 12 16 16", len(p0), len(p1), len(p2))
	}
	if !cmp.Equal(p0, p2[:12]) || !cmp.Equal(p0[:8], p1[:8]) || cmp.Equal(p1[8:], p2[8:]) {
		t.Errorf("prompts %v %v %v: want p0 == p2[:12], p0[:8] == p1[:8], p1[8:] != p2[8:]", p0, p1, p2)
	}
	if *got[2].Timestamp != 2 || got[2].RequestID != "2" {
		t.Errorf("timestamp %v id %q", *got[2].Timestamp, got[2].RequestID)
	}
}

// TestTimedTraceErrors: a missing field names it, the entry's fields and
// the flag; the self-timed flags belong to timed_trace; prompts of token
// ids go to the completions backends only.
func TestTimedTraceErrors(t *testing.T) {
	t.Parallel()
	trace := filepath.Join("testdata", "trace20.jsonl")
	base := DefaultOptions()
	base.Name, base.Path, base.NumPrompts = "timed_trace", trace, 2
	for _, c := range []struct {
		name string
		edit func(o *Options)
		want string
	}{
		{"missing field", func(o *Options) { o.TimedTraceLabelInputLength = "isl" },
			"trace20.jsonl:1: Input length field 'isl' not found in trace entry. Available fields: ['timestamp', 'input_length', 'output_length', 'hash_ids']. Use --timed-trace-label-input-length"},
		{"self-timed elsewhere", func(o *Options) { o.Name, o.Path, o.SelfTimed = "custom", "x.jsonl", true },
			"--self-timed/--no-self-timed is only supported with --dataset-name=timed_trace"},
		{"both", func(o *Options) { o.SelfTimed, o.NoSelfTimed = true, true }, "argument --no-self-timed: not allowed with argument --self-timed"},
		{"chunk 0", func(o *Options) { o.TimedTraceChunkHashSize = 0 }, "argument --timed-trace-chunk-hash-size: must be between 1"},
		{"chat", func(o *Options) { o.Backend = "openai-chat" }, "only the completions backends (openai, vllm)"},
	} {
		o := base
		c.edit(&o)
		_, err := Load(o, newFake(), nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	if SelfTimed(base) != true {
		t.Error("timed_trace is not self-timed by default")
	}
	base.NoSelfTimed = true
	if SelfTimed(base) {
		t.Error("--no-self-timed is still self-timed")
	}
}
