package dataset

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSpeedBenchMatchesVLLM: SUBSET.jsonl in the --dataset-path directory,
// each row's first message, the category filter, shuffled and oversampled
// with seed 0, give vLLM's samples.
func TestSpeedBenchMatchesVLLM(t *testing.T) {
	t.Parallel()
	var cases []struct {
		Subset     string `json:"subset"`
		Category   string `json:"category"`
		NumPrompts int    `json:"num_prompts"`
		Samples    []goldenSample
	}
	readJSON(t, "speedbench_golden.json", &cases)
	for _, c := range cases {
		opts := Options{Name: "speed_bench", Path: filepath.Join("testdata", "speedbench"), NumPrompts: c.NumPrompts,
			Seed: 3, RequestIDPrefix: "sp-", SpeedBenchSubset: c.Subset, SpeedBenchOutputLen: 4096,
			SpeedBenchCategory: c.Category, SkipChatTemplate: true}
		got, err := Load(opts, newFake(), nil, io.Discard)
		if err != nil {
			t.Fatalf("%s %q: %v", c.Subset, c.Category, err)
		}
		if diff := cmp.Diff(c.Samples, toGolden(got)); diff != "" {
			t.Errorf("%s %q n %d (-vllm +gobench):\n%s", c.Subset, c.Category, c.NumPrompts, diff)
		}
	}
}

// TestSpeedBenchNeedsTheDirectory: a file instead of the directory, or a
// subset that was not downloaded, says where the files come from.
func TestSpeedBenchNeedsTheDirectory(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ path, subset, want string }{
		{filepath.Join("testdata", "specbench30.jsonl"), "qualitative", "is not a directory. Please make sure to download the dataset"},
		{filepath.Join("testdata", "speedbench"), "throughput_32k", "throughput_32k.jsonl"},
	} {
		opts := Options{Name: "speed_bench", Path: c.path, NumPrompts: 2, SpeedBenchSubset: c.subset, SpeedBenchOutputLen: 8}
		_, err := Load(opts, newFake(), nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.subset, err, c.want)
		}
	}
}
