package report

import (
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/resultkey"
)

// Markdown writes the figures of the result block (Text) as Markdown, for
// a CI job summary ($GITHUB_STEP_SUMMARY) or a pull-request comment: a
// heading (title, or "Serving Benchmark Result" when empty), a two-column
// table with the same lines as the block under the same conditions, one
// table of the latency sections (a row per section, a column per
// statistic, in ms) and the speculative-decoding figures when spec is
// non-nil. Numbers are printed as in the block (.2f, integers as such).
func Markdown(w io.Writer, r *metrics.Result, spec *SpecDecode, title string) error {
	if title == "" {
		title = "Serving Benchmark Result"
	}
	var b strings.Builder
	b.WriteString("### " + mdEscape(title) + "\n\n| | |\n|---|---:|\n")
	row := func(label, value string) { b.WriteString("| " + label + " | " + value + " |\n") }
	for _, l := range summaryLines(r) {
		row(l.label, l.value)
	}
	if sections := r.Sections(); len(sections) > 0 {
		b.WriteString("\n| Latency (ms) | Mean | Median |")
		align := "\n|---|---:|---:|"
		for _, pv := range sections[0].Stats.Percentiles {
			b.WriteString(" P" + resultkey.PercentileLabel(pv.P) + " |")
			align += "---:|"
		}
		b.WriteString(align + "\n")
		for _, s := range sections {
			b.WriteString("| " + s.Name + " | " + format2f(s.Stats.Mean) + " | " + format2f(s.Stats.Median) + " |")
			for _, pv := range s.Stats.Percentiles {
				b.WriteString(" " + format2f(pv.Value) + " |")
			}
			b.WriteString("\n")
		}
	}
	if r.Probe != nil {
		b.WriteString("\n| Probe requests | |\n|---|---:|\n")
		for _, l := range probeLines(r.Probe) {
			row(l.label, l.value)
		}
	}
	if spec != nil {
		b.WriteString("\n| Speculative decoding | |\n|---|---:|\n")
		row("Acceptance rate (%)", format2f(spec.AcceptanceRate))
		row("Acceptance length", format2f(spec.AcceptanceLength))
		row("Drafts", strconv.Itoa(spec.NumDrafts))
		row("Draft tokens", strconv.Itoa(spec.DraftTokens))
		row("Accepted tokens", strconv.Itoa(spec.AcceptedTokens))
		for i, rate := range spec.PerPositionAcceptanceRates {
			row("Acceptance at position "+strconv.Itoa(i)+" (%)", format2f(rate*100))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// summaryLine is one label and formatted value of the block's first part.
type summaryLine struct{ label, value string }

// summaryLines are the block's lines before the sections, under Text's
// conditions, without the trailing colons.
func summaryLines(r *metrics.Result) []summaryLine {
	var ls []summaryLine
	i := func(label string, v int) { ls = append(ls, summaryLine{label, strconv.Itoa(v)}) }
	f := func(label string, v float64) { ls = append(ls, summaryLine{label, format2f(v)}) }
	i("Successful requests", r.Completed)
	i("Failed requests", r.Failed)
	if r.MaxConcurrency > 0 {
		i("Maximum request concurrency", r.MaxConcurrency)
	}
	if !math.IsInf(r.RequestRate, 1) {
		f("Request rate configured (RPS)", r.RequestRate)
	}
	f("Benchmark duration (s)", r.Duration)
	i("Total input tokens", r.TotalInput)
	if r.HasTokenizer {
		i("Total generated tokens", r.TotalOutput)
	}
	f("Request throughput (req/s)", r.RequestThroughput)
	if r.GoodputEnabled {
		f("Request goodput (req/s)", r.RequestGoodput)
	}
	if r.HasTokenizer {
		f("Output token throughput (tok/s)", r.OutputThroughput)
		f("Peak output token throughput (tok/s)", r.MaxOutputTokensPerS)
	}
	f("Peak concurrent requests", float64(r.MaxConcurrentRequests))
	if r.RTFx > 0 {
		f("RTFx (Inverse Real-Time Factor)", r.RTFx)
	}
	if r.HasTokenizer {
		f("Total token throughput (tok/s)", r.TotalTokenThroughput)
	}
	return ls
}

// probeLines are the lines of the Probe Requests section, without the
// trailing colons (vllm/benchmarks/serve.py@009e6d4a benchmark).
func probeLines(pr *metrics.Probe) []summaryLine {
	return []summaryLine{
		{"Probe requests completed", strconv.Itoa(pr.Completed)},
		{"Probe requests failed", strconv.Itoa(pr.Failed)},
		{"Median probe E2EL (ms)", format2f(pr.MedianE2ELMS)},
		{"P99 probe E2EL (ms)", format2f(pr.P99E2ELMS)},
		{"Max probe E2EL (ms)", format2f(pr.MaxE2ELMS)},
	}
}

// mdEscape keeps a title from being read as Markdown markup.
func mdEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "|", `\|`, "<", "&lt;", "\n", " ")
	return r.Replace(s)
}
