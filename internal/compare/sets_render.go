package compare

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultfile"
)

// Method describes both tests in words, for the output.
func (c *SetComparison) Method() string {
	o := c.Options
	return fmt.Sprintf("%s confidence intervals of the difference (set − %s). Across runs: Welch's t interval of the difference of the runs' mean values "+
		"(is the change larger than the run-to-run spread?). Within runs: the bootstrap of the requests of each set's runs pooled, %d resamples, seed %d "+
		"(is it larger than the request-to-request spread?). real = the interval excludes 0, noise = it includes 0",
		percent(o.Confidence), c.Names[0], o.Resamples, o.Seed)
}

// acrossText is the cell of the test across runs.
func acrossText(ch SetChange, b Better, mark bool) string {
	if ch.AcrossVerdict() == "" {
		return "n/a: " + ch.Across.Note
	}
	s := &Significance{Verdict: ch.AcrossVerdict(), Interval: Interval{Low: ch.Across.Low, High: ch.Across.High}}
	return sigText(s, b, mark)
}

// setTable is the metrics of the comparison of set j with the baseline:
// with All (or mark, for Markdown) every metric with its spread and both
// intervals; else the metrics that changed for real (shownByDefault) with
// the verdicts in words.
func (c *SetComparison) setTable(j int, mark bool) *table {
	a, b := c.Names[0], c.Names[j]
	if !c.All && !mark {
		t := &table{header: []string{"Metric", a + " mean", b + " mean", b + "−" + a + " %", "across runs", "within runs"},
			right: []bool{false, true, true, true, false, false}}
		for _, r := range c.Rows {
			if !c.shownByDefault(r) {
				continue
			}
			ch := r.Changes[j-1]
			t.rows = append(t.rows, []string{r.Key, resultfile.FormatValue(r.Means[0]), resultfile.FormatValue(r.Means[j]),
				relative(ch.Rel), verdictWords(acrossText(ch, r.Better, false)), verdictWords(sigText(ch.Within, r.Better, false))})
		}
		return t
	}
	t := &table{
		header: []string{"Metric", "Better", a + " mean", a + " std", b + " mean", b + " std", b + "−" + a + " %", "across runs", "within runs (pooled requests)"},
		right:  []bool{false, false, true, true, true, true, true, false, false},
	}
	for _, r := range c.Rows {
		ch := r.Changes[j-1]
		t.rows = append(t.rows, []string{r.Key, r.Better.String(), resultfile.FormatValue(r.Means[0]), stdText(r.Stds[0]),
			resultfile.FormatValue(r.Means[j]), stdText(r.Stds[j]), relative(ch.Rel), acrossText(ch, r.Better, mark), sigText(ch.Within, r.Better, mark)})
	}
	return t
}

// verdictWords is a verdict cell without its interval ("real, worse"),
// for the short table; "n/a: why" becomes "n/a".
func verdictWords(cell string) string {
	if strings.HasPrefix(cell, "n/a") {
		return "n/a"
	}
	words, _, _ := strings.Cut(cell, " [")
	return words
}

func stdText(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return resultfile.FormatValue(v)
}

// header lists the sets.
func (c *SetComparison) header() string {
	var b strings.Builder
	for i, name := range c.Names {
		fmt.Fprintf(&b, "%s = %s (%d completed runs)\n", name, c.Sources[i], c.Runs[i])
	}
	return b.String()
}

// WriteText prints the comparison of sets as text within MaxWidth
// columns: the workload settings that differ, a headline per set, the
// sets, then per set its table (setTable).
func (c *SetComparison) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString(wrapLines(c.lead()))
	b.WriteString("\n" + wrapLines(c.header()))
	for j := 1; j < len(c.Names); j++ {
		b.WriteString("\n")
		if t := c.setTable(j, false); len(t.rows) > 0 {
			t.fitText(&b)
		} else {
			b.WriteString(c.Names[j] + " vs " + c.Names[0] + ": no metric changed for real.\n")
		}
	}
	if !c.All {
		b.WriteString("\n" + wrap("Shown: the metrics that changed for real across or within runs; --all shows every "+
			"metric with its standard deviation and both intervals.", "", "  "))
	}
	var foot strings.Builder
	c.footer(&foot)
	b.WriteString(wrapLines(foot.String()))
	_, err := io.WriteString(w, b.String())
	return err
}

// lead is the opening: the workload settings each set does not share
// with the baseline, then the headlines (the test across runs).
func (c *SetComparison) lead() string {
	return lead(c.Names, c.Tally, c.Workload, " (across runs)")
}

// WriteMarkdown prints the comparison of sets as GitHub tables.
func (c *SetComparison) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("### gobench compare (sets of runs)\n\n")
	for _, l := range strings.Split(strings.TrimSuffix(c.lead(), "\n"), "\n") {
		b.WriteString("**" + l + "**  \n")
	}
	b.WriteString("\n")
	for _, line := range strings.Split(strings.TrimSpace(c.header()), "\n") {
		b.WriteString("- " + line + "\n")
	}
	for j := 1; j < len(c.Names); j++ {
		b.WriteString("\n")
		c.setTable(j, true).markdown(&b)
	}
	c.footer(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func (c *SetComparison) footer(b *strings.Builder) {
	b.WriteString("\n" + c.Method() + ".\n")
	for _, n := range c.Notes {
		b.WriteString("Note: " + n + ".\n")
	}
}

// Object is the comparison of sets as JSON.
func (c *SetComparison) Object() *pyjson.Object {
	o := pyjson.NewObject()
	var sets []any
	for i, name := range c.Names {
		s := pyjson.NewObject()
		s.Set("name", name)
		s.Set("file", c.Sources[i])
		s.Set("completed_runs", c.Runs[i])
		sets = append(sets, s)
	}
	o.Set("sets", sets)
	o.Set("headlines", headlineObjects(c.Names, c.Tally, c.Workload))
	o.Set("confidence", c.Options.Confidence)
	var rows []any
	for _, r := range c.Rows {
		row := pyjson.NewObject()
		row.Set("key", r.Key)
		row.Set("better", r.Better.String())
		row.Set("means", floats(r.Means))
		row.Set("stds", floats(r.Stds))
		var changes []any
		for _, ch := range r.Changes {
			co := pyjson.NewObject()
			co.Set("abs", finite(ch.Abs))
			co.Set("rel", finite(ch.Rel))
			across := pyjson.NewObject()
			across.Set("verdict", nullIfEmpty(ch.AcrossVerdict()))
			for _, f := range []struct {
				k string
				v float64
			}{{"low", ch.Across.Low}, {"high", ch.Across.High}, {"df", ch.Across.DF}, {"t", ch.Across.T}, {"p", ch.Across.P}} {
				across.Set(f.k, finite(f.v))
			}
			across.Set("note", nullIfEmpty(ch.Across.Note))
			co.Set("across_runs", across)
			co.Set("within_runs", sigObject(ch.Within))
			changes = append(changes, co)
		}
		row.Set("changes", changes)
		rows = append(rows, row)
	}
	o.Set("metrics", rows)
	o.Set("notes", c.Notes)
	return o
}

// finite is v, or nil (null) when NaN or infinite.
func finite(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

func floats(vs []float64) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = finite(v)
	}
	return out
}
