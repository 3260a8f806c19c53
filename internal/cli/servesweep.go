package cli

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/argparse"
	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/run"
	"github.com/gobench/gobench/internal/runner"
	"github.com/gobench/gobench/internal/sweep"
)

// ServeSweep is the short form of a sweep that vLLM's Rust client has
// (vllm rust/src/bench/src/sweep.rs@11dfa3169): one full serve run per
// request rate or per max concurrency, each saved as its own result file,
// then a table of the points.
type ServeSweep struct {
	// Rates are --sweep-request-rate's values (inf allowed).
	Rates []float64
	// Concurrencies are --sweep-max-concurrency's values.
	Concurrencies []int
	// NumPromptsFactor, when positive, makes a concurrency point send
	// factor × concurrency prompts.
	NumPromptsFactor int
	// Cache keeps the points from each other's prefix cache (Repeat's).
	Cache PrefixCache
}

// serveSweepFlags are the short form's flags.
type serveSweepFlags struct {
	rates, concurrencies string
	factor               *argparse.Int
	reset                bool
}

// serveSweepFlagNames are the short form's flags, for the help.
var serveSweepFlagNames = []string{"sweep-request-rate", "sweep-max-concurrency", "sweep-num-prompts-factor", "reset-prefix-cache"}

func (f *serveSweepFlags) register(s flagSet) {
	s.str(&f.rates, "sweep-request-rate", "Run once per request rate in `RATES`, comma-separated (inf allowed), e.g. 1,2,4,8,inf: each point a full run with its own result file, then a table of the points (also saved as CSV and JSON).")
	s.str(&f.concurrencies, "sweep-max-concurrency", "Run once per max concurrency in `LIST`, comma-separated, e.g. 1,8,64,256 (as --sweep-request-rate).")
	f.factor = argparse.NewInt("sweep-num-prompts-factor", 0)
	s.val(f.factor, "sweep-num-prompts-factor", "With --sweep-max-concurrency: each point sends concurrency × `N` prompts.")
	s.boolean(&f.reset, "reset-prefix-cache", "POST the server's /reset_prefix_cache before each run (each of --num-runs, each sweep point, or the one run) and fail when it cannot "+
		"(vLLM serves it with VLLM_SERVER_DEV_MODE=1). Without it, a set's runs and a sweep's points reset where the server can, else draw prompts of their own.")
}

// options reads the flags, and --reset-prefix-cache into rep's cache
// policy: nil when no sweep was asked for.
func (f *serveSweepFlags) options(rep *Repeat) (*ServeSweep, error) {
	if f.reset {
		if rep.Cache == CacheWarm {
			return nil, argErrorf("--reset-prefix-cache and --warm-cache: give one of them")
		}
		rep.Cache = CacheReset
	}
	if f.rates == "" && f.concurrencies == "" && !f.factor.Given() {
		if rep.Cache == CacheWarm && rep.Runs < 2 {
			return nil, argErrorf("--warm-cache needs --num-runs 2 or more, or --sweep-request-rate or --sweep-max-concurrency (a single run resets nothing)")
		}
		return nil, nil
	}
	sw := &ServeSweep{NumPromptsFactor: f.factor.Value(), Cache: rep.Cache}
	switch {
	case f.rates != "" && f.concurrencies != "":
		return nil, argErrorf("--sweep-request-rate and --sweep-max-concurrency: give one of them")
	case f.factor.Given() && f.concurrencies == "":
		return nil, argErrorf("--sweep-num-prompts-factor needs --sweep-max-concurrency")
	case f.factor.Given() && f.factor.Value() < 1:
		return nil, argErrorf("argument --sweep-num-prompts-factor: must be at least 1")
	}
	for _, item := range splitList(f.rates) {
		v, err := pyfmt.ParseFloat(item)
		if err != nil || !(v > 0) {
			return nil, argErrorf("argument --sweep-request-rate: invalid request rate %q (a positive number or inf)", item)
		}
		sw.Rates = append(sw.Rates, v)
	}
	for _, item := range splitList(f.concurrencies) {
		v, err := strconv.Atoi(item)
		if err != nil || v < 1 {
			return nil, argErrorf("argument --sweep-max-concurrency: invalid concurrency %q (a positive integer)", item)
		}
		sw.Concurrencies = append(sw.Concurrencies, v)
	}
	return sw, nil
}

// splitList is the comma-separated items of s, trimmed; none for "".
func splitList(s string) []string {
	if s == "" {
		return nil
	}
	items := strings.Split(s, ",")
	for i := range items {
		items[i] = strings.TrimSpace(items[i])
	}
	return items
}

// sweepPoint is one point: its label and its run's options.
type sweepPoint struct {
	label string
	opts  run.Options
}

// points are the runs of the sweep over base, each checked.
func (sw *ServeSweep) points(base run.Options) ([]sweepPoint, error) {
	var pts []sweepPoint
	for _, r := range sw.Rates {
		o := base
		o.Schedule.RequestRate = r
		pts = append(pts, sweepPoint{"rate=" + pyfmt.Float(r), o})
	}
	for _, c := range sw.Concurrencies {
		o := base
		o.MaxConcurrency = c
		if sw.NumPromptsFactor > 0 {
			o.NumPrompts = c * sw.NumPromptsFactor
		}
		pts = append(pts, sweepPoint{"concurrency=" + strconv.Itoa(c), o})
	}
	for i := range pts {
		o := &pts[i].opts
		o.SaveResult = true // each point is a result file
		if o.ResultFilename != "" && !o.AppendResult {
			ext := filepath.Ext(o.ResultFilename)
			o.ResultFilename = strings.TrimSuffix(o.ResultFilename, ext) + "-" + pts[i].label + ext
		}
		if err := o.Validate(); err != nil {
			return nil, fmt.Errorf("sweep point %s: %w", pts[i].label, err)
		}
	}
	return pts, nil
}

// runServeSweep runs the points one after the other against one server
// (the simulator is started once), each printed, judged and saved as a
// run of its own, each from a cold prefix cache (cacheGuard); then the
// table of the points goes to stdout and, as sweep-DATE.csv and .json,
// beside the results: in --result-dir, else in a folder sweep-DATE/ of
// their own rather than the working directory. An interrupt ends the
// sweep after the point it interrupted, whose result is saved as any
// interrupted run's; a failed threshold fails the sweep at its end.
func runServeSweep(ctx context.Context, deps *Deps, opts *ServeOptions, intr *interrupts) error {
	stamp := "sweep-" + deps.Now().Format("20060102-150405")
	base := opts.Run
	if base.ResultDir == "" && !base.DryRun {
		base.ResultDir = stamp // a sweep's files together, not scattered in the working directory
	}
	pts, err := opts.Sweep.points(base)
	if err != nil {
		return err
	}
	opts.Live.plan(len(pts))
	sg, err := opts.Gate.prepare(deps.Stderr)
	if err != nil {
		return err
	}
	rn, stopSim, err := startRunner(ctx, deps, simToStart(opts), opts.Live.env(intr.env(serveEnv(deps, sg))))
	if err != nil {
		return err
	}
	defer stopSim()
	var table []sweep.Point
	var gateErr error
	guard := &cacheGuard{mode: opts.Sweep.Cache, what: "point"}
	for i, p := range pts {
		fmt.Fprintf(deps.Stderr, "---- sweep point %d/%d: %s ----\n", i+1, len(pts), p.label)
		if err := guard.prepare(ctx, deps, runnerTarget(rn), &p.opts, i+1, true); err != nil {
			writeSweepTable(deps, opts.Gate.Format, base.ResultDir, stamp, table)
			return err
		}
		res, runErr := rn.Run(ctx, runner.Job{Options: p.opts})
		if res != nil && res.File != "" {
			fmt.Fprintf(deps.Stderr, "Saved the result to %s\n", res.File)
		}
		err := sg.finish(deps, res, runErr)
		if res != nil && res.Object != nil {
			table = append(table, sweep.Point{Label: p.label, Result: res.Object})
		}
		switch {
		case exitcode.Of(err) == exitcode.ThresholdFailed:
			gateErr = err
		case err != nil:
			writeSweepTable(deps, opts.Gate.Format, base.ResultDir, stamp, table)
			return err
		}
		if rn.Stopped() {
			break
		}
	}
	writeSweepTable(deps, opts.Gate.Format, base.ResultDir, stamp, table)
	return gateErr
}

// writeSweepTable prints the table of the points measured (not with
// --format json, whose standard output is one result object per line),
// saves it as name.csv and .json in dir, beside the results, and ends
// with the line that names the folder.
func writeSweepTable(deps *Deps, format, dir, name string, table []sweep.Point) {
	if len(table) == 0 {
		return
	}
	if format != "json" {
		fmt.Fprintln(deps.Stdout)
		sweep.WriteTable(deps.Stdout, "Sweep summary:", table)
	}
	paths, err := sweep.SaveTable(dir, name, table)
	if err != nil {
		fmt.Fprintf(deps.Stderr, "warning: %v\n", err)
		return
	}
	folder := dir
	if folder == "" {
		folder = "."
	}
	fmt.Fprintf(deps.Stderr, "The sweep's %d results and its table (%s) are in %s%c\n",
		len(table), strings.Join(relNames(dir, paths), ", "), folder, filepath.Separator)
}

// relNames are paths' names inside dir.
func relNames(dir string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if r, err := filepath.Rel(dir, p); err == nil && dir != "" {
			p = r
		}
		out[i] = p
	}
	return out
}

// sideTransport is the transport of a call beside the runs.
func sideTransport(deps *Deps, insecure bool) http.RoundTripper {
	if deps.Transport != nil {
		return deps.Transport(1, insecure)
	}
	return run.NewTransport(1, insecure)
}
