package compare

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
)

// Method describes the significance test in words, for the output.
func (c *Comparison) Method() string {
	o := c.Options
	return fmt.Sprintf("two-sample percentile bootstrap of the difference (run − %s), resampling successful requests "+
		"(a request's ITLs stay together), %d resamples, %s confidence interval, seed %d; real = the interval excludes 0, "+
		"noise = it includes 0", c.Names[0], o.Resamples, percent(o.Confidence), o.Seed)
}

func percent(f float64) string { return strconv.FormatFloat(100*f, 'f', -1, 64) + "%" }

// signed prints a change with its sign.
func signed(v float64) string {
	s := resultfile.FormatValue(v)
	if v > 0 || v == 0 && !math.Signbit(v) {
		return "+" + s
	}
	return s
}

// relative prints a relative change as a percentage.
func relative(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return "n/a"
	}
	s := strconv.FormatFloat(100*v, 'f', 2, 64) + "%"
	if v >= 0 {
		return "+" + s
	}
	return s
}

// direction says whether a real change is an improvement.
func direction(b Better, iv Interval) string {
	up := iv.Low > 0
	switch {
	case b == Lower && up, b == Higher && !up:
		return "worse"
	case b == Neither:
		return ""
	}
	return "better"
}

// sigText is the significance cell: "real, worse [+3.1, +7.02]",
// "noise [-0.8, +1.1]" or "n/a: <why>"; mark adds a colour for Markdown.
func sigText(s *Significance, b Better, mark bool) string {
	if s == nil {
		return ""
	}
	if s.Verdict == "" {
		return "n/a: " + s.Note
	}
	iv := "[" + signed(s.Interval.Low) + ", " + signed(s.Interval.High) + "]"
	if s.Verdict == Noise {
		return "noise " + iv
	}
	dir := direction(b, s.Interval)
	text := "real"
	if dir != "" {
		text += ", " + dir
	}
	if mark {
		switch dir {
		case "worse":
			text = "🔴 " + text
		case "better":
			text = "🟢 " + text
		}
	}
	return text + " " + iv
}

// table is a grid of cells printed as aligned text or as Markdown.
type table struct {
	header []string
	right  []bool
	rows   [][]string
}

func (t *table) text(b *strings.Builder) {
	width := make([]int, len(t.header))
	for _, r := range append([][]string{t.header}, t.rows...) {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, r := range append([][]string{t.header}, t.rows...) {
		var line strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if i > 0 {
				line.WriteString("  ")
			}
			if t.right[i] {
				line.WriteString(pad + c)
			} else {
				line.WriteString(c + pad)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}

func (t *table) markdown(b *strings.Builder) {
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	b.WriteString("|")
	for _, h := range t.header {
		b.WriteString(" " + esc(h) + " |")
	}
	b.WriteString("\n|")
	for i := range t.header {
		if t.right[i] {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range t.rows {
		b.WriteString("|")
		for _, c := range r {
			b.WriteString(" " + esc(c) + " |")
		}
		b.WriteString("\n")
	}
}

// runsTable lists the runs.
func (c *Comparison) runsTable() *table {
	t := &table{header: []string{"Run", "File", "Label", "Per-request data"}, right: make([]bool, 4)}
	for i, n := range c.Names {
		if i == 0 {
			n += " (baseline)"
		}
		detailed := "no"
		if c.Detailed[i] {
			detailed = "yes"
		}
		t.rows = append(t.rows, []string{n, c.Sources[i], c.Labels[i], detailed})
	}
	return t
}

func (c *Comparison) settingsTable() *table {
	t := &table{header: append([]string{"Setting"}, c.Names...), right: make([]bool, 1+len(c.Names))}
	for _, r := range c.Settings {
		if !isCommand(r) {
			t.rows = append(t.rows, append([]string{r.Key}, r.Text...))
		}
	}
	return t
}

// isCommand reports whether a setting row is the saved command line, too
// long for a table column: the renderings list it under the table.
func isCommand(r Row) bool {
	return slices.Equal(r.path, []string{resultkey.GobenchWorkload, resultkey.WorkloadCommand})
}

// commands lists each run's saved command line, "A  gobench serve ...",
// one per line; "" when no run saved one.
func (c *Comparison) commands() string {
	var b strings.Builder
	for _, r := range c.Settings {
		if !isCommand(r) {
			continue
		}
		for i, cmd := range r.Text {
			if cmd != "" {
				fmt.Fprintf(&b, "%s  %s\n", c.Names[i], cmd)
			}
		}
	}
	return b.String()
}

// metricsTable is the table of every run's metrics: with All (or mark,
// for Markdown, which has no width to keep) every column, the direction
// and the absolute change included; else the value, the change in percent
// and the verdict. Without All only the rows shownByDefault are in it.
func (c *Comparison) metricsTable(mark bool) *table {
	full := c.All || mark
	t := &table{header: []string{"Metric"}, right: []bool{false}}
	if full {
		t.header, t.right = append(t.header, "Better"), append(t.right, false)
	}
	for _, n := range c.Names {
		t.header, t.right = append(t.header, n), append(t.right, true)
	}
	base := c.Names[0]
	tested := make([]bool, len(c.Names)-1)
	for j, n := range c.Names[1:] {
		if full {
			t.header, t.right = append(t.header, n+"−"+base), append(t.right, true)
		}
		t.header, t.right = append(t.header, n+"−"+base+" %"), append(t.right, true)
		for _, r := range c.Metrics {
			tested[j] = tested[j] || r.Changes[j].Sig != nil
		}
		if tested[j] {
			t.header = append(t.header, n+" vs "+base)
			t.right = append(t.right, false)
		}
	}
	for _, r := range c.Metrics {
		if !c.All && !c.shownByDefault(r) {
			continue
		}
		cells := []string{r.Key}
		if full {
			cells = append(cells, r.Better.String())
		}
		cells = append(cells, r.Text...)
		for j, ch := range r.Changes {
			if full {
				cells = append(cells, signed(ch.Abs))
			}
			cells = append(cells, relative(ch.Rel))
			if tested[j] {
				cells = append(cells, sigText(ch.Sig, r.Better, mark))
			}
		}
		t.rows = append(t.rows, cells)
	}
	return t
}

// writeShort prints the short table of every run when it fits MaxWidth,
// else one short table per run after the baseline (pairTable), which
// keeps three runs as narrow as two.
func (c *Comparison) writeShort(b *strings.Builder) {
	if t := c.metricsTable(false); len(c.Names) == 2 || t.fits() {
		if len(t.rows) == 0 {
			b.WriteString("No metric changed for real.\n\n")
			return
		}
		t.fitText(b)
		b.WriteString("\n")
		return
	}
	for j := 1; j < len(c.Names); j++ {
		if t := c.pairTable(j); len(t.rows) > 0 {
			t.fitText(b)
		} else {
			b.WriteString(c.Names[j] + " vs " + c.Names[0] + ": no metric changed for real.\n")
		}
		b.WriteString("\n")
	}
}

// pairTable is the short table of run j against the baseline: the
// metrics that changed for real or without a test (shownFor), with both
// values, the change in percent and the verdict.
func (c *Comparison) pairTable(j int) *table {
	a, b := c.Names[0], c.Names[j]
	t := &table{header: []string{"Metric", a, b, b + "−" + a + " %"}, right: []bool{false, true, true, true}}
	tested := false
	for _, r := range c.Metrics {
		tested = tested || r.Changes[j-1].Sig != nil
	}
	if tested {
		t.header, t.right = append(t.header, b+" vs "+a), append(t.right, false)
	}
	for _, r := range c.Metrics {
		if !shownFor(r, j-1) {
			continue
		}
		ch := r.Changes[j-1]
		cells := []string{r.Key, r.Text[0], r.Text[j], relative(ch.Rel)}
		if tested {
			cells = append(cells, sigText(ch.Sig, r.Better, false))
		}
		t.rows = append(t.rows, cells)
	}
	return t
}

// WriteText prints the comparison as text within MaxWidth columns: the
// workload settings that differ, a headline per run, the runs, then the
// metrics that changed for real or without a test. With All it adds
// every metric, the settings, the command lines and the server's figures.
func (c *Comparison) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString(wrapLines(c.lead()))
	b.WriteString("\n")
	c.runsTable().fitText(&b)
	if c.All {
		b.WriteString("\n")
		c.settingsTable().fitText(&b)
		b.WriteString(c.commandsText())
	}
	b.WriteString("\n")
	if c.All {
		c.metricsTable(false).fitText(&b)
		b.WriteString("\n")
	} else {
		c.writeShort(&b)
	}
	b.WriteString(wrapLines(c.footer()))
	b.WriteString(c.serverText())
	_, err := io.WriteString(w, b.String())
	return err
}

// lead is the opening: for each run, the workload settings it does not
// share with the baseline (before any number, for the numbers of two
// different workloads are no comparison), then the headlines.
func (c *Comparison) lead() string {
	return lead(c.Names, c.Tally, c.Workload, "")
}

// lead is the opening of a comparison of names[1:] with names[0]: the
// workload differences, then the headlines, each followed by suffix.
func lead(names []string, tally func(j int) Tally, workload [][]WorkloadDifference, suffix string) string {
	var b strings.Builder
	for j := 1; j < len(names); j++ {
		if s := FormatWorkloadDiff(workload[j-1], names[0], names[j]); s != "" {
			b.WriteString(s + "\n")
		}
	}
	for j := 1; j < len(names); j++ {
		b.WriteString(tally(j).Headline(names[0], names[j]) + suffix + "\n")
	}
	return b.String()
}

// commandsText lists each run's command line under the settings, wrapped.
func (c *Comparison) commandsText() string {
	cmds := c.commands()
	if cmds == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nCommand lines:\n")
	for _, l := range strings.Split(strings.TrimSuffix(cmds, "\n"), "\n") {
		name, cmd, _ := strings.Cut(l, "  ")
		b.WriteString(wrap(cmd, name+"  ", strings.Repeat(" ", textWidth(name)+4)))
	}
	return b.String()
}

// WriteMarkdown prints the comparison as Markdown (GitHub tables), for a
// pull-request comment or a CI job summary: the lead, the runs, the
// metrics that changed for real, and folded away the settings and (unless
// All shows them in the table) every metric.
func (c *Comparison) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("### gobench compare\n\n")
	for _, l := range strings.Split(strings.TrimSuffix(c.lead(), "\n"), "\n") {
		b.WriteString("**" + l + "**  \n")
	}
	b.WriteString("\n")
	c.runsTable().markdown(&b)
	b.WriteString("\n<details><summary>Settings</summary>\n\n")
	c.settingsTable().markdown(&b)
	if cmds := c.commands(); cmds != "" {
		b.WriteString("\nCommand lines:\n\n```\n" + cmds + "```\n")
	}
	b.WriteString("\n</details>\n\n")
	c.metricsTable(true).markdown(&b)
	all := *c
	all.All = true // the folds hold the rest: the footer has no --all to point to
	if !c.All {
		b.WriteString("\n<details><summary>Every metric</summary>\n\n")
		all.metricsTable(true).markdown(&b)
		b.WriteString("\n</details>\n")
	}
	b.WriteString("\n" + all.footer())
	b.WriteString(c.serverMarkdown())
	_, err := io.WriteString(w, b.String())
	return err
}

// footer names the significance method, the runs that could not be
// tested and, with All, the keys left out; without All, what the short
// table leaves out.
func (c *Comparison) footer() string {
	s := ""
	if !c.All {
		if hidden := len(c.Metrics) - c.shown(); hidden > 0 {
			s += fmt.Sprintf("Not shown: %d of %d metrics (within noise, unchanged, a spread std_*, or untested in "+
				"gobench's sections); --all shows every metric, the settings and the command lines.\n", hidden, len(c.Metrics))
		}
		if c.Tested() {
			s += "Significance: " + c.shortMethod() + ".\n"
		}
	} else if c.Tested() {
		s += "Significance: " + c.Method() + ".\n"
	}
	for _, n := range c.Notes {
		s += n + ".\n"
	}
	if !c.All {
		return s
	}
	if len(c.NotShared) > 0 {
		s += "Not in every result (left out): " + strings.Join(c.NotShared, ", ") + ".\n"
	}
	if len(c.Zero) > 0 {
		s += "Zero or absent in every result (left out): " + strings.Join(c.Zero, ", ") + ".\n"
	}
	return s
}

// shortMethod is Method in one line.
func (c *Comparison) shortMethod() string {
	o := c.Options
	return fmt.Sprintf("%s bootstrap interval of the difference (run − %s) over the requests, %d resamples, seed %d; "+
		"real = it excludes 0", percent(o.Confidence), c.Names[0], o.Resamples, o.Seed)
}

// shown counts the metrics the short table shows.
func (c *Comparison) shown() int {
	n := 0
	for _, r := range c.Metrics {
		if c.shownByDefault(r) {
			n++
		}
	}
	return n
}

// Object returns the comparison as a JSON object (pyjson.AppendPython
// writes it; non-finite numbers as "inf"/"nan" strings):
//
//	{"baseline": "A",
//	 "runs": [{"name", "source", "label", "detailed"}],
//	 "headlines": [{"run", "headline", "regressions", "improvements", "real",
//	                "noise", "untested", "regressed": [key],
//	                "workload_differs": [{"key", "baseline", "value"}]}],
//	 "method": {"name", "description", "resamples", "confidence", "seed"},
//	 "settings": [{"key", "values": [string per run]}],
//	 "metrics": [{"key", "better", "values": [number per run],
//	              "changes": [{"run", "abs", "rel",
//	                           "significance": null | {"verdict", "low", "high",
//	                                                   "requests_a", "requests_b", "note"}}]}],
//	 "not_shared": [key], "zero": [key], "notes": [string],
//	 "server_view": {...}}
//
// A setting inside an object (gobench_workload) has its dotted path as
// its key ("gobench_workload.seed"). "server_view" is present only when a
// result has one (serverObject describes it).
func (c *Comparison) Object() *pyjson.Object {
	o := pyjson.NewObject()
	o.Set("baseline", c.Names[0])
	runs := make([]*pyjson.Object, len(c.Names))
	for i := range c.Names {
		r := pyjson.NewObject()
		r.Set("name", c.Names[i])
		r.Set("source", c.Sources[i])
		r.Set("label", c.Labels[i])
		r.Set("detailed", c.Detailed[i])
		runs[i] = r
	}
	o.Set("runs", runs)
	o.Set("headlines", c.headlineObjects())
	m := pyjson.NewObject()
	m.Set("name", "bootstrap")
	m.Set("description", c.Method())
	m.Set("resamples", c.Options.Resamples)
	m.Set("confidence", c.Options.Confidence)
	m.Set("seed", int64(c.Options.Seed))
	o.Set("method", m)
	settings := make([]*pyjson.Object, len(c.Settings))
	for i, r := range c.Settings {
		s := pyjson.NewObject()
		s.Set("key", r.Key)
		s.Set("values", r.Text)
		settings[i] = s
	}
	o.Set("settings", settings)
	rows := make([]*pyjson.Object, len(c.Metrics))
	for i, r := range c.Metrics {
		row := pyjson.NewObject()
		row.Set("key", r.Key)
		row.Set("better", nullIfEmpty(r.Better.String()))
		row.Set("values", r.Values)
		changes := make([]*pyjson.Object, len(r.Changes))
		for j, ch := range r.Changes {
			co := pyjson.NewObject()
			co.Set("run", c.Names[j+1])
			co.Set("abs", ch.Abs)
			co.Set("rel", ch.Rel)
			co.Set("significance", sigObject(ch.Sig))
			changes[j] = co
		}
		row.Set("changes", changes)
		rows[i] = row
	}
	o.Set("metrics", rows)
	o.Set("not_shared", append([]string{}, c.NotShared...))
	o.Set("zero", append([]string{}, c.Zero...))
	o.Set("notes", append([]string{}, c.Notes...))
	if c.Server != nil {
		o.Set("server_view", c.serverObject())
	}
	return o
}

// headlineObjects are, per run after the baseline, its headline, the
// counts behind it and the workload settings it does not share.
func (c *Comparison) headlineObjects() []*pyjson.Object {
	return headlineObjects(c.Names, c.Tally, c.Workload)
}

// headlineObjects are, per run (or set) j after the baseline names[0],
// its tally as JSON with the workload settings it does not share.
func headlineObjects(names []string, tally func(j int) Tally, workload [][]WorkloadDifference) []*pyjson.Object {
	var out []*pyjson.Object
	for j := 1; j < len(names); j++ {
		o := tally(j).object(names[0], names[j])
		o.Set("workload_differs", workloadObjects(workload[j-1]))
		out = append(out, o)
	}
	return out
}

// object is the tally as JSON, for run b compared with a.
func (t Tally) object(a, b string) *pyjson.Object {
	o := pyjson.NewObject()
	o.Set("run", b)
	o.Set("headline", t.Headline(a, b))
	o.Set("regressions", t.Regressions)
	o.Set("improvements", t.Improvements)
	o.Set("real", t.Real)
	o.Set("noise", t.Noise)
	o.Set("untested", t.Untested)
	o.Set("regressed", append([]string{}, t.Regressed...))
	return o
}

// workloadObjects are the differences as JSON.
func workloadObjects(diffs []WorkloadDifference) []*pyjson.Object {
	out := []*pyjson.Object{}
	for _, d := range diffs {
		o := pyjson.NewObject()
		o.Set("key", d.Key)
		o.Set("baseline", d.A)
		o.Set("value", d.B)
		out = append(out, o)
	}
	return out
}

func sigObject(s *Significance) any {
	if s == nil {
		return nil
	}
	o := pyjson.NewObject()
	o.Set("verdict", nullIfEmpty(s.Verdict))
	if s.Verdict == "" {
		o.Set("low", nil)
		o.Set("high", nil)
	} else {
		o.Set("low", s.Interval.Low)
		o.Set("high", s.Interval.High)
	}
	o.Set("requests_a", s.RequestsA)
	o.Set("requests_b", s.RequestsB)
	o.Set("note", nullIfEmpty(s.Note))
	return o
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
