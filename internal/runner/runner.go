// Package runner carries out gobench serve runs for every command that
// makes them: serve itself, its --num-runs and --sweep-* modes, gobench
// sweep serve and serve_workload, and the search of gobench sweep
// serve_sla. A run goes in as typed options (run.Options) with where its
// result and transcript go, and comes out as its run.Result; no command
// line is read again between the commands and the run.
//
// What the runs of one command share (the writers, the clock, the
// transport, the interrupt steps, the server started for them) is the
// Runner's Env; what differs from run to run is the Job.
package runner

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/gobench/gobench/internal/run"
)

// Env is what every run of a Runner shares.
type Env struct {
	// Run is the runs' surroundings: writers, clock, transport, version,
	// environment, how the block is drawn, and the interrupt steps (Stop,
	// Quick, Abort). A Job may replace its writers and its Stop.
	Run run.Env
	// ServerURL, when set, is the server every run is sent to, whatever
	// its options' base URL: the simulator started for the runs.
	ServerURL string
	// AbortWait bounds the wait for a run to save after the third
	// interrupt (Run.Abort closed); DefaultAbortWait when 0.
	AbortWait time.Duration
}

// DefaultAbortWait bounds how long the third interrupt waits for the run
// to save what it measured.
const DefaultAbortWait = 5 * time.Second

// Job is one run.
type Job struct {
	// Options are the run's settings; run checks them (Options.Validate)
	// before anything is sent.
	Options run.Options
	// Heading, when set, is printed on a line of its own on Env's Stderr
	// before the run: which run of several this is.
	Heading string
	// ResultPath, when set, is the file the result is saved to: its
	// folder and name replace the options' --result-dir and
	// --result-filename, and the result is saved.
	ResultPath string
	// Transcript, when set, receives everything the run prints (its
	// standard output and error) instead of Env's writers.
	Transcript io.Writer
	// Stdout, when set (and Transcript is not), receives the run's
	// standard output instead of Env's.
	Stdout io.Writer
	// Stop, when set, replaces Env's first interrupt step for this run,
	// with Quick telling whether it asks for a quick end (a search's time
	// budget running out).
	Stop  <-chan struct{}
	Quick func() bool
}

// Runner carries out Jobs, one at a time.
type Runner struct {
	env Env
}

// New is a Runner of env.
func New(env Env) *Runner {
	if env.AbortWait <= 0 {
		env.AbortWait = DefaultAbortWait
	}
	return &Runner{env: env}
}

// Options are j's run options as the Runner carries them out: sent to its
// server, saved at j.ResultPath.
func (r *Runner) Options(j Job) run.Options {
	o := j.Options
	if r.env.ServerURL != "" {
		o.BaseURL = r.env.ServerURL
	}
	if j.ResultPath != "" {
		o.SaveResult = true
		o.ResultDir, o.ResultFilename = filepath.Dir(j.ResultPath), filepath.Base(j.ResultPath)
	}
	return o
}

// runEnv is the run environment of j: the Runner's, with the job's writers
// and stop.
func (r *Runner) runEnv(j Job) run.Env {
	env := r.env.Run
	switch {
	case j.Transcript != nil:
		env.Stdout, env.Stderr = j.Transcript, j.Transcript
	case j.Stdout != nil:
		env.Stdout = j.Stdout
	}
	if j.Stop != nil {
		env.Stop, env.Quick = j.Stop, j.Quick
	}
	return env
}

// Run carries out j (run.Serve) and returns its result, which comes with
// an error too when the run was interrupted or every request failed.
// After the third interrupt it waits at most AbortWait for the run to
// save.
func (r *Runner) Run(ctx context.Context, j Job) (*run.Result, error) {
	if j.Heading != "" && r.env.Run.Stderr != nil {
		fmt.Fprintln(r.env.Run.Stderr, j.Heading)
	}
	o, env := r.Options(j), r.runEnv(j)
	type outcome struct {
		res *run.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := run.Serve(ctx, o, env)
		done <- outcome{res, err}
	}()
	select {
	case out := <-done:
		return out.res, out.err
	case <-r.env.Run.Abort:
	}
	select {
	case out := <-done:
		return out.res, out.err
	case <-time.After(r.env.AbortWait):
		return nil, fmt.Errorf("the run did not save within %s of the third interrupt: %w", r.env.AbortWait, run.ErrInterrupted)
	}
}

// Stopped reports whether the first interrupt came: a command that makes
// several runs ends after the one it stopped.
func (r *Runner) Stopped() bool {
	select {
	case <-r.env.Run.Stop:
		return true
	default:
		return false
	}
}
