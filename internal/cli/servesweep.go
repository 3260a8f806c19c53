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
	"github.com/gobench/gobench/internal/serverapi"
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
	// ResetPrefixCache posts /reset_prefix_cache before each point.
	ResetPrefixCache bool
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
	s.boolean(&f.reset, "reset-prefix-cache", "POST the server's /reset_prefix_cache before each sweep point (vLLM serves it with VLLM_SERVER_DEV_MODE=1), so no point starts with another's cache.")
}

// options reads the flags: nil when none was given.
func (f *serveSweepFlags) options() (*ServeSweep, error) {
	if f.rates == "" && f.concurrencies == "" && !f.factor.Given() && !f.reset {
		return nil, nil
	}
	sw := &ServeSweep{NumPromptsFactor: f.factor.Value(), ResetPrefixCache: f.reset}
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

// points are the runs of the sweep over base, each checked; a sweep with
// no values (--reset-prefix-cache alone) is the one run.
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
	if len(pts) == 0 {
		return []sweepPoint{{"", base}}, nil
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
// run of its own; then the table of the points goes to stdout and, as
// sweep-DATE.csv and .json, beside the results. An interrupt ends the
// sweep after the point it interrupted, whose result is saved as any
// interrupted run's; a failed threshold fails the sweep at its end.
func runServeSweep(ctx context.Context, deps *Deps, opts *ServeOptions, intr *interrupts) error {
	pts, err := opts.Sweep.points(opts.Run)
	if err != nil {
		return err
	}
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
	for i, p := range pts {
		if p.label != "" {
			fmt.Fprintf(deps.Stderr, "---- sweep point %d/%d: %s ----\n", i+1, len(pts), p.label)
		}
		job := runner.Job{Options: p.opts}
		if err := opts.Sweep.resetCache(ctx, deps, rn.Options(job)); err != nil {
			return err
		}
		res, runErr := rn.Run(ctx, job)
		if res != nil && res.File != "" {
			fmt.Fprintf(deps.Stderr, "Saved the result to %s\n", res.File)
		}
		err := sg.finish(deps, res, runErr)
		if res != nil && res.Object != nil && p.label != "" {
			table = append(table, sweep.Point{Label: p.label, Result: res.Object})
		}
		switch {
		case exitcode.Of(err) == exitcode.ThresholdFailed:
			gateErr = err
		case err != nil:
			writeSweepTable(deps, opts, table)
			return err
		}
		if rn.Stopped() {
			break
		}
	}
	writeSweepTable(deps, opts, table)
	return gateErr
}

// resetCache posts /reset_prefix_cache to the server of o before a point,
// when --reset-prefix-cache asks for it.
func (sw *ServeSweep) resetCache(ctx context.Context, deps *Deps, o run.Options) error {
	if !sw.ResetPrefixCache || o.DryRun {
		return nil
	}
	c := &serverapi.Client{HTTP: &http.Client{Transport: sideTransport(deps, o.Insecure)}, BaseURL: o.ServerURL()}
	if err := c.ResetPrefixCache(ctx); err != nil {
		return fmt.Errorf("--reset-prefix-cache: %w", err)
	}
	return nil
}

// writeSweepTable prints the table of the points measured (not with
// --format json, whose standard output is one result object per line)
// and saves it beside the results.
func writeSweepTable(deps *Deps, opts *ServeOptions, table []sweep.Point) {
	if len(table) == 0 {
		return
	}
	if opts.Gate.Format != "json" {
		fmt.Fprintln(deps.Stdout)
		sweep.WriteTable(deps.Stdout, "Sweep summary:", table)
	}
	paths, err := sweep.SaveTable(opts.Run.ResultDir, "sweep-"+deps.Now().Format("20060102-150405"), table)
	if err != nil {
		fmt.Fprintf(deps.Stderr, "warning: %v\n", err)
		return
	}
	fmt.Fprintf(deps.Stderr, "Saved the sweep's table to %s\n", strings.Join(paths, " and "))
}

// sideTransport is the transport of a call beside the runs.
func sideTransport(deps *Deps, insecure bool) http.RoundTripper {
	if deps.Transport != nil {
		return deps.Transport(1, insecure)
	}
	return run.NewTransport(1, insecure)
}
