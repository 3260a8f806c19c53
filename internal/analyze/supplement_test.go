package analyze

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/resultfile"
)

// TestSupplement: statistics the file lacks come from its per-request
// data with NumPy's percentile, those it has are read, and what cannot be
// computed stays missing.
func TestSupplement(t *testing.T) {
	t.Parallel()
	run := open(t, "gobench_fast.json")
	d, err := run.Detailed()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Supplement(run, run, []string{"p95_ttft_ms", "p99_ttft_ms", "p95.0_e2el_ms", "std_e2el_ms", "request_throughput", "p95_foo_ms"})
	if err != nil {
		t.Fatal(err)
	}
	var ttfts, e2els []float64
	for _, o := range d.Outputs {
		if o.Success {
			ttfts, e2els = append(ttfts, o.TTFT), append(e2els, o.Latency)
		}
	}
	for key, want := range map[string]float64{
		"p95_ttft_ms":   metrics.Percentile(ttfts, 95) * 1000,
		"p95.0_e2el_ms": metrics.Percentile(e2els, 95) * 1000,
		"std_e2el_ms":   mustNumber(t, run, "std_e2el_ms"), // saved: read
	} {
		got, ok := s.Number(key)
		if !ok || math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("%s = %v (%v), want %v", key, got, ok, want)
		}
	}
	if n := s.Note("p95_ttft_ms"); n != "computed from 24 per-request records, not in the result" {
		t.Errorf("note %q", n)
	}
	if n := s.Note("p99_ttft_ms"); n != "" {
		t.Errorf("a saved key has the note %q", n)
	}
	if _, ok := s.Number("p95_foo_ms"); ok {
		t.Error("an unknown metric was computed")
	}

	// Without per-request data nothing is computed, and it is no error.
	plain := open(t, "vllm_runs.jsonl#0")
	s, err = Supplement(plain, plain, []string{"p95_ttft_ms"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Number("p95_ttft_ms"); ok {
		t.Error("computed without per-request data")
	}
	// Corrupt per-request lists are an error naming the file.
	runs, err := resultfile.Parse("bad.json", []byte(`{"duration": 1.0, "ttfts": [0.1], "itls": [[]], "output_lens": [1], "errors": []}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Supplement(runs[0], runs[0], []string{"p95_ttft_ms"}); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("corrupt lists: %v", err)
	}
}

func mustNumber(t *testing.T, r *resultfile.Run, key string) float64 {
	t.Helper()
	v, ok := r.Number(key)
	if !ok {
		t.Fatalf("no %s", key)
	}
	return v
}

// TestRecordedWorkload: a file whose gobench_workload records the SLOs and
// the selection is recomputed with them when no flag says otherwise; flags
// still win.
func TestRecordedWorkload(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "resultfile", "testdata", "gobench_fast.json"))
	if err != nil {
		t.Fatal(err)
	}
	workload := `"gobench_workload": {"goodput": {"ttft": 21.3}, "percentile_metrics": "ttft,e2el", "metric_percentiles": "95"}, `
	data = []byte(strings.Replace(string(data), `"num_warmups"`, workload+`"num_warmups"`, 1))
	runs, err := resultfile.Parse("recorded.json", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Recompute(runs[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Metrics
	if res.PercentileMetrics != "ttft,e2el" || res.MetricPercentiles != "95" || !m.GoodputEnabled ||
		m.GoodRequests == 0 || m.GoodRequests == m.Completed || len(res.Notes) != 0 {
		t.Errorf("selection %q %q, goodput %v (%d of %d good), notes %q", res.PercentileMetrics, res.MetricPercentiles,
			m.GoodputEnabled, m.GoodRequests, m.Completed, res.Notes)
	}
	res, err = Recompute(runs[0], Options{MetricPercentiles: "50", Goodput: map[string]float64{"e2el": 1000}})
	if err != nil {
		t.Fatal(err)
	}
	if res.MetricPercentiles != "50" || res.Metrics.GoodRequests != res.Metrics.Completed {
		t.Errorf("flags did not win: %q, %d good", res.MetricPercentiles, res.Metrics.GoodRequests)
	}
	if raw, ok := mustObject(t, res, runs[0]); !ok || !strings.Contains(raw, `"metric_percentiles": "95"`) {
		t.Errorf("the recomputed object does not keep the workload: %s", raw)
	}
}

func mustObject(t *testing.T, res *Result, run *resultfile.Run) (string, bool) {
	t.Helper()
	again, err := resultfile.FromObject("again", res.Object(run))
	if err != nil {
		t.Fatal(err)
	}
	raw, ok := again.Raw("gobench_workload")
	return string(raw), ok
}
