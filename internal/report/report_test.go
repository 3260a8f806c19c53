package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/golden"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyjson"
)

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// seedOutputs are the five requests of the seed's worked example (see
// metrics.TestCalculateSeedExample): TTFT p99 636 ms, TPOT p99
// 54.099999999999994 ms, goodput 3 of 5 over 8 s.
func seedOutputs() []metrics.Output {
	mk := func(ttft, tpot float64, n int, latency, start float64, prompt int, queue float64) metrics.Output {
		o := metrics.Output{Success: true, TTFT: ttft, OutputTokens: n, Latency: latency,
			StartTime: start, PromptLen: prompt, ClientQueueTime: queue, GeneratedText: "héllo \"wörld\" 🙂\n"}
		if n > 1 {
			o.ITL = repeat(tpot, n-1)
		}
		return o
	}
	return []metrics.Output{
		mk(0.2, 0.020, 101, 2.2, 0.0, 1000, 0.001),
		mk(0.12, 0.022, 201, 4.52, 0.5, 1000, 0.25),
		mk(0.15, 0.025, 51, 1.4, 1.0, 1000, 0.5),
		mk(0.3, 0.055, 101, 5.8, 1.5, 1000, 0.75),
		mk(0.65, 0, 1, 0.65, 2.0, 600, 1.0),
	}
}

func countWords(s string) int { return len(strings.Fields(s)) }

// scenario is one printed/saved configuration shared by the golden tests.
type scenario struct {
	name    string
	outputs []metrics.Output
	dur     float64
	cfg     metrics.Config
	spec    *SpecDecode
}

func scenarios(t *testing.T) []scenario {
	t.Helper()
	pct := func(s string) []float64 {
		ps, err := metrics.ParseMetricPercentiles(s)
		if err != nil {
			t.Fatal(err)
		}
		return ps
	}
	failed := append(seedOutputs(),
		metrics.Output{Error: "Bad Request", PromptLen: 7},
		metrics.Output{Error: "Traceback (most recent call last):\n  ServerTimeoutError: Timeout on reading data from socket", PromptLen: 9})
	return []scenario{
		// seed example + goodput + --max-concurrency 4 + rate 4, tokenizer, spec decode
		{name: "full", outputs: seedOutputs(), dur: 8, cfg: metrics.Config{
			CountTokens:       countWords,
			Goodput:           map[string]float64{"ttft": 500, "tpot": 50},
			PercentileMetrics: metrics.ParsePercentileMetrics("ttft,tpot,itl,e2el"),
			Percentiles:       pct("99"),
			MaxConcurrency:    4,
			RequestRate:       4,
		}, spec: &SpecDecode{AcceptanceRate: 62.5, AcceptanceLength: 2.875, NumDrafts: 40,
			DraftTokens: 120, AcceptedTokens: 75, PerPositionAcceptanceRates: []float64{0.9, 0.625, 0.35}}},
		// rate inf, no tokenizer (skip-tokenizer-init), default metrics: only e2el would show, and it is not selected
		{name: "minimal", outputs: seedOutputs(), dur: 8, cfg: metrics.Config{
			PercentileMetrics: metrics.ParsePercentileMetrics(""),
			Percentiles:       pct("99"),
			RequestRate:       math.Inf(1),
		}},
		// percentiles 50,90,99.9 over every token metric; two failures
		{name: "percentiles", outputs: failed, dur: 8, cfg: metrics.Config{
			CountTokens:       countWords,
			PercentileMetrics: metrics.ParsePercentileMetrics("ttft,tpot,itl,e2el"),
			Percentiles:       pct("50,90,99.9"),
			RequestRate:       math.Inf(1),
		}},
		// --max-concurrency 2 at 10 req/s with both client-queue sections
		{name: "client_queue", outputs: seedOutputs(), dur: 8, cfg: metrics.Config{
			CountTokens:       countWords,
			PercentileMetrics: metrics.ParsePercentileMetrics("ttft,e2el,client_queue_time,e2el_including_client_queue"),
			Percentiles:       pct("50,99"),
			MaxConcurrency:    2,
			RequestRate:       10,
		}},
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	for _, sc := range scenarios(t) {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			r := metrics.Calculate(sc.outputs, sc.dur, sc.cfg)
			var buf bytes.Buffer
			if err := Failures(&buf, &r); err != nil {
				t.Fatal(err)
			}
			if err := Warnings(&buf, &r); err != nil {
				t.Fatal(err)
			}
			if err := Text(&buf, &r, sc.spec); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, buf.Bytes())
		})
	}
}

func TestPythonFormatting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   float64
		want string // Python 3.11 format(in, ".2f")
	}{
		{0.125, "0.12"}, // exact tie: half-to-even
		{0.375, "0.38"}, // exact tie: half-to-even
		{2.675, "2.67"}, // binary value is below the tie
		{1.005, "1.00"}, // binary value is below the tie
		{0.005, "0.01"}, // binary value is above the tie
		{0.015, "0.01"}, // below
		{0.025, "0.03"}, // above
		{999.995, "1000.00"},
		{0.625, "0.62"},     // the seed's request throughput
		{56.875, "56.88"},   // the seed's output throughput
		{631.875, "631.88"}, // the seed's total token throughput
		{1234567.125, "1234567.12"},
		{-0.001, "-0.00"}, // Python keeps the sign
		{math.Copysign(0, -1), "-0.00"},
		{1e20, "100000000000000000000.00"},
		{5e-324, "0.00"},
		{math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"},
		{math.NaN(), "nan"},
	}
	for _, tt := range tests {
		if got := format2f(tt.in); got != tt.want {
			t.Errorf("format2f(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := ljust("x", 10); got != "x         " {
		t.Errorf("ljust = %q", got)
	}
	if got := ljust(strings.Repeat("é", 12), 10); got != strings.Repeat("é", 12) {
		t.Errorf("ljust truncated or padded a long value: %q", got)
	}
	centred := []struct{ s, want string }{
		{" Serving Benchmark Result ", "============ Serving Benchmark Result ============"},
		{"Time to First Token", "---------------Time to First Token----------------"},
		{"Time per Output Token (excl. 1st token)", "-----Time per Output Token (excl. 1st token)------"},
	}
	for _, c := range centred {
		fill := "-"
		if strings.HasPrefix(c.want, "=") {
			fill = "="
		}
		if got := center(c.s, fill, 50); got != c.want {
			t.Errorf("center(%q) = %q, want %q", c.s, got, c.want)
		}
	}
}

// TestPyTorchRecords follows test_serve_result_serialization.py@59faf2a5:
// the e2el statistics become metrics in median/mean/std/p99 order, and
// extra_info keeps the other keys but not the per-request lists.
func TestPyTorchRecords(t *testing.T) {
	t.Parallel()
	res := pyjson.NewObject()
	res.Set("mean_e2el_ms", 12.0)
	res.Set("median_e2el_ms", 11.0)
	res.Set("std_e2el_ms", 2.0)
	res.Set("p99_e2el_ms", 16.0)
	res.Set("failed", 2)
	res.Set("latencies", []float64{0.01, 0.02})
	res.Set("queue_times", []float64{0.001, 0.002})
	args := pyjson.NewObject()
	args.Set("model", "test-model")
	recs := PyTorchRecords(res, args, "test-model")
	var names []string
	for _, r := range recs {
		metric, _ := r.Get("metric")
		n, _ := metric.(*pyjson.Object).Get("name")
		names = append(names, n.(string))
		extra, _ := metric.(*pyjson.Object).Get("extra_info")
		if got := strings.Join(extra.(*pyjson.Object).Keys(), ","); got != "failed" {
			t.Errorf("extra_info keys %s, want failed", got)
		}
	}
	if got := strings.Join(names, ","); got != "median_e2el_ms,mean_e2el_ms,std_e2el_ms,p99_e2el_ms" {
		t.Errorf("metrics %s", got)
	}
	b, err := pyjson.AppendPython(nil, []any{recs[0]})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"benchmark": {"name": "vLLM benchmark", "extra_info": {"args": {"model": "test-model"}, "compilation_config.mode": "", "optimization_level": "", "use_compile": true}}, "model": {"name": "test-model"}, "metric": {"name": "median_e2el_ms", "benchmark_values": [11.0], "extra_info": {"failed": 2}}}]`
	if string(b) != want {
		t.Errorf("record\n got %s\nwant %s", b, want)
	}
	if PyTorchPath("d/r.json") != "d/r.pytorch.json" {
		t.Error(PyTorchPath("d/r.json"))
	}
}
