package diagnose

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	sm "github.com/gobench/gobench/internal/servermetrics"
	"github.com/gobench/gobench/internal/texttable"
)

// Render writes the report as text (a terminal's aligned tables), markdown
// or json (Object in Python's json.dump layout).
func (r *Report) Render(w io.Writer, format string) error {
	switch format {
	case "json":
		b, err := r.JSON()
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	case "markdown":
		return r.render(w, true)
	case "text", "":
		return r.render(w, false)
	}
	return fmt.Errorf("unknown format %q (text, markdown or json)", format)
}

// render writes the text or Markdown form: title, quantiles, ratios,
// state, findings, verdict, notes.
func (r *Report) render(out io.Writer, md bool) error {
	w := bufio.NewWriter(out)
	p := printer{w: w, md: md}
	p.title(r)
	if md {
		p.line("")
	}
	p.line("Server: " + r.Engine.Describe())
	p.quantiles("Latency (seconds)", r.Rows, true)
	p.quantiles("Request shape", r.Rows, false)
	p.section("Ratios")
	p.table(nil, r.ratioLines())
	p.section(r.stateTitle())
	p.table(nil, r.stateLines())
	if len(r.Figures) > 0 {
		p.section(r.Engine.Name + "'s own figures")
		p.table(nil, r.figureLines())
	}
	p.section("Diagnosis")
	for _, f := range r.Findings {
		p.finding(f)
	}
	p.verdict(r)
	if len(r.Notes) > 0 {
		p.section("Notes")
		for _, n := range r.Notes {
			p.line("- " + n)
		}
	}
	return w.Flush()
}

// printer writes the two forms: Markdown headings and pipe tables, or
// underlined titles and space-aligned columns.
type printer struct {
	w  *bufio.Writer
	md bool
}

func (p printer) line(s string) { p.w.WriteString(strings.TrimRight(s, " ") + "\n") }

func (p printer) section(title string) {
	p.line("")
	if p.md {
		p.line("### " + title)
		p.line("")
		return
	}
	p.line(title)
}

func (p printer) title(r *Report) {
	what := "window " + secs(r.Seconds)
	switch {
	case r.SinceStart:
		what = "totals since the server started (one scrape)"
	case r.Seconds <= 0:
		what = "window of unknown length"
	}
	parts := []string{"Server view", strings.Join(r.Sources, ", "), what}
	if r.Model != "" {
		parts = append(parts, "model "+r.Model)
	}
	if p.md {
		p.line("## " + strings.Join(parts, " · "))
		return
	}
	p.line(strings.Join(parts, " · "))
}

// quantiles writes the latency or request-shape rows: p50 to p99, the
// bucket the p99 lies in (an estimate inside it), the count and the mean.
// A request shape's quantiles are the buckets they lie in: a count of
// tokens interpolated inside a bucket reads as exact ("150" when every
// request generated 128) where the bucket is all the page knows; its
// mean is exact (sum / count).
func (p printer) quantiles(title string, rows []*Row, latency bool) {
	var cells [][]string
	for _, r := range rows {
		if r.Latency != latency {
			continue
		}
		c := []string{r.Label}
		for _, e := range r.P {
			if latency {
				c = append(c, value(e.Value, r.Unit))
			} else {
				c = append(c, shapeBucket(e))
			}
		}
		if latency {
			c = append(c, bucketText(r.P[p99], r.Unit))
		}
		c = append(c, count(r.Count), value(r.Mean, r.Unit))
		cells = append(cells, c)
	}
	p.section(title)
	if len(cells) == 0 {
		p.line("  (none)")
		return
	}
	header := []string{"", "p50", "p90", "p95", "p99", "p99 bucket", "count", "mean"}
	if !latency {
		header = slices.Delete(header, 5, 6) // each quantile is its bucket
	}
	p.table(header, cells)
}

// table writes rows of cells under header (nil: a list of names and
// values), laid out by texttable.
func (p printer) table(header []string, rows [][]string) {
	for _, l := range texttable.Lines(header, rows, p.md, "  ") {
		p.line(l)
	}
}

func (p printer) finding(f Finding) {
	head := fmt.Sprintf("%d. %s  [%s]", f.Step, f.Question, f.Status)
	if p.md {
		head = fmt.Sprintf("%d. **%s** — *%s*", f.Step, f.Question, f.Status)
	}
	p.line(head)
	for _, e := range f.Evidence {
		p.line("   - " + e.Text)
	}
	p.line("   " + f.Conclusion)
	if f.Advice != "" {
		p.line("   Advice: " + f.Advice)
	}
}

func (p printer) verdict(r *Report) {
	p.line("")
	if p.md {
		p.line("**Verdict: `" + string(r.Verdict) + "`**" + Hedge(r.VerdictUnconfirmed))
	} else {
		p.line("Verdict: " + string(r.Verdict) + Hedge(r.VerdictUnconfirmed))
	}
	if r.VerdictReason != "" {
		p.line("(" + r.VerdictReason + ")")
	}
	for _, f := range r.Findings {
		if f.Verdict == r.Verdict && f.Advice != "" {
			p.line(fmt.Sprintf("  Advice: %s (question %d)", f.Advice, f.Step)) // as serve's server view puts it
		}
	}
}

// ratioLines are the Ratios section's rows.
func (r *Report) ratioLines() [][]string {
	rt := r.Ratios
	hit := pct(rt.PrefixCacheHitRate) + " of prompt tokens"
	switch {
	case rt.HitRateFromGauge && rt.HitRateFrom == sm.PrefixHitRateV0:
		hit = pct(rt.PrefixCacheHitRate) + " (V0 gauge: since start, in blocks)"
	case rt.HitRateFromGauge:
		hit = pct(rt.PrefixCacheHitRate) + " (" + rt.HitRateFrom + ": the engine's last report)"
	case rt.HitRateFrom != "" && r.Engine.ID != vllmID && !math.IsNaN(rt.PrefixCacheHitRate):
		hit += " (" + rt.HitRateFrom + ")"
	}
	lines := [][]string{
		{"prefix-cache hit rate", hit},
		{"prompt : generation", num1(rt.PromptToGeneration) + " : 1"},
		{"finished requests", r.finishedText()},
		{"preemptions", fmt.Sprintf("%s (%s per finished request%s)", count(rt.Preemptions), ratio(rt.PreemptionsPerFinished), perS(rt.PreemptionsPerS))},
		{"prompt tokens", count(rt.PromptTokens) + perS(rt.PromptTokensPerS)},
		{"generation tokens", count(rt.GenerationTokens) + perS(rt.GenerationTokensPerS)},
	}
	if !math.IsNaN(rt.PromptProcessingPerS) {
		lines = append(lines, []string{"prompt processing", fmt.Sprintf("%s tokens/s of prompt processing (%s / %s)",
			rate(rt.PromptProcessingPerS), r.Engine.PromptTokens, r.Engine.PromptSeconds)})
	}
	if !math.IsNaN(rt.DecodeSPerToken) {
		lines = append(lines, []string{"decode time per token", fmt.Sprintf("%s (%s / %s, per request)",
			secs(rt.DecodeSPerToken), r.Engine.DecodeSeconds, r.Engine.GenerationTokens)})
	}
	if !math.IsNaN(rt.ComputedPrefillShare) {
		lines = append(lines, []string{"computed prefill share", pct(rt.ComputedPrefillShare) + " of prompt tokens computed"})
	}
	if !math.IsNaN(rt.SpecAcceptance) {
		lines = append(lines, []string{"spec-decode acceptance", fmt.Sprintf("%s of draft tokens, mean acceptance length %s",
			pct(rt.SpecAcceptance), num3(rt.SpecAcceptanceLength))})
	}
	return lines
}

// figureLines are the engine's own figures: label, value and unit, the
// metric and what it covers.
func (r *Report) figureLines() [][]string {
	var lines [][]string
	for _, f := range r.Figures {
		v := num3(f.Value)
		if f.Unit != "" {
			v += " " + f.Unit
		}
		v += " (" + f.Metric
		if f.Note != "" {
			v += ", " + f.Note
		}
		lines = append(lines, []string{f.Label, v + ")"})
	}
	return lines
}

// finishedText is the finished requests and their shares by reason,
// largest first.
func (r *Report) finishedText() string {
	rt := r.Ratios
	if math.IsNaN(rt.Finished) {
		return unknown
	}
	keys := sortedKeys(rt.FinishedShare)
	sort.SliceStable(keys, func(i, j int) bool { return rt.FinishedShare[keys[i]] > rt.FinishedShare[keys[j]] })
	var parts []string
	for _, k := range keys {
		if s := rt.FinishedShare[k]; s > 0 {
			parts = append(parts, k+" "+pct(s))
		}
	}
	text := count(rt.Finished)
	if len(parts) > 0 {
		text += ": " + strings.Join(parts, ", ")
	}
	return text + perS(rt.RequestsPerS)
}

func (r *Report) stateTitle() string {
	if r.SinceStart {
		return "State (at the scrape)"
	}
	return "State (at the end of the window)"
}

// stateLines are the State section's rows; for an engine other than
// vLLM each names the metric it was read from.
func (r *Report) stateLines() [][]string {
	g, e := r.Gauges, r.Engine
	waiting := count(g.End.Waiting)
	if len(g.WaitingByReason) > 0 {
		var parts []string
		for _, k := range sortedKeys(g.WaitingByReason) {
			parts = append(parts, k+" "+count(g.WaitingByReason[k]))
		}
		waiting += " (" + strings.Join(parts, ", ") + ")"
	}
	kv := fmt.Sprintf("%s (highest engine %s, %s)", pct(g.End.KVMean), pct(g.End.KVMax), plural(g.Engines, "engine"))
	running, waitingName, kvName := "running", "waiting", "KV-cache usage"
	if e.ID != vllmID && e.Known() {
		running += " (" + orNone(e.Running) + ")"
		waitingName += " (" + orNone(e.Waiting) + ")"
		switch {
		case e.KVUsage != "":
			kvName += " (" + e.KVUsage + ")"
		case e.KVUsed != "":
			kvName, kv = "token budget in use ("+e.KVUsed+" / "+e.KVCapacity+")", pct(g.End.KVMax)
		default:
			kv = "not published"
		}
	}
	lines := [][]string{{running, count(g.End.Running)}, {waitingName, waiting}, {kvName, kv}}
	if !math.IsNaN(g.Swapped) {
		lines = append(lines, []string{"swapped", count(g.Swapped)})
	}
	if g.Samples > 1 {
		lines = append(lines, []string{"peak", fmt.Sprintf("running %s, waiting %s, KV cache %s (highest engine, %s)",
			count(g.Peak.Running), count(g.Peak.Waiting), pct(g.Peak.KVMax), plural(g.Samples, "sample"))})
	}
	if len(g.CacheConfig) > 0 {
		var parts []string
		for _, k := range []string{"block_size", "num_gpu_blocks", "enable_prefix_caching", "cache_dtype", "gpu_memory_utilization"} {
			if v, ok := g.CacheConfig[k]; ok {
				parts = append(parts, k+"="+v)
			}
		}
		lines = append(lines, []string{"cache config", strings.Join(parts, " ")})
	}
	return lines
}

// orNone is name, or "not published".
func orNone(name string) string {
	if name == "" {
		return "not published"
	}
	return name
}

// perS is ", N/s" for a known rate, "" for an unknown one.
func perS(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return ", " + rate(v) + "/s"
}

// plural is "1 engine", "2 engines".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// num1 is a number with one decimal.
func num1(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return unknown
	}
	return fmt.Sprintf("%.1f", v)
}

// Hedge is what follows a verdict in its headline: " (unconfirmed: what
// is missing)" for a verdict whose cause the evidence does not show, ""
// for one it does.
func Hedge(unconfirmed string) string {
	if unconfirmed == "" {
		return ""
	}
	return " (unconfirmed: " + unconfirmed + ")"
}
