package cli

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/gobench/gobench/internal/atomicfile"
	"github.com/gobench/gobench/internal/capacity"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/run"
	"github.com/gobench/gobench/internal/runner"
)

// slaSummaryFile is the search's JSON file in the output directory.
const slaSummaryFile = "sla.json"

// runSLA starts the simulator once when the serve line asks for it, runs
// the search, prints its table and writes sla.json, also after an error or
// an interrupt (the points measured are kept).
func runSLA(ctx context.Context, deps *Deps, o *SLAOptions, intr *interrupts) error {
	if err := os.MkdirAll(o.OutputDir, 0o755); err != nil {
		return argErrorf("argument --output-dir: %v", err)
	}
	stopLive, err := o.Serve.Live.start(deps, o.Serve.Run.DisableProgress)
	if err != nil {
		return err
	}
	defer stopLive()
	rn, stopSim, err := startRunner(ctx, deps, o.Serve.Sim, o.Serve.Live.env(run.Env{Now: deps.Now, Getenv: deps.Getenv,
		Version: deps.Version, Transport: deps.Transport, Abort: intr.abort}))
	if err != nil {
		return err
	}
	defer stopSim()
	cfg := o.Search
	cfg.Progress = deps.Stderr
	pr := &slaPointRunner{rn: rn, base: o.Serve.Run, dir: o.OutputDir, variable: cfg.Variable, intr: intr,
		deps: deps, cache: &cacheGuard{mode: o.Serve.Repeat.Cache, what: "point"}}
	res, err := capacity.Search(ctx, cfg, pr.run)
	if res == nil {
		return err
	}
	if werr := capacity.WriteTable(deps.Stdout, res); werr != nil && err == nil {
		err = werr
	}
	path := filepath.Join(o.OutputDir, slaSummaryFile)
	if werr := writePythonJSON(path, capacity.Object(res)); werr != nil && err == nil {
		err = werr
	} else if werr == nil {
		fmt.Fprintf(deps.Stderr, "Saved the search to %s\n", path)
	}
	if err == nil && res.Stop == capacity.StopInterrupted {
		err = run.ErrInterrupted
	}
	return err
}

// writePythonJSON replaces path with o as Python's json.dump writes it.
func writePythonJSON(path string, o *pyjson.Object) error {
	b, err := pyjson.AppendPython(nil, o)
	if err != nil {
		return err
	}
	p, err := atomicfile.Prepare(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		return err
	}
	return p.Replace(path, append(b, '\n'))
}

// slaPointRunner runs the search's points: the serve line's run with the
// point's load and requests, saved with per-request data in its own
// directory, its transcript in a log file beside the result.
type slaPointRunner struct {
	rn       *runner.Runner
	base     run.Options
	dir      string
	variable capacity.Variable
	intr     *interrupts
	deps     *Deps
	// cache keeps each point from the cache of the points before it;
	// runs counts the points run, its k.
	cache *cacheGuard
	runs  int
}

// options are the run options of point p.
func (r *slaPointRunner) options(p capacity.Point) run.Options {
	o := r.base
	o.NumPrompts = p.Requests
	value := strconv.FormatFloat(p.Value, 'f', -1, 64)
	if r.variable == capacity.MaxConcurrency {
		o.MaxConcurrency = int(p.Value)
	} else {
		o.Schedule.RequestRate = p.Value
		if math.IsInf(p.Value, 1) {
			value = "inf"
		}
	}
	o.SaveResult, o.SaveDetailed, o.AppendResult = true, true, false
	o.ResultDir = filepath.Join(r.dir, string(r.variable)+"="+value)
	o.ResultFilename = "run=" + strconv.Itoa(p.Attempt) + ".json"
	o.DisableProgress, o.ProgressInterval = true, 0
	return o
}

// run carries out point p: a run cut by the budget's deadline or an
// interrupt is reported Cut; one in which every request failed is a
// measurement (every request misses the objectives); any other error ends
// the search.
func (r *slaPointRunner) run(ctx context.Context, p capacity.Point) (*capacity.Measurement, error) {
	o := r.options(p)
	r.runs++
	if err := r.cache.prepare(ctx, r.deps, runnerTarget(r.rn), &o, r.runs, true); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.ResultDir, 0o755); err != nil {
		return nil, err
	}
	logPath := filepath.Join(o.ResultDir, "run="+strconv.Itoa(p.Attempt)+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	stop, quick, release := pointStop(r.intr, p.Deadline)
	defer release()
	res, err := r.rn.Run(ctx, runner.Job{Options: o, Transcript: logFile, Stop: stop, Quick: quick})
	switch {
	case errors.Is(err, run.ErrInterrupted):
		m := &capacity.Measurement{Cut: true}
		if res != nil {
			m.Metrics, m.File = res.Metrics, res.File
		}
		return m, nil
	case errors.Is(err, run.ErrAllFailed) && res != nil, err == nil && res != nil:
		return &capacity.Measurement{Metrics: res.Metrics, File: res.File}, nil
	case err == nil:
		err = errors.New("the run returned no result")
	}
	return nil, fmt.Errorf("%w (its transcript: %s)", err, logPath)
}

// pointStop is the stop signal of one point: the user's interrupt, or the
// time budget's deadline (which asks for a quick end: requests in flight
// get run.QuickGrace). release frees the watchers.
func pointStop(intr *interrupts, deadline time.Time) (<-chan struct{}, func() bool, func()) {
	stop, done := make(chan struct{}), make(chan struct{})
	var once sync.Once
	var byDeadline bool
	var mu sync.Mutex
	fire := func(deadline bool) {
		once.Do(func() {
			mu.Lock()
			byDeadline = deadline
			mu.Unlock()
			close(stop)
		})
	}
	var timer *time.Timer
	if !deadline.IsZero() {
		timer = time.AfterFunc(time.Until(deadline), func() { fire(true) })
	}
	go func() {
		select {
		case <-intr.stop:
			fire(false)
		case <-done:
		}
	}()
	quick := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return byDeadline || intr.quick.Load()
	}
	release := func() {
		if timer != nil {
			timer.Stop()
		}
		close(done)
	}
	return stop, quick, release
}
