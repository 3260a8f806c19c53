package analyze

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/golden"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/resultfile"
)

// open reads a fixture of package resultfile.
func open(t *testing.T, name string) *resultfile.Run {
	t.Helper()
	r, err := resultfile.Open(filepath.Join("..", "resultfile", "testdata", name), nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// sameNumbers checks that every numeric key of the saved result has the
// same value in the recomputed one (exactly, or within tolerance(key)
// relative).
func sameNumbers(t *testing.T, saved, again *resultfile.Run, tolerance func(key string) float64) {
	t.Helper()
	n := 0
	for _, k := range saved.Keys() {
		want, ok := saved.Number(k)
		if !ok || k == "burstiness" || k == "num_prompts" || k == "request_goodput" {
			continue
		}
		got, ok := again.Number(k)
		if !ok {
			t.Errorf("%s: missing from the recomputed result", k)
			continue
		}
		n++
		tol := tolerance(k)
		if tol == 0 && math.Float64bits(got) != math.Float64bits(want) || math.Abs(got-want) > tol*math.Abs(want) {
			t.Errorf("%s = %v, saved %v", k, got, want)
		}
	}
	if n < 20 {
		t.Errorf("only %d keys compared", n)
	}
}

// TestRecomputeGobench: every number of a gobench detailed file comes back
// bit for bit.
func TestRecomputeGobench(t *testing.T) {
	t.Parallel()
	run := open(t, "gobench_fast.json")
	res, err := Recompute(run, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) != 0 || res.PercentileMetrics != "ttft,tpot,itl,e2el" || res.MetricPercentiles != "50,90,99" {
		t.Errorf("notes %q selection %q %q", res.Notes, res.PercentileMetrics, res.MetricPercentiles)
	}
	again, err := resultfile.FromObject("again", res.Object(run))
	if err != nil {
		t.Fatal(err)
	}
	sameNumbers(t, run, again, func(string) float64 { return 0 })
}

// TestRecomputeVLLM: vLLM's file without latencies. TTFT and ITL
// statistics, counts, throughputs and the peaks come back exactly (they do
// not depend on latencies); E2EL and TPOT, recomputed from TTFT plus the
// ITLs, within rounding.
func TestRecomputeVLLM(t *testing.T) {
	t.Parallel()
	run := open(t, "vllm_detailed.json")
	res, err := Recompute(run, Options{Goodput: map[string]float64{"ttft": 500, "tpot": 50}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "no latencies") {
		t.Errorf("notes %q", res.Notes)
	}
	m := res.Metrics
	if m.Completed != 5 || m.Failed != 1 || m.GoodRequests != 3 || m.RequestGoodput != 0.375 {
		t.Errorf("completed %d failed %d good %d goodput %v", m.Completed, m.Failed, m.GoodRequests, m.RequestGoodput)
	}
	again, err := resultfile.FromObject("again", res.Object(run))
	if err != nil {
		t.Fatal(err)
	}
	sameNumbers(t, run, again, func(k string) float64 {
		if strings.Contains(k, "e2el") || strings.Contains(k, "tpot") {
			return 1e-12
		}
		return 0
	})
	var b bytes.Buffer
	if err := report.Failures(&b, &m); err != nil {
		t.Fatal(err)
	}
	if err := report.Text(&b, &m, res.Spec); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, b.Bytes())
}

// TestOtherSelection: other percentiles, metrics and SLOs than the run's.
func TestOtherSelection(t *testing.T) {
	t.Parallel()
	run := open(t, "gobench_fast.json")
	d, err := run.Detailed()
	if err != nil {
		t.Fatal(err)
	}
	res, err := Recompute(run, Options{PercentileMetrics: "e2el,itl", MetricPercentiles: "75,99.9",
		Goodput: map[string]float64{"e2el": 41.5}})
	if err != nil {
		t.Fatal(err)
	}
	var e2els []float64
	good := 0
	for _, o := range d.Outputs {
		e2els = append(e2els, o.Latency)
		if 41.5/1000 >= o.Latency {
			good++
		}
	}
	sections := res.Metrics.Sections()
	if len(sections) != 4 || sections[0].Key != "itl" || sections[1].Key != "e2el" {
		t.Fatalf("sections %v", sections)
	}
	if got, want := sections[1].Stats.Percentiles[1].Value, metrics.Percentile(e2els, 99.9)*1000; got != want {
		t.Errorf("p99.9 e2el %v, want %v", got, want)
	}
	if res.Metrics.GoodRequests != good || good == 0 || good == len(e2els) {
		t.Errorf("good %d, want %d of %d", res.Metrics.GoodRequests, good, len(e2els))
	}
}

func TestInferSelection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, data string
		pm, mp     string
	}{
		{"vLLM default", `{"duration": 1.0, "mean_ttft_ms": 1, "p99_ttft_ms": 1, "mean_tpot_ms": 1, "mean_itl_ms": 1}`, "ttft,tpot,itl", "99"},
		{"e2el and odd percentiles", `{"duration": 1.0, "mean_e2el_ms": 1, "p99.9_e2el_ms": 1, "p1e-05_e2el_ms": 1, "p50_e2el_ms": 1}`, "e2el", "99.9,1e-05,50"},
		{"no sections (no tokenizer)", `{"duration": 1.0}`, "ttft,tpot,itl", "99"},
		{"client queue only", `{"duration": 1.0, "mean_client_queue_time_ms": 1, "p90_client_queue_time_ms": 1}`, "ttft,tpot,itl", "90"},
	}
	for _, tt := range tests {
		runs, err := resultfile.Parse("x.json", []byte(tt.data), nil)
		if err != nil {
			t.Fatal(err)
		}
		pm, mp := InferSelection(runs[0])
		if pm != tt.pm || mp != tt.mp {
			t.Errorf("%s: %q %q, want %q %q", tt.name, pm, mp, tt.pm, tt.mp)
		}
	}
}

// TestMissingLists: start_times and queue_times missing — the peaks are the
// saved ones, the client queue sections are left out, and the notes say so.
func TestMissingLists(t *testing.T) {
	t.Parallel()
	data := `{"duration": 2.0, "max_concurrency": 2, "tokenizer_id": null, "completed": 2, "failed": 0,
		"max_output_tokens_per_s": 7.0, "max_concurrent_requests": 2, "mean_e2el_ms": 1,
		"ttfts": [0.1, 0.2], "itls": [[0.05], [0.05]], "output_lens": [2, 2], "errors": ["", ""],
		"latencies": [0.15, 0.25], "input_lens": [3, 4]}`
	runs, err := resultfile.Parse("old.json", []byte(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Recompute(runs[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Metrics
	if m.MaxOutputTokensPerS != 7 || m.MaxConcurrentRequests != 2 || m.ClientQueue != nil || m.HasTokenizer || len(res.Notes) != 2 {
		t.Errorf("peaks %v %d, queue %v, tokenizer %v, notes %q", m.MaxOutputTokensPerS, m.MaxConcurrentRequests, m.ClientQueue, m.HasTokenizer, res.Notes)
	}
	if _, err := Recompute(open(t, "vllm_runs.jsonl#0"), Options{}); err == nil || !strings.Contains(err.Error(), "--save-detailed") {
		t.Errorf("non-detailed file: %v", err)
	}
}
