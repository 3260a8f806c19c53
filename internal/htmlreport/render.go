package htmlreport

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/analyze"
	"github.com/gobench/gobench/internal/atomicfile"
	"github.com/gobench/gobench/internal/compare"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
)

//go:embed assets/uPlot.iife.min.js assets/uPlot.min.css assets/report.js assets/report.css page.html.tmpl
var files embed.FS

// Part selects what the page shows.
type Part int

const (
	// Full is the whole report.
	Full Part = iota
	// TimelineOnly is the per-request timeline (serve --plot-timeline).
	TimelineOnly
	// DatasetOnly is the dataset statistics (serve --plot-dataset-stats).
	DatasetOnly
)

// Input is what one page shows: runs (one, or several overlaid) or a
// sweep directory.
type Input struct {
	// Title heads the page ("gobench report" when empty).
	Title string
	// Runs are the result files' runs, drawn overlaid.
	Runs []*resultfile.Run
	// Sweep is a sweep directory's table and SLA search (ReadSweep).
	Sweep *Sweep
	// Part selects the sections (Full when zero).
	Part Part
	// ITLThresholds colour the timeline's decode bars, in seconds
	// (DefaultITLThresholds when zero).
	ITLThresholds [2]float64
	// Version is the gobench version that writes the page.
	Version string
	// Compare sets the comparison's bootstrap (several runs).
	Compare compare.Options
}

// section is one part of the page: a heading, text blocks, HTML drawn by
// this package (every text escaped), tables and charts in a grid. A
// folded section (the settings) is closed until the reader opens it.
type section struct {
	Title  string
	Notes  []string
	Pre    []string
	HTML   []template.HTML
	Tables []table
	Charts []*chart
	Fold   bool
}

// table is a heading row and rows of cells.
type table struct {
	Caption string
	Head    []string
	Rows    [][]string
}

// page is the template's data.
type page struct {
	Title, Version    string
	Subtitle          string
	Cards             template.HTML
	Sections          []section
	UPlotJS, ReportJS template.JS
	CSS               template.CSS
	Data              template.JS
}

// Write writes the page of in to w.
func Write(w io.Writer, in Input) error {
	if in.ITLThresholds == [2]float64{} {
		in.ITLThresholds = DefaultITLThresholds
	}
	if in.Title == "" {
		in.Title = "gobench report"
	}
	var secs []section
	if in.Sweep != nil {
		secs = append(secs, sweepSections(in.Sweep)...)
	}
	var top topOfPage
	if in.Sweep != nil && len(in.Sweep.Points) > 0 {
		top.cards = cardsHTML([]cardRow{{Cards: sweepCards(in.Sweep)}})
	}
	if len(in.Runs) > 0 {
		runs := make([]*runData, len(in.Runs))
		seen := map[string]int{}
		for i, r := range in.Runs {
			runs[i] = load(r, i)
			// The same file twice (or two unlabelled runs of one name)
			// still tells its series apart: "a.json", "a.json (2)".
			if seen[runs[i].label]++; seen[runs[i].label] > 1 {
				runs[i].label += fmt.Sprintf(" (%d)", seen[runs[i].label])
			}
		}
		secs = append(secs, runSections(in, runs)...)
		if in.Part == Full {
			top = topOfPage{subtitle: subtitle(runs), cards: cardsHTML(cardRows(runs))}
		}
	}
	if len(secs) == 0 {
		return fmt.Errorf("htmlreport: nothing to report (no run, no sweep)")
	}
	kept := secs[:0]
	for _, s := range secs {
		if len(s.Notes)+len(s.Pre)+len(s.HTML)+len(s.Tables)+len(s.Charts) > 0 {
			kept = append(kept, s)
		}
	}
	secs = kept
	return render(w, in, top, secs)
}

// topOfPage is what heads the page of runs: a line saying what was run,
// and the cards.
type topOfPage struct {
	subtitle string
	cards    template.HTML
}

// subtitle says what one run was (model, backend, load, date); "" for
// several runs, whose cards name them.
func subtitle(runs []*runData) string {
	if len(runs) != 1 {
		return ""
	}
	r := runs[0].run
	var parts []string
	for _, k := range []struct{ key, name string }{
		{resultkey.ModelID, "model"}, {resultkey.Backend, "backend"}, {resultkey.RequestRate, "request rate"},
		{resultkey.MaxConcurrency, "max concurrency"}, {resultkey.Date, "date"},
	} {
		if r.Has(k.key) {
			parts = append(parts, k.name+" "+r.Display(k.key))
		}
	}
	return strings.Join(append([]string{runs[0].label}, parts...), " · ")
}

// render fills the template.
func render(w io.Writer, in Input, top topOfPage, secs []section) error {
	type entry struct {
		ID     string `json:"id"`
		Series int    `json:"series"`
		Points int    `json:"points"`
	}
	// Empty lists, not null: a page without charts (a result saved
	// without --save-detailed) still loads and becomes ready.
	charts := []*chart{}
	index := []entry{}
	for _, s := range secs {
		for _, c := range s.Charts {
			charts = append(charts, c)
			index = append(index, entry{"chart-" + c.ID, len(c.Series), c.points})
		}
	}
	data, err := json.Marshal(struct {
		Index  []entry  `json:"index"`
		Charts []*chart `json:"charts"`
	}{index, charts})
	if err != nil {
		return fmt.Errorf("htmlreport: encode charts: %w", err)
	}
	read := func(name string) string {
		b, _ := files.ReadFile(name) // embedded: cannot fail
		return string(b)
	}
	t, err := template.New("page.html.tmpl").Funcs(template.FuncMap{
		"series": func(c *chart) int { return len(c.Series) },
		"points": func(c *chart) int { return c.points },
		"table":  func(t table) template.HTML { return tableHTML(t, nil) },
	}).ParseFS(files, "page.html.tmpl")
	if err != nil {
		return fmt.Errorf("htmlreport: template: %w", err)
	}
	p := page{
		Title: in.Title, Version: in.Version, Sections: secs, Subtitle: top.subtitle, Cards: top.cards,
		UPlotJS: template.JS(read("assets/uPlot.iife.min.js")), ReportJS: template.JS(read("assets/report.js")),
		CSS:  template.CSS(read("assets/uPlot.min.css") + "\n" + read("assets/report.css")),
		Data: template.JS(data),
	}
	var b bytes.Buffer
	if err := t.Execute(&b, p); err != nil {
		return fmt.Errorf("htmlreport: %w", err)
	}
	_, err = w.Write(b.Bytes())
	return err
}

// runSections are the sections of one run or several overlaid.
func runSections(in Input, runs []*runData) []section {
	var secs []section
	switch in.Part {
	case TimelineOnly:
		return append(secs, timelineSection(in, runs))
	case DatasetOnly:
		return append(secs, section{Title: "Dataset statistics", Notes: detailNotes(runs), Charts: datasetCharts(runs)})
	}
	if len(runs) > 1 {
		secs = append(secs, compareSection(in, runs))
	}
	secs = append(secs,
		section{Title: "Latency distributions", Notes: detailNotes(runs), Charts: distributionCharts(runs)},
		section{Title: "Over time", Charts: timeCharts(runs)},
		timelineSection(in, runs),
	)
	for _, d := range runs {
		if s, ok := serverSection(d, len(runs) > 1); ok {
			secs = append(secs, s)
		}
	}
	secs = append(secs, failuresSection(runs), section{Title: "Dataset statistics", Charts: datasetCharts(runs)})
	for _, d := range runs {
		secs = append(secs, headerSection(d, len(runs) > 1))
	}
	return secs
}

// detailNotes say which runs lack per-request data.
func detailNotes(runs []*runData) []string {
	var notes []string
	for _, d := range runs {
		if !d.detailed {
			notes = append(notes, d.noDetail+": the charts of its requests are left out.")
		} else if !d.hasStarts {
			notes = append(notes, d.label+": the file has no start_times: the charts over time are left out.")
		}
	}
	return notes
}

// timelineSection holds each run's per-request timeline.
func timelineSection(in Input, runs []*runData) section {
	s := section{Title: "Per-request timeline", Notes: detailNotes(runs)}
	for i, d := range runs {
		id := "timeline"
		if len(runs) > 1 {
			id = fmt.Sprintf("timeline-%d", i+1)
		}
		if c := timelineChart(d, id, in.ITLThresholds); c != nil {
			if c.Note != "" {
				s.Notes = append(s.Notes, c.Note)
			}
			s.Charts = append(s.Charts, c)
		}
	}
	return s
}

// compareSection is compare's table with its verdicts.
func compareSection(in Input, runs []*runData) section {
	s := section{Title: "Comparison"}
	list := make([]*resultfile.Run, len(runs))
	for i, d := range runs {
		list[i] = d.run
	}
	c, err := compare.Compare(list, in.Compare)
	if err != nil {
		s.Notes = append(s.Notes, "compare: "+err.Error())
		return s
	}
	s.HTML = append(s.HTML, compareHTML(c))
	return s
}

// serverSection is the run's server view and diagnosis as HTML.
func serverSection(d *runData, several bool) (section, bool) {
	view := analyze.ServerView(d.run)
	if view == nil {
		return section{}, false
	}
	title := "Server view"
	if several {
		title += ": " + d.label
	}
	h, err := serverHTML(view)
	if err != nil {
		return section{Title: title, Notes: []string{err.Error()}}, true
	}
	return section{Title: title, HTML: []template.HTML{h}}, true
}

// failuresSection counts the failed requests by kind (serve's kinds),
// with an example error text of each.
func failuresSection(runs []*runData) section {
	s := section{Title: "Failures"}
	for _, d := range runs {
		kinds := d.failureKinds()
		if len(kinds) == 0 {
			if d.detailed || d.run.Has(resultkey.FailureKinds) {
				s.Notes = append(s.Notes, d.label+": no request failed.")
			}
			continue
		}
		failed := 0
		for _, k := range kinds {
			failed += k.Count
		}
		total := failed
		if n, ok := d.run.Number(resultkey.Completed); ok {
			total += int(n)
		}
		t := table{Caption: d.label + ": " + report.FailureSummary(failed, total, kinds), Head: []string{"requests", "kind", "example"}}
		for _, k := range kinds {
			t.Rows = append(t.Rows, []string{strconv.Itoa(k.Count), k.Kind, k.Example})
		}
		s.Tables = append(s.Tables, t)
	}
	return s
}

// blockText is vLLM's result block of the run, recomputed from its
// per-request data as gobench analyze prints it; "" without the data.
func blockText(r *resultfile.Run) string {
	res, err := analyze.Recompute(r, analyze.Options{})
	if err != nil {
		return ""
	}
	var b strings.Builder
	if report.Text(&b, &res.Metrics, res.Spec) != nil {
		return ""
	}
	return b.String()
}

// WriteFile writes the page of in to path atomically (atomicfile): a
// failure leaves any previous file whole.
func WriteFile(path string, in Input) error {
	p, err := atomicfile.Prepare(filepath.Dir(path), "gobench-report")
	if err != nil {
		return fmt.Errorf("report %s: %w", path, err)
	}
	return Commit(p, path, in)
}

// Commit writes the page of in through p, prepared before (so that a
// destination that cannot be written fails early), and commits it as
// path.
func Commit(p *atomicfile.Pending, path string, in Input) error {
	if err := Write(p, in); err != nil {
		p.Abort()
		return fmt.Errorf("report %s: %w", path, err)
	}
	return p.Commit(path)
}
