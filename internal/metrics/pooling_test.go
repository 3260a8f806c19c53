package metrics

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCalculatePooling: calculate_metrics_for_embeddings
// (vllm/benchmarks/serve.py@11dfa3169): successful requests give the
// counts, the input tokens (the server's prompt_tokens) and E2EL; nothing
// of generation is computed, and Sections keeps e2el alone.
func TestCalculatePooling(t *testing.T) {
	t.Parallel()
	outputs := []Output{
		{Success: true, Latency: 0.1, TTFT: 0.1, PromptLen: 10, StartTime: 0},
		{Success: false, Error: "HTTP 500", PromptLen: 0},
		{Success: true, Latency: 0.3, TTFT: 0.3, PromptLen: 30, StartTime: 0.1},
	}
	cfg := Config{Pooling: true, PercentileMetrics: []string{"ttft", "e2el"}, Percentiles: []float64{50}, RequestRate: 1,
		MaxConcurrency: 2, Goodput: map[string]float64{"e2el": 1000}, CountTokens: func(string) int { return 7 }}
	r := Calculate(outputs, 2, cfg)
	if r.Completed != 2 || r.Failed != 1 || r.TotalInput != 40 || r.TotalOutput != 0 || r.RequestThroughput != 1 ||
		r.TotalTokenThroughput != 20 || r.GoodputEnabled || r.ClientQueue != nil || r.MaxConcurrentRequests != 0 {
		t.Errorf("result %+v", r)
	}
	if diff := cmp.Diff([]string{"HTTP 500"}, r.Failures); diff != "" {
		t.Errorf("failures:\n%s", diff)
	}
	secs := r.Sections()
	if len(secs) != 1 || secs[0].Key != "e2el" {
		t.Fatalf("sections %+v, want e2el alone", secs)
	}
	if s := secs[0].Stats; s.Mean != 200 || s.Median != 200 || len(s.Percentiles) != 1 || s.Percentiles[0].Value != 200 {
		t.Errorf("e2el %+v", s)
	}
	if none := Calculate([]Output{{Error: "x"}}, 1, cfg); len(none.Warnings) != 1 || none.Warnings[0] != WarnAllFailed {
		t.Errorf("warnings %v", none.Warnings)
	}
}
