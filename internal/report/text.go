package report

import (
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/resultkey"
)

// Widths of vLLM's result lines: "{:<40} {:<10}" and the 50-character
// headers and closing rule (serve.py benchmark).
const (
	labelWidth  = 40
	valueWidth  = 10
	headerWidth = 50
)

// SpecDecode holds the speculative-decoding acceptance figures computed
// from the server's vllm:spec_decode_* counters before and after the run
// (serve.py benchmark, spec_decode_stats). The caller fetches and
// subtracts them; a nil *SpecDecode means the server exposed none, and
// then neither the printed section nor the result keys appear.
type SpecDecode struct {
	// AcceptanceRate is accepted / draft tokens × 100 (percent).
	AcceptanceRate float64
	// AcceptanceLength is 1 + accepted / drafts (0 when there were no
	// drafts).
	AcceptanceLength float64
	// NumDrafts, DraftTokens and AcceptedTokens are the counter deltas.
	NumDrafts, DraftTokens, AcceptedTokens int
	// PerPositionAcceptanceRates are per draft position fractions (0..1);
	// printed ×100.
	PerPositionAcceptanceRates []float64
}

// textWriter accumulates the lines of the result block.
type textWriter struct{ b strings.Builder }

// line writes vLLM's "{:<40} {:<10}" line with an already formatted value.
func (t *textWriter) line(label, value string) {
	t.b.WriteString(ljust(label, labelWidth))
	t.b.WriteByte(' ')
	t.b.WriteString(ljust(value, valueWidth))
	t.b.WriteByte('\n')
}

// int is "{:<40} {:<10}" of a Python int.
func (t *textWriter) int(label string, v int) { t.line(label, strconv.Itoa(v)) }

// float is "{:<40} {:<10.2f}".
func (t *textWriter) float(label string, v float64) { t.line(label, format2f(v)) }

// header is print("{s:{c}^{n}}".format(s=title, n=50, c=fill)).
func (t *textWriter) header(title, fill string) {
	t.b.WriteString(center(title, fill, headerWidth))
	t.b.WriteByte('\n')
}

// Text writes the result block exactly as vLLM's benchmark() prints it
// (serve.py@009e6d4a, generation tasks), character for character,
// including the trailing spaces of the "{:<40} {:<10}" padding:
//
//	============ Serving Benchmark Result ============
//	Successful requests / Failed requests
//	Maximum request concurrency          (only with --max-concurrency)
//	Request rate configured (RPS)        (only when the rate is finite)
//	Benchmark duration (s) / Total input tokens
//	Total generated tokens               (only with a tokenizer)
//	Request throughput (req/s)
//	Request goodput (req/s)              (only with --goodput)
//	Output token throughput, Peak output token throughput (with a tokenizer)
//	Peak concurrent requests             (.2f of an int: "3.00")
//	RTFx (Inverse Real-Time Factor)      (only when > 0)
//	Total token throughput (tok/s)       (with a tokenizer)
//	Probe Requests section               (with --probe-request-rate, when a
//	                                      probe succeeded; vLLM's later
//	                                      serve.py@009e6d4a benchmark)
//	one dashed section per r.Sections(): Mean, Median, P{p} lines
//	Speculative Decoding section         (when spec != nil)
//	==================================================
//
// For a pooling backend (r.Pooling) the block is vLLM's for
// EmbedBenchmarkMetrics (serve.py@11dfa3169 benchmark): the lines up to
// Total input tokens, then Request throughput, Total token throughput
// (with a tokenizer) and the End-to-end Latency section alone.
//
// Floats use Python's .2f (round-half-even on the exact binary value;
// inf/nan as "inf"/"nan"). Std is saved but, as in vLLM, not printed.
func Text(w io.Writer, r *metrics.Result, spec *SpecDecode) error {
	var t textWriter
	t.header(" Serving Benchmark Result ", "=")
	t.int("Successful requests:", r.Completed)
	t.int("Failed requests:", r.Failed)
	if r.MaxConcurrency > 0 {
		t.int("Maximum request concurrency:", r.MaxConcurrency)
	}
	if !math.IsInf(r.RequestRate, 1) {
		t.float("Request rate configured (RPS):", r.RequestRate)
	}
	t.float("Benchmark duration (s):", r.Duration)
	t.int("Total input tokens:", r.TotalInput)
	if r.Pooling {
		t.float("Request throughput (req/s):", r.RequestThroughput)
	} else {
		t.generation(r)
	}
	if r.HasTokenizer {
		t.float("Total token throughput (tok/s):", r.TotalTokenThroughput)
	}
	if r.Probe != nil {
		t.header("Probe Requests", "-")
		for _, l := range probeLines(r.Probe) {
			t.line(l.label+":", l.value)
		}
	}
	for _, s := range r.Sections() {
		t.header(s.Header, "-")
		t.float("Mean "+s.Name+" (ms):", s.Stats.Mean)
		t.float("Median "+s.Name+" (ms):", s.Stats.Median)
		for _, pv := range s.Stats.Percentiles {
			t.float("P"+resultkey.PercentileLabel(pv.P)+" "+s.Name+" (ms):", pv.Value)
		}
	}
	if spec != nil {
		t.specDecode(spec)
	}
	t.b.WriteString(strings.Repeat("=", headerWidth))
	t.b.WriteByte('\n')
	_, err := io.WriteString(w, t.b.String())
	return err
}

// generation writes the lines of a generation block between Total input
// tokens and Total token throughput.
func (t *textWriter) generation(r *metrics.Result) {
	if r.HasTokenizer {
		t.int("Total generated tokens:", r.TotalOutput)
	}
	t.float("Request throughput (req/s):", r.RequestThroughput)
	if r.GoodputEnabled {
		t.float("Request goodput (req/s):", r.RequestGoodput)
	}
	if r.HasTokenizer {
		t.float("Output token throughput (tok/s):", r.OutputThroughput)
		t.float("Peak output token throughput (tok/s):", r.MaxOutputTokensPerS)
	}
	t.float("Peak concurrent requests:", float64(r.MaxConcurrentRequests))
	if r.RTFx > 0 {
		t.float("RTFx (Inverse Real-Time Factor):", r.RTFx)
	}
}

// specDecode writes the Speculative Decoding section.
func (t *textWriter) specDecode(spec *SpecDecode) {
	t.header("Speculative Decoding", "-")
	t.float("Acceptance rate (%):", spec.AcceptanceRate)
	t.float("Acceptance length:", spec.AcceptanceLength)
	t.int("Drafts:", spec.NumDrafts)
	t.int("Draft tokens:", spec.DraftTokens)
	t.int("Accepted tokens:", spec.AcceptedTokens)
	if len(spec.PerPositionAcceptanceRates) > 0 {
		t.b.WriteString("Per-position acceptance (%):\n")
		for i, rate := range spec.PerPositionAcceptanceRates {
			t.float("  Position "+strconv.Itoa(i)+":", rate*100)
		}
	}
}

// Warnings writes each of r.Warnings as "WARNING: {message}". vLLM raises
// them as Python UserWarnings, which the interpreter prints to stderr with
// a source location gobench cannot reproduce; the prefix is the one
// serve.py uses for its own printed warnings ("WARNING: vllm bench serve no
// longer sets temperature==0 ..."). Callers normally pass stderr.
func Warnings(w io.Writer, r *metrics.Result) error {
	var b strings.Builder
	for _, m := range r.Warnings {
		b.WriteString("WARNING: " + m + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
