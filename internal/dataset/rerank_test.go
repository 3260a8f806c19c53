package dataset

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// listSample is a golden sample whose prompt may be a list (vLLM's
// list[str] prompt) and which may carry the prompt's token ids.
type listSample struct {
	Prompt            json.RawMessage `json:"prompt"`
	PromptLen         int             `json:"prompt_len"`
	ExpectedOutputLen int             `json:"expected_output_len"`
	RequestID         string          `json:"request_id"`
	TokenIDs          []int           `json:"token_ids,omitempty"`
}

// toListGolden is what a golden holds of the samples: the text, or the
// list of texts when the sample has one.
func toListGolden(t *testing.T, ss []Sample) []listSample {
	t.Helper()
	out := make([]listSample, len(ss))
	for i, s := range ss {
		var prompt any = s.Prompt
		if s.Prompts != nil {
			prompt = s.Prompts
		}
		b, err := json.Marshal(prompt)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = listSample{Prompt: b, PromptLen: s.PromptLen, ExpectedOutputLen: s.ExpectedOutputLen, RequestID: s.RequestID,
			TokenIDs: s.PromptTokenIDs}
	}
	return out
}

// compactPrompts re-encodes the goldens' prompts compactly, so that the
// comparison does not depend on the generator's indentation.
func compactPrompts(t *testing.T, ss []listSample) []listSample {
	t.Helper()
	for i := range ss {
		var v any
		if err := json.Unmarshal(ss[i].Prompt, &v); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		ss[i].Prompt = b
	}
	return ss
}

// TestRandomRerankMatchesVLLM: the random-rerank dataset gives vLLM's
// requests for the same seed (RandomDatasetForReranking.sample, run by
// tools/gen-dataset-vectors/gen_rerank_vectors.py): the query, the
// documents, their batches, lengths and ids, for a native reranker and
// with --no-reranker.
func TestRandomRerankMatchesVLLM(t *testing.T) {
	t.Parallel()
	var cases []struct {
		Seed       int64  `json:"seed"`
		NumPrompts int    `json:"num_prompts"`
		RangeRatio string `json:"range_ratio"`
		InputLen   int    `json:"input_len"`
		BatchSize  int    `json:"batch_size"`
		Reranker   bool   `json:"reranker"`
		Mismatch   int    `json:"token_mismatch_total"`
		Samples    []listSample
	}
	readJSON(t, "rerank_golden.json", &cases)
	for _, c := range cases {
		opts := Options{Name: "random-rerank", NumPrompts: c.NumPrompts, Seed: c.Seed, RequestIDPrefix: "r-",
			RandomInputLen: c.InputLen, RandomRangeRatio: mustRangeRatio(t, c.RangeRatio), RandomBatchSize: c.BatchSize,
			NoReranker: !c.Reranker, RandomOutputLen: 99, RandomPrefixLen: 5}
		var warn strings.Builder
		got, err := Load(opts, newFake(), nil, &warn)
		if err != nil {
			t.Fatalf("seed %d: %v", c.Seed, err)
		}
		if diff := cmp.Diff(compactPrompts(t, c.Samples), toListGolden(t, got)); diff != "" {
			t.Errorf("seed %d (-vllm +gobench):\n%s", c.Seed, diff)
		}
		if (c.Mismatch != 0) != strings.Contains(warn.String(), "Across all generated prompts") {
			t.Errorf("seed %d: mismatch %d, warnings %q", c.Seed, c.Mismatch, warn.String())
		}
	}
}

// TestRandomBatchesMatchVLLM: --random-batch-size groups the random
// dataset's prompts as vLLM's RandomDataset.sample does (a list prompt,
// the summed length, no output length, the batch's number as id), and
// --prompt-token-ids gives each prompt the ids of vLLM's final encoding
// (its prompt_len of them), the text unchanged.
func TestRandomBatchesMatchVLLM(t *testing.T) {
	t.Parallel()
	var cases []struct {
		Seed       int64  `json:"seed"`
		NumPrompts int    `json:"num_prompts"`
		PrefixLen  int    `json:"prefix_len"`
		RangeRatio string `json:"range_ratio"`
		InputLen   int    `json:"input_len"`
		OutputLen  int    `json:"output_len"`
		BatchSize  int    `json:"batch_size"`
		Samples    []listSample
	}
	readJSON(t, "random_batch_golden.json", &cases)
	for _, c := range cases {
		opts := Options{Name: "random", NumPrompts: c.NumPrompts, Seed: c.Seed, RequestIDPrefix: "b-",
			RandomInputLen: c.InputLen, RandomOutputLen: c.OutputLen, RandomPrefixLen: c.PrefixLen,
			RandomRangeRatio: mustRangeRatio(t, c.RangeRatio), RandomBatchSize: c.BatchSize, PromptTokenIDs: c.BatchSize == 1}
		got, err := Load(opts, newFake(), nil, io.Discard)
		if err != nil {
			t.Fatalf("seed %d: %v", c.Seed, err)
		}
		if diff := cmp.Diff(compactPrompts(t, c.Samples), toListGolden(t, got)); diff != "" {
			t.Errorf("seed %d batch %d (-vllm +gobench):\n%s", c.Seed, c.BatchSize, diff)
		}
	}
}
