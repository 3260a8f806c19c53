package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/golden"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/google/go-cmp/cmp"
)

// timingRE matches the values of the pooling block's lines that depend on
// timing, so that the golden holds the block's shape and its counts.
var timingRE = regexp.MustCompile(`(?m)^((?:Benchmark duration \(s\)|Request throughput \(req/s\)|Total token throughput \(tok/s\)|` +
	`(?:Mean|Median|P\d+) E2EL \(ms\)):\s+)\S+\s*$`)

// TestServeEmbeddings runs the pooling backends against the simulator's
// /v1/embeddings through cli.Main: stdout is vLLM's pooling block
// (serve.py@11dfa3169 benchmark, EmbedBenchmarkMetrics: no generation
// line, only the End-to-end Latency section, whatever
// --percentile-metrics asks besides e2el), and the result file has vLLM's
// pooling keys in its order.
func TestServeEmbeddings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"openai-embeddings", []string{"--backend", "openai-embeddings"}},
		{"openai-embeddings-chat", []string{"--backend", "openai-embeddings-chat", "--max-concurrency", "2",
			"--percentile-metrics", "ttft,e2el", "--metric-percentiles", "50,99"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := append(append([]string{}, simArgs...), "--no-server-metrics", "--save-result", "--result-dir", dir,
				"--result-filename", "e.json")
			stdout, stderr, code := runMain(t, append(args, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			if strings.Contains(stderr, "output tokens") {
				t.Errorf("the load line counts output tokens for a pooling backend:\n%s", stderr)
			}
			golden.Check(t, []byte(timingRE.ReplaceAllString(stdout, "${1}N")))
			b, err := os.ReadFile(filepath.Join(dir, "e.json"))
			if err != nil {
				t.Fatal(err)
			}
			o, err := pyjson.DecodeObject(b)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"date", "endpoint_type", "backend", "label", "model_id", "tokenizer_id", "num_prompts",
				"request_rate", "burstiness", "max_concurrency", "duration", "completed", "total_input_tokens",
				"request_throughput", "total_token_throughput"}
			if tc.name == "openai-embeddings" {
				want = append(want, "mean_e2el_ms", "median_e2el_ms", "std_e2el_ms", "p99_e2el_ms")
			} else {
				want = append(want, "mean_e2el_ms", "median_e2el_ms", "std_e2el_ms", "p50_e2el_ms", "p99_e2el_ms")
			}
			want = append(want, "num_warmups", "gobench_workload", "gobench_version", "resent_requests", "failure_kinds",
				"end_reason", "gobench_client")
			if diff := cmp.Diff(want, o.Keys()); diff != "" {
				t.Errorf("result keys (-vllm +gobench):\n%s", diff)
			}
			if v, _ := o.Get("completed"); v != int64(6) && v != 6.0 && v != 6 {
				t.Errorf("completed = %v (%T)", v, v)
			}
		})
	}
}

// TestServeEmbeddingsRefusals: what a pooling result cannot have is
// refused before the run, naming the flag: goodput (vLLM computes none for
// pooling), failed_ratio (the pooling result has no failed) and a
// statistic that is not selected (no per-request latencies to compute it
// from).
func TestServeEmbeddingsRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--goodput", "e2el:100"}, "argument --goodput: --backend openai-embeddings is a pooling backend"},
		{[]string{"--threshold", "failed_ratio<=0.1"}, `argument --threshold: "failed_ratio<=0.1": a result of this command line has no key "failed_ratio"`},
		{[]string{"--threshold", "p90_e2el_ms<100"}, `argument --threshold: "p90_e2el_ms<100": a result of this command line has no key "p90_e2el_ms"`},
	} {
		args := append(append([]string{}, simArgs...), "--backend", "openai-embeddings")
		stdout, stderr, code := runMain(t, append(args, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr:\n%s\nwant %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}
