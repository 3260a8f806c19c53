package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/atomicfile"
	"github.com/gobench/gobench/internal/htmlreport"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
	"github.com/gobench/gobench/internal/run"
	"github.com/spf13/pflag"
)

// ServeReport is what `serve` writes as HTML at the end of a run:
// --report, and vLLM's --plot-timeline and --plot-dataset-stats.
type ServeReport struct {
	// File is --report: the full report, "" for none.
	File string
	// PlotTimeline writes <result>.timeline.html (vLLM's name), the
	// per-request timeline.
	PlotTimeline bool
	// ITLThresholds are --timeline-itl-thresholds, in seconds.
	ITLThresholds [2]float64
	// PlotDatasetStats writes <result>.dataset_stats.html (vLLM writes
	// a .dataset_stats.png), the input and output length distributions.
	PlotDatasetStats bool
}

// reportFlags are the flags of ServeReport.
type reportFlags struct {
	file                   string
	timeline, datasetStats bool
	thresholds             string
}

// register defines the flags, in vLLM's order for its own.
func (f *reportFlags) register(fs *pflag.FlagSet) {
	f.thresholds = "25,50"
	fs.StringVar(&f.file, "report", "", "At the end of the run, write gobench's HTML report of it (charts and tables, one offline file; see gobench report) to this file.")
	fs.BoolVar(&f.timeline, "plot-timeline", false, "Write the per-request timeline as HTML next to the result (<result>.timeline.html, vLLM's name); forces the result's file name as vLLM does.")
	fs.StringVar(&f.thresholds, "timeline-itl-thresholds", f.thresholds, "Two ITL thresholds in `ms`, as \"25,50\", that colour --plot-timeline's decode bars.")
	fs.BoolVar(&f.datasetStats, "plot-dataset-stats", false, "Write the input and output length distributions as HTML next to the result (<result>.dataset_stats.html; vLLM writes a PNG).")
}

// options checks the flags as vLLM's main_async does (the thresholds
// only with --plot-timeline).
func (f *reportFlags) options() (ServeReport, error) {
	r := ServeReport{File: f.file, PlotTimeline: f.timeline, PlotDatasetStats: f.datasetStats}
	if !f.timeline {
		return r, nil
	}
	parts := strings.Split(f.thresholds, ",")
	if len(parts) != 2 {
		return r, argErrorf("argument --timeline-itl-thresholds: Invalid --timeline-itl-thresholds format: Expected 2 ITL threshold values, got %d", len(parts))
	}
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return r, argErrorf("argument --timeline-itl-thresholds: Invalid --timeline-itl-thresholds format: could not convert string to float: %q", strings.TrimSpace(p))
		}
		r.ITLThresholds[i] = v / 1000
	}
	return r, nil
}

// checkSingle refuses the flags with several runs (--num-runs, a sweep's
// short form), which write several results: gobench report draws them.
func (r ServeReport) checkSingle(so *ServeOptions) error {
	if r == (ServeReport{ITLThresholds: r.ITLThresholds}) || so.Sweep == nil && so.Repeat.Runs <= 1 {
		return nil
	}
	return argErrorf("argument --report/--plot-timeline/--plot-dataset-stats: one run's pictures, not with --num-runs or --sweep-*: draw their result files with gobench report")
}

// prepare readies the --report file before the run, so that a report
// that cannot be written fails before the first request.
func (r ServeReport) prepare() (*atomicfile.Pending, error) {
	if r.File == "" {
		return nil, nil
	}
	p, err := atomicfile.Prepare(filepath.Dir(r.File), "gobench-report")
	if err != nil {
		return nil, argErrorf("argument --report: the report cannot be written: %v", err)
	}
	return p, nil
}

// write writes the run's HTML files. The run's result object gets its
// per-request lists back (a run without --save-detailed drops them from
// the saved file, not from the report). A failed plot is a warning, as in
// vLLM; a failed --report is an error.
func (r ServeReport) write(deps *Deps, o *run.Options, res *run.Result, pending *atomicfile.Pending) error {
	if res == nil || res.Object == nil || res.Metrics == nil {
		pending.Abort()
		return nil
	}
	if pending == nil && !r.PlotTimeline && !r.PlotDatasetStats {
		// Nothing asked: the result object is not re-read for nothing
		// (it holds every request's samples).
		return nil
	}
	obj := res.Object.Clone()
	obj.Update(report.RequestLists(res.Metrics))
	if _, ok := obj.Get(resultkey.EndReason); !ok {
		obj.Set(resultkey.EndReason, res.EndReason)
	}
	result := res.File
	if result == "" {
		model, _ := obj.Get(resultkey.ModelID)
		date, _ := obj.Get(resultkey.Date)
		ms, _ := model.(string)
		ds, _ := date.(string)
		result = o.ResultPath(ms, ds)
	}
	rf, err := resultfile.FromObject(result, obj)
	if err != nil {
		pending.Abort()
		return fmt.Errorf("report: %w", err)
	}
	in := htmlreport.Input{Runs: []*resultfile.Run{rf}, Version: deps.Version, ITLThresholds: r.ITLThresholds}
	plot := func(part htmlreport.Part, suffix, what string) {
		path := withSuffix(result, suffix)
		in := in
		in.Part, in.Title = part, "gobench "+what+" · "+filepath.Base(result)
		err := os.MkdirAll(filepath.Dir(path), 0o755)
		if err == nil {
			err = htmlreport.WriteFile(path, in)
		}
		if err != nil {
			fmt.Fprintf(deps.Stderr, "WARNING: Failed to generate %s: %v\n", what, err)
			return
		}
		fmt.Fprintf(deps.Stderr, "Wrote the %s to %s\n", what, path)
	}
	if r.PlotTimeline {
		plot(htmlreport.TimelineOnly, ".timeline.html", "timeline plot")
	}
	if r.PlotDatasetStats {
		plot(htmlreport.DatasetOnly, ".dataset_stats.html", "dataset statistics plot")
	}
	if pending == nil {
		return nil
	}
	if err := htmlreport.Commit(pending, r.File, in); err != nil {
		return err
	}
	fmt.Fprintf(deps.Stderr, "Wrote the report to %s\n", r.File)
	return nil
}

// withSuffix is Python's Path(path).with_suffix(suffix): the name's last
// extension replaced (a name starting with its only dot has none).
func withSuffix(path, suffix string) string {
	dir, name := filepath.Split(path)
	if i := strings.LastIndex(name, "."); i > 0 {
		name = name[:i]
	}
	return dir + name + suffix
}
