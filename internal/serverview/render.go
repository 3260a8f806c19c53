package serverview

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gobench/gobench/internal/diagnose"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/texttable"
)

// view is the part of a server_view object the section draws. It is read
// back from the object, so that a run and `gobench analyze` of its file
// draw the same thing.
type view struct {
	WindowS *float64 `json:"window_s"`
	Server  *struct {
		Engine  string  `json:"engine"`
		Name    string  `json:"name"`
		Metrics *string `json:"metrics"`
	} `json:"server"`
	Ratios struct {
		Preemptions     *float64 `json:"preemptions"`
		FinishedRequest *float64 `json:"finished_requests"`
		PrefixHitRate   *float64 `json:"prefix_cache_hit_rate"`
	} `json:"ratios"`
	Gauges struct {
		Peak struct {
			Samples int      `json:"samples"`
			Running *float64 `json:"num_requests_running"`
			Waiting *float64 `json:"num_requests_waiting"`
			KV      *float64 `json:"kv_cache_usage_perc_max_engine"`
		} `json:"peak"`
	} `json:"gauges"`
	Findings []struct {
		Step     int    `json:"step"`
		Question string `json:"question"`
		Status   string `json:"status"`
		Evidence []struct {
			Text string `json:"text"`
		} `json:"evidence"`
		Conclusion string  `json:"conclusion"`
		Advice     *string `json:"advice"`
		Verdict    *string `json:"verdict"`
	} `json:"findings"`
	Verdict            string   `json:"verdict"`
	VerdictReason      *string  `json:"verdict_reason"`
	VerdictUnconfirmed *string  `json:"verdict_unconfirmed"`
	Notes              []string `json:"notes"`
	Rows               []Row    `json:"client_vs_server"`
}

// Render draws the server_view object o as the section that follows the
// result block: for a terminal ("text") the lines that fit one screen
// (the engine and its state, the client-vs-server table, the questions
// that located something, the verdict), or the whole section in
// "markdown". RenderDetails draws the whole section in either.
func Render(w io.Writer, o *pyjson.Object, format string) error {
	return render(w, o, format, format == "markdown")
}

// RenderDetails draws the whole section (--details): every question
// answered with its evidence, and what explains each client/server gap.
func RenderDetails(w io.Writer, o *pyjson.Object, format string) error {
	return render(w, o, format, true)
}

// render reads o back as a view and draws it.
func render(w io.Writer, o *pyjson.Object, format string, details bool) error {
	b, err := pyjson.AppendCompact(nil, o)
	if err != nil {
		return fmt.Errorf("server view: %w", err)
	}
	var v view
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("server view: %w", err)
	}
	var sb strings.Builder
	p := printer{b: &sb, md: format == "markdown", details: details}
	p.draw(&v)
	_, err = io.WriteString(w, sb.String())
	return err
}

// printer writes the section in text or markdown, whole (details) or in
// the lines of the default screen.
type printer struct {
	b       *strings.Builder
	md      bool
	details bool
}

// line writes one line; a text line wider than texttable.Width is
// wrapped, its continuation indented past the line's own indent.
func (p printer) line(format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	if p.md || utf8.RuneCountInString(text) <= texttable.Width {
		p.b.WriteString(text + "\n")
		return
	}
	indent := text[:len(text)-len(strings.TrimLeft(text, " "))]
	for _, l := range texttable.Wrap(text, texttable.Width, indent, indent+"  ") {
		p.b.WriteString(l + "\n")
	}
}

// draw writes the whole section.
func (p printer) draw(v *view) {
	if p.md {
		p.line("\n### Server view\n")
	} else {
		p.line("%s", centred(" Server view ", '='))
	}
	if line := serverLine(v); line != "" {
		p.line("%s", line)
		if p.md {
			p.line("")
		}
	}
	p.comparison(v.Rows)
	p.gauges(v)
	p.diagnosis(v)
	if !p.md {
		p.line("%s", strings.Repeat("=", 50))
	}
}

// serverLine names the engine the figures were read from ("" for an
// object saved before the view named it).
func serverLine(v *view) string {
	switch {
	case v.Server == nil:
		return ""
	case v.Server.Metrics == nil:
		return "Server: unknown (no metrics of a known engine)"
	}
	return "Server: " + v.Server.Name + " (" + *v.Server.Metrics + " metrics)"
}

// centred is title in a 50-column rule, like vLLM's block headings.
func centred(title string, fill byte) string {
	left := (50 - len(title)) / 2
	return strings.Repeat(string(fill), left) + title + strings.Repeat(string(fill), 50-left-len(title))
}

// comparison writes the client-vs-server table and what explains each gap.
func (p printer) comparison(rows []Row) {
	header := []string{"(ms)", "client mean", "server mean", "gap", "client p99", "server p99"}
	table := [][]string{header}
	for _, r := range rows {
		table = append(table, []string{strings.ToUpper(r.Metric), side(r.Client, "mean"), side(r.Server, "mean"),
			ms(r.Gap), side(r.Client, "p99"), side(r.Server, "p99")})
	}
	p.table(table)
	if p.md {
		p.line("")
	}
	if !p.details {
		return
	}
	for _, w := range whyLines(rows) {
		p.bullet("%s", w)
	}
	if !p.md && hasSource(rows, SourceHistogram) {
		p.line("(server p99s are histogram estimates: within their bucket)")
	}
}

// whyLines are the rows' explanations, rows with the same one (an engine
// that publishes none of several histograms) on one line.
func whyLines(rows []Row) []string {
	var order []string
	names := map[string][]string{}
	for _, r := range rows {
		if _, ok := names[r.Why]; !ok {
			order = append(order, r.Why)
		}
		names[r.Why] = append(names[r.Why], rowName(r))
	}
	out := make([]string, 0, len(order))
	for _, w := range order {
		out = append(out, strings.Join(names[w], ", ")+": "+w)
	}
	return out
}

// hasSource reports whether a row's server side comes from source.
func hasSource(rows []Row, source string) bool {
	for _, r := range rows {
		if r.Server != nil && r.ServerSource == source {
			return true
		}
	}
	return false
}

// rowName is the row's metric and where the server side came from:
// "TTFT (vllm:time_to_first_token_seconds)".
func rowName(r Row) string {
	name := strings.ToUpper(r.Metric)
	switch {
	case r.ServerMetric == "" || r.Server == nil:
		return name
	case r.ServerSource == SourceTimings:
		return name + " (" + r.ServerSource + ": " + r.ServerMetric + ")"
	}
	return name + " (" + r.ServerMetric + ")"
}

// side is one figure of f in milliseconds, or "-" when unknown.
func side(f *Figures, which string) string {
	if f == nil {
		return "-"
	}
	v := f.Mean
	if which == "p99" {
		v = f.P99
	}
	return ms(&v)
}

// ms writes seconds as milliseconds with two decimals.
func ms(v *float64) string {
	if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
		return "-"
	}
	return strconv.FormatFloat(*v*1000, 'f', 2, 64)
}

// table writes rows (the first is the header) laid out by texttable.
func (p printer) table(rows [][]string) {
	for _, l := range texttable.Lines(rows[0], rows[1:], p.md, "") {
		p.line("%s", l)
	}
}

// bullet writes one explanatory line.
func (p printer) bullet(format string, args ...any) {
	prefix := "  "
	if p.md {
		prefix = "- "
	}
	p.line(prefix+format, args...)
}

// gauges writes the state over the run: peaks and preemptions.
func (p printer) gauges(v *view) {
	g := v.Gauges.Peak
	parts := []string{"running peak " + count(g.Running), "waiting peak " + count(g.Waiting)}
	if g.KV != nil && !math.IsNaN(*g.KV) {
		parts = append(parts, fmt.Sprintf("KV-cache peak %.1f %%", *g.KV*100))
	}
	if v.Ratios.Preemptions != nil {
		parts = append(parts, "preemptions "+count(v.Ratios.Preemptions))
	}
	if v.Ratios.PrefixHitRate != nil && !math.IsNaN(*v.Ratios.PrefixHitRate) {
		parts = append(parts, fmt.Sprintf("prefix-cache hit rate %.1f %%", *v.Ratios.PrefixHitRate*100))
	}
	window := ""
	if v.WindowS != nil && !math.IsNaN(*v.WindowS) {
		window = fmt.Sprintf(" over %.1f s", *v.WindowS)
	}
	if p.details {
		p.line("")
	}
	p.line("Server state%s (%d samples): %s.", window, g.Samples, strings.Join(parts, ", "))
}

// count writes a gauge or counter value, "-" when unknown.
func count(v *float64) string {
	if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
		return "-"
	}
	return strconv.FormatFloat(*v, 'f', -1, 64)
}

// diagnosis writes the questions that located or ruled out something
// (only those that located something on the default screen), then the
// verdict: hedged in its headline when its cause is not confirmed, its
// advice on a line of its own.
func (p printer) diagnosis(v *view) {
	if p.details {
		p.line("")
	}
	for _, f := range v.Findings {
		if f.Status == "not asked" || !p.details && f.Status != "located" {
			continue
		}
		p.line("%d. %s [%s] %s", f.Step, f.Question, f.Status, f.Conclusion)
		if f.Status == "located" && p.details {
			for _, e := range f.Evidence {
				p.bullet("   %s", e.Text)
			}
		}
	}
	advice := ""
	for _, f := range v.Findings {
		if f.Verdict != nil && *f.Verdict == v.Verdict && f.Advice != nil {
			advice = *f.Advice
		}
	}
	if p.details {
		p.line("")
	}
	unconfirmed := ""
	if v.VerdictUnconfirmed != nil {
		unconfirmed = *v.VerdictUnconfirmed
	}
	p.line("Verdict: %s%s", v.Verdict, diagnose.Hedge(unconfirmed))
	if advice != "" {
		p.bullet("Advice: %s", advice)
	}
	if v.VerdictReason != nil {
		p.bullet("%s", *v.VerdictReason)
		if !p.details {
			p.bullet("(--details shows every question and why)")
		}
	}
	for _, n := range v.Notes {
		p.bullet("note: %s", n)
	}
}
