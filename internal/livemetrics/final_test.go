package livemetrics

import (
	"fmt"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/gobench/gobench/internal/run"
)

// checkFinalCounts compares the endpoint's counters with the saved
// result's keys.
func checkFinalCounts(t *testing.T, fams map[string]*dto.MetricFamily, res *run.Result) {
	t.Helper()
	key := func(k string) float64 {
		v, ok := res.Object.Get(k)
		if !ok {
			t.Fatalf("the saved result has no %s", k)
		}
		f, err := toFloat(v)
		if err != nil {
			t.Fatalf("the saved result's %s: %v", k, err)
		}
		return f
	}
	if key("failed") == 0 || key("completed") == 0 {
		t.Fatalf("the run should have both successes and failures: completed %g failed %g", key("completed"), key("failed"))
	}
	for _, tc := range []struct{ metric, key string }{
		{"gobench_requests_completed_total", "completed"},
		{"gobench_requests_failed_total", "failed"},
		{"gobench_input_tokens_total", "total_input_tokens"},
		{"gobench_output_tokens_total", "total_output_tokens"},
		{"gobench_e2el_seconds", "completed"},
		{"gobench_ttft_seconds", "completed"},
		{"gobench_requests_sent_total", "num_prompts"},
	} {
		name := tc.metric
		if got, want := sum(fams, name), key(tc.key); got != want {
			t.Errorf("%s = %g, the saved %s = %g", name, got, tc.key, want)
		}
	}
	for _, name := range []string{"gobench_requests_in_flight", "gobench_requests_queued"} {
		for _, m := range fams[name].GetMetric() {
			if v := m.GetGauge().GetValue(); v != 0 {
				t.Errorf("%s = %g after the run, want 0", name, v)
			}
		}
	}
	for _, lp := range fams["gobench_requests_completed_total"].GetMetric()[0].GetLabel() {
		if lp.GetName() == "label" && lp.GetValue() != "live-test" {
			t.Errorf("label = %q, want the run's --label", lp.GetValue())
		}
	}
}

// toFloat reads a number of the result object.
func toFloat(v any) (float64, error) {
	switch n := v.(type) {
	case int:
		return float64(n), nil
	case int64:
		return float64(n), nil
	case float64:
		return n, nil
	}
	return 0, fmt.Errorf("not a number: %T %v", v, v)
}
