package report

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gobench/gobench/internal/golden"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/resultkey"
	"github.com/gobench/gobench/internal/texttable"
	"github.com/google/go-cmp/cmp"
)

// steadyRun is a run of three requests whose steady state is worked out in
// metrics.TestSteady (window [1, 5), one request inside), with a client
// whose last request left 40 ms late.
func steadyRun(t *testing.T) (*metrics.Result, *metrics.SteadyState, *metrics.ClientLoad) {
	t.Helper()
	outs := []metrics.Output{
		{Success: true, StartTime: 0, Latency: 4, TTFT: 1, ITL: []float64{1, 1, 1}, OutputTokens: 4, PromptLen: 10},
		{Success: true, StartTime: 1, Latency: 4, TTFT: 1, ITL: []float64{1, 1, 1}, OutputTokens: 4, PromptLen: 20},
		{Success: true, StartTime: 4, Latency: 2, TTFT: 1, ITL: []float64{1}, OutputTokens: 2, PromptLen: 30},
	}
	ps, _ := metrics.ParseMetricPercentiles("50,99")
	r := metrics.Calculate(outs, 6, metrics.Config{MaxConcurrency: 2, Percentiles: ps, CountTokens: countWords,
		PercentileMetrics: []string{"ttft", "tpot", "itl", "e2el"}, RequestRate: 1})
	c := &metrics.ClientLoad{Lags: []float64{0.001, 0.020, 0.040}, CPUSeconds: 0.3, WallSeconds: 6, CPUKnown: true,
		WarnLag: metrics.DefaultScheduleLagWarn}
	return &r, metrics.Steady(&r), c
}

// TestGobenchKeys: the result writes gobench_steady_state, gobench_client
// and (detailed) schedule_lags where resultkey's schema puts them, and
// their objects hold resultkey's keys in order.
func TestGobenchKeys(t *testing.T) {
	t.Parallel()
	r, s, c := steadyRun(t)
	for _, detailed := range []bool{false, true} {
		run := &Run{Date: "20260101-010203", Backend: "openai", ModelID: "m", SaveDetailed: detailed, ScheduledOffsets: []float64{0, 1, 4},
			Version: "v", EndReason: EndCompleted, Workload: (&Workload{DatasetName: "random"}).Object(), Steady: s, Client: c}
		sel := resultkey.Selection{PercentileMetrics: r.PercentileMetrics, Percentiles: r.Percentiles, Tokenizer: true,
			ClientQueue: true, Detailed: detailed, Workload: true, SteadyState: true, ClientLoad: true}
		var want []string
		for _, k := range sel.Keys() {
			if !k.Server {
				want = append(want, k.Name)
			}
		}
		obj := ResultObject(r, run)
		if diff := cmp.Diff(want, obj.Keys()); diff != "" {
			t.Fatalf("detailed %v: keys (-schema +writer):\n%s", detailed, diff)
		}
		if lags, ok := obj.Get(resultkey.ScheduleLags); detailed && !cmp.Equal(lags, c.Lags) {
			t.Errorf("schedule_lags %v (present %v), want %v", lags, ok, c.Lags)
		}
	}
	steadyKeys := []string{"found", "target_concurrency", "target_from", "threshold", "threshold_concurrency", "start_s", "end_s",
		"duration_s", "requests_started", "requests_completed", "requests_inside", "request_throughput", "input_throughput",
		"output_throughput", "total_token_throughput"}
	for _, m := range []string{"ttft", "tpot", "itl", "e2el"} {
		steadyKeys = append(steadyKeys, "mean_"+m+"_ms", "median_"+m+"_ms", "std_"+m+"_ms", "p50_"+m+"_ms", "p99_"+m+"_ms")
	}
	if diff := cmp.Diff(steadyKeys, SteadyObject(r, s).Keys()); diff != "" {
		t.Errorf("gobench_steady_state keys (-want +got):\n%s", diff)
	}
	none := SteadyObject(r, &metrics.SteadyState{Reason: "no request succeeded"})
	if diff := cmp.Diff([]string{"found", "reason"}, none.Keys()); diff != "" {
		t.Errorf("keys without a window (-want +got):\n%s", diff)
	}
	clientKeys := []string{"schedule_lag_p50_ms", "schedule_lag_p99_ms", "schedule_lag_max_ms", "schedule_lag_warn_ms",
		"client_may_be_bottleneck", "cpu_seconds", "wall_seconds", "cpu_share"}
	co := ClientObject(c)
	if diff := cmp.Diff(clientKeys, co.Keys()); diff != "" {
		t.Errorf("gobench_client keys (-want +got):\n%s", diff)
	}
	if v, _ := co.Get(resultkey.ClientBottleneck); v != true {
		t.Errorf("client_may_be_bottleneck = %v with a 40 ms lag, want true", v)
	}
}

// TestGobenchText pins gobench's section after vLLM's block: the default
// lines and the whole section (--details), every line within 100 columns.
func TestGobenchText(t *testing.T) {
	t.Parallel()
	small, s, c := steadyRun(t)
	var buf bytes.Buffer
	if err := Gobench(&buf, small, s, c); err != nil || buf.Len() != 0 {
		t.Fatalf("a run of %d requests drew %q (%v), want nothing", len(small.Outputs), buf.String(), err)
	}
	// The same figures, as if the run had sent enough requests.
	r := *small
	r.Outputs = make([]metrics.Output, GobenchMinRequests)
	unknown := *c
	unknown.CPUKnown = false
	none := &metrics.SteadyState{Reason: "the concurrency never held 3 requests"}
	for _, draw := range []func(io.Writer, *metrics.Result, *metrics.SteadyState, *metrics.ClientLoad) error{Gobench, GobenchDetails} {
		if err := draw(&buf, &r, s, c); err != nil {
			t.Fatal(err)
		}
		buf.WriteString("\n")
		if err := draw(&buf, &r, none, &unknown); err != nil {
			t.Fatal(err)
		}
		if err := draw(&buf, &r, nil, nil); err != nil {
			t.Fatal(err)
		}
		buf.WriteString("\n")
	}
	for _, l := range strings.Split(buf.String(), "\n") {
		if utf8.RuneCountInString(l) > texttable.Width {
			t.Errorf("line wider than %d columns: %q", texttable.Width, l)
		}
	}
	golden.Check(t, buf.Bytes())
}

// TestGobenchMarkdown: the Markdown summary carries the same section,
// its lines as list items and the table in Markdown.
func TestGobenchMarkdown(t *testing.T) {
	t.Parallel()
	small, s, c := steadyRun(t)
	r := *small
	r.Outputs = make([]metrics.Output, GobenchMinRequests)
	var buf bytes.Buffer
	if err := GobenchMarkdown(&buf, &r, s, c); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, buf.Bytes())
}
