package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/golden"
)

// traceDatasets are the runs of burstgpt, spec_bench, speed_bench and
// timed_trace the tests below make, on the dataset package's test files.
func traceDatasets(t *testing.T) map[string][]string {
	t.Helper()
	data := filepath.Join("..", "dataset", "testdata")
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	// Millisecond timestamps, scaled by --timed-trace-sec-multiplier.
	body := `{"timestamp": 0, "input_length": 20, "output_length": 3, "hash_ids": [1, 2]}
{"timestamp": 40, "input_length": 12, "output_length": 2, "hash_ids": [1, 3]}
{"timestamp": 80, "input_length": 30, "output_length": 4, "hash_ids": [1, 2, 4]}
{"timestamp": 100, "input_length": 8, "output_length": 1, "hash_ids": [5]}
`
	if err := os.WriteFile(trace, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return map[string][]string{
		"burstgpt": {"--dataset-name", "burstgpt", "--dataset-path", filepath.Join(data, "burstgpt60.csv"), "--num-prompts", "5", "--seed", "7"},
		"spec_bench": {"--dataset-name", "spec_bench", "--dataset-path", filepath.Join(data, "specbench30.jsonl"), "--num-prompts", "4",
			"--spec-bench-category", "math", "--output-len", "6", "--skip-chat-template"},
		"speed_bench": {"--dataset-name", "speed_bench", "--dataset-path", filepath.Join(data, "speedbench"), "--num-prompts", "4",
			"--speed-bench-dataset-subset", "throughput_1k", "--speed-bench-output-len", "5", "--skip-chat-template"},
		"timed_trace": {"--dataset-name", "timed_trace", "--dataset-path", trace, "--num-prompts", "10",
			"--timed-trace-chunk-hash-size", "8", "--timed-trace-sec-multiplier", "0.001"},
	}
}

// TestTraceDatasetsDryRun: --dry-run shows each dataset's requests (lengths,
// ids, offsets); timed_trace's offsets are its timestamps in seconds
// (--self-timed is its default).
func TestTraceDatasetsDryRun(t *testing.T) {
	t.Parallel()
	for name, args := range traceDatasets(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			all := append([]string{"serve", "--dry-run", "--model", "m", "--tokenizer", "gobench-builtin", "--request-rate", "10", "--request-id-prefix", "r-"}, args...)
			stdout, stderr, code := runMain(t, all...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			golden.Check(t, []byte(stdout))
		})
	}
}

// TestTraceDatasetsAgainstSim runs each dataset end to end against the
// simulator through cli.Main: every request is sent and answered, and
// timed_trace's token-id prompts are accepted by the completions API.
func TestTraceDatasetsAgainstSim(t *testing.T) {
	t.Parallel()
	want := map[string]float64{"burstgpt": 5, "spec_bench": 4, "speed_bench": 4, "timed_trace": 4}
	for name, args := range traceDatasets(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			all := append([]string{"serve", "--sim", "--sim-ttft", "0.005", "--sim-itl", "0.001", "--disable-tqdm",
				"--no-server-metrics", "--format", "json"}, args...)
			stdout, stderr, code := runMain(t, all...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(stdout), &got); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
			}
			if got["completed"] != want[name] || got["failed"] != 0.0 {
				t.Errorf("completed %v failed %v, want %v and 0\n%s", got["completed"], got["failed"], want[name], stderr)
			}
			if name == "timed_trace" && !strings.Contains(stderr, "at the trace's timestamps (--self-timed)") {
				t.Errorf("the load line does not say the run is self-timed:\n%s", stderr)
			}
		})
	}
}

// TestSelfTimedFlags: --no-self-timed gives timed_trace the --request-rate
// schedule (the last request at N / rate, vLLM's normalisation); the
// self-timed flags are refused for another dataset, as vLLM refuses them.
func TestSelfTimedFlags(t *testing.T) {
	t.Parallel()
	args := append([]string{"serve", "--dry-run", "--model", "m", "--tokenizer", "gobench-builtin", "--request-rate", "2",
		"--no-self-timed"}, traceDatasets(t)["timed_trace"]...)
	stdout, stderr, code := runMain(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var offsets []float64
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var r struct {
			OffsetS float64 `json:"offset_s"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("dry-run line %q: %v", l, err)
		}
		offsets = append(offsets, r.OffsetS)
	}
	if n := len(offsets); n != 4 || offsets[n-1] < 1.999999 || offsets[n-1] > 2.000001 {
		t.Errorf("offsets %v: want 4, the last at 4 / 2 req/s = 2 s", offsets)
	}
	_, stderr, code = runMain(t, "serve", "--dry-run", "--model", "m", "--tokenizer", "gobench-builtin", "--self-timed")
	if code != 2 || !strings.Contains(stderr, "--self-timed/--no-self-timed is only supported with --dataset-name=timed_trace") {
		t.Errorf("--self-timed with random: exit %d\n%s", code, stderr)
	}
}
