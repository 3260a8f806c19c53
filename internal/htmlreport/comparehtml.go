package htmlreport

import (
	"fmt"
	"html/template"
	"math"
	"strings"

	"github.com/gobench/gobench/internal/compare"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
)

// compareHTML is compare's result as HTML: compare's headline per run,
// the workload settings that differ from the baseline (before any
// number), and the metrics with each change coloured by compare's own
// verdict (real and worse, real and better, noise).
func compareHTML(c *compare.Comparison) template.HTML {
	var b strings.Builder
	for j := 1; j < len(c.Names); j++ {
		fmt.Fprintf(&b, `<p class="gb-headline">%s</p>`, esc(c.Tally(j).Headline(c.Names[0], c.Names[j])))
	}
	var names []string
	for i, n := range c.Names {
		name := n + " = " + c.Sources[i]
		if c.Labels[i] != "" {
			name += " (" + c.Labels[i] + ")"
		}
		names = append(names, name)
	}
	fmt.Fprintf(&b, `<p>%s</p>`, esc(strings.Join(names, "; ")))
	for j, diffs := range c.Workload {
		if len(diffs) == 0 {
			continue
		}
		t := table{Caption: "The workload differs: " + c.Names[0] + " → " + c.Names[j+1] + " (no like-for-like comparison)",
			Head: []string{"setting", c.Names[0], c.Names[j+1]}}
		for _, d := range diffs {
			t.Rows = append(t.Rows, []string{d.Key, d.A, d.B})
		}
		b.WriteString(`<div class="gb-workload">` + string(tableHTML(t, nil)) + `</div>`)
	}
	main, rest := metricTables(c)
	b.WriteString(string(tableHTML(main.t, main.class)))
	if len(rest.t.Rows) > 0 {
		fmt.Fprintf(&b, `<details><summary>%d more figures (not tested for significance)</summary>%s</details>`,
			len(rest.t.Rows), tableHTML(rest.t, rest.class))
	}
	if c.Server != nil {
		fmt.Fprintf(&b, `<details><summary>What the servers said: %s</summary>%s</details>`,
			esc(strings.Join(c.Server.Verdicts, ", ")), tableHTML(serverCompareTable(c), nil))
	}
	for _, n := range c.Notes {
		fmt.Fprintf(&b, `<p class="gb-note">%s</p>`, esc(n))
	}
	if c.Tested() {
		fmt.Fprintf(&b, `<p class="gb-note">%s</p>`, esc(c.Method()))
	}
	return template.HTML(b.String()) // every text escaped by esc or tableHTML
}

// serverCompareTable is the servers' verdicts and figures side by side.
func serverCompareTable(c *compare.Comparison) table {
	t := table{Caption: "What the servers said", Head: append([]string{"figure"}, c.Names...)}
	t.Rows = append(t.Rows, append([]string{"verdict"}, c.Server.Verdicts...))
	for _, r := range c.Server.Figures {
		t.Rows = append(t.Rows, append([]string{r.Key}, r.Text...))
	}
	return t
}

// changeClass is the class of the change of run j+1 (Changes[j]) in row r: gb-worse or
// gb-better for a real change (by the metric's direction), gb-noise, or
// "" without a test.
func changeClass(r compare.Row, j int) string {
	s := r.Changes[j].Sig
	switch {
	case s == nil || s.Verdict == "":
		return ""
	case s.Verdict == compare.Noise:
		return "gb-noise"
	case r.Better == compare.Neither:
		return "gb-real"
	}
	up := s.Interval.Low > 0
	if (r.Better == compare.Lower) == up {
		return "gb-worse"
	}
	return "gb-better"
}

// classedTable is a table with a class per cell ("" for none).
type classedTable struct {
	t     table
	class [][]string
}

// headlineKeys are the figures shown beside the tested latencies: the
// throughputs and the failures.
var headlineKeys = map[string]bool{
	resultkey.Completed: true, resultkey.Failed: true, resultkey.RequestThroughput: true,
	resultkey.RequestGoodput: true, resultkey.OutputThroughput: true,
}

// metricTables are the metrics compare tested for significance and the
// throughputs and failures (each run after the baseline: value, change,
// verdict), and the rest, folded.
func metricTables(c *compare.Comparison) (main, rest classedTable) {
	head := []string{"metric", c.Names[0]}
	for _, n := range c.Names[1:] {
		head = append(head, n, n+" − "+c.Names[0], "verdict")
	}
	main.t = table{Caption: "Metrics (" + c.Names[0] + " is the baseline)", Head: head}
	rest.t = table{Head: head}
	for _, r := range c.Metrics {
		cells, classes := []string{r.Key, r.Text[0]}, []string{"", ""}
		for j, ch := range r.Changes {
			cls := changeClass(r, j)
			cells = append(cells, r.Text[j+1], changeText(ch), verdictText(ch.Sig, cls))
			classes = append(classes, "", cls, cls)
		}
		dst := &rest
		if r.Changes[0].Sig != nil || headlineKeys[r.Key] {
			dst = &main
		}
		dst.t.Rows = append(dst.t.Rows, cells)
		dst.class = append(dst.class, classes)
	}
	return main, rest
}

// changeText is a change as its absolute and relative difference.
func changeText(ch compare.Change) string {
	s := resultfile.FormatValue(ch.Abs)
	if ch.Abs >= 0 {
		s = "+" + s
	}
	if math.IsNaN(ch.Rel) || math.IsInf(ch.Rel, 0) {
		return s
	}
	return fmt.Sprintf("%s (%+.1f %%)", s, 100*ch.Rel)
}

// verdictText is compare's verdict in words, with its interval.
func verdictText(s *compare.Significance, class string) string {
	if s == nil {
		return ""
	}
	if s.Verdict == "" {
		return "n/a: " + s.Note
	}
	iv := fmt.Sprintf(" [%s, %s]", resultfile.FormatValue(s.Interval.Low), resultfile.FormatValue(s.Interval.High))
	switch class {
	case "gb-worse":
		return "real, worse" + iv
	case "gb-better":
		return "real, better" + iv
	}
	return s.Verdict + iv
}

// tableHTML draws a table, each cell with its class when class has one;
// a row of one cell is a sub-heading.
func tableHTML(t table, class [][]string) template.HTML {
	var b strings.Builder
	b.WriteString(`<div class="gb-table-wrap"><table>`)
	if t.Caption != "" {
		fmt.Fprintf(&b, `<caption>%s</caption>`, esc(t.Caption))
	}
	if len(t.Head) > 0 {
		b.WriteString(`<thead><tr>`)
		for _, h := range t.Head {
			fmt.Fprintf(&b, `<th>%s</th>`, esc(h))
		}
		b.WriteString(`</tr></thead>`)
	}
	b.WriteString(`<tbody>`)
	for i, row := range t.Rows {
		b.WriteString(`<tr>`)
		if len(row) == 1 && len(t.Head) != 1 {
			fmt.Fprintf(&b, `<th colspan="99" class="gb-sub">%s</th></tr>`, esc(row[0]))
			continue
		}
		for k, cell := range row {
			cls := ""
			if i < len(class) && k < len(class[i]) && class[i][k] != "" {
				cls = ` class="` + class[i][k] + `"`
			}
			fmt.Fprintf(&b, `<td%s>%s</td>`, cls, esc(cell))
		}
		b.WriteString(`</tr>`)
	}
	b.WriteString(`</tbody></table></div>`)
	return template.HTML(b.String()) // every text escaped above
}
