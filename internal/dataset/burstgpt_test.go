package dataset

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBurstGPTMatchesVLLM: the GPT-4 rows with positive response tokens,
// drawn as pandas' DataFrame.sample draws them for the seed (without and,
// past the row count, with replacement), give vLLM's prompts, lengths and
// ids (goldens from tools/gen-dataset-vectors/gen_trace_vectors.py).
func TestBurstGPTMatchesVLLM(t *testing.T) {
	t.Parallel()
	var cases []struct {
		Seed       int64 `json:"seed"`
		NumPrompts int   `json:"num_prompts"`
		Samples    []goldenSample
	}
	readJSON(t, "burstgpt_golden.json", &cases)
	for _, c := range cases {
		opts := Options{Name: "burstgpt", Path: filepath.Join("testdata", "burstgpt60.csv"), NumPrompts: c.NumPrompts,
			Seed: c.Seed, RequestIDPrefix: "b-"}
		got, err := Load(opts, newFake(), nil, io.Discard)
		if err != nil {
			t.Fatalf("seed %d: %v", c.Seed, err)
		}
		if diff := cmp.Diff(c.Samples, toGolden(got)); diff != "" {
			t.Errorf("seed %d n %d (-vllm +gobench):\n%s", c.Seed, c.NumPrompts, diff)
		}
	}
}

// TestBurstGPTErrors: what is not a BurstGPT trace fails naming the file
// and the line.
func TestBurstGPTErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ name, body, want string }{
		{"no header", "a,b,c,d\n1,GPT-4,3,4\n", "burst.csv:1: the header must name the columns Model and Response tokens"},
		{"not a number", "Timestamp,Model,Request tokens,Response tokens\n1,GPT-4,x,4\n", "burst.csv:2: the third column (Request tokens) must be a number"},
		{"no GPT-4 row", "Timestamp,Model,Request tokens,Response tokens\n1,ChatGPT,3,4\n1,GPT-4,3,0\n", "no row with Model GPT-4"},
		{"one long line", strings.Repeat("x", maxCSVLine+10), "burst.csv:1: the line is longer than"},
	} {
		path := filepath.Join(dir, "burst.csv")
		if err := os.WriteFile(path, []byte(c.body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Load(Options{Name: "burstgpt", Path: path, NumPrompts: 2}, newFake(), nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}
