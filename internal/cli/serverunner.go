package cli

import (
	"context"
	"fmt"

	"github.com/gobench/gobench/internal/run"
	"github.com/gobench/gobench/internal/runner"
	"github.com/gobench/gobench/internal/sim"
)

// startRunner is the runner of a command's serve runs in env, with the
// simulator of simCfg (when not nil) started once for all of them; stop
// shuts it down.
func startRunner(ctx context.Context, deps *Deps, simCfg *sim.Config, env run.Env) (rn *runner.Runner, stop func(), err error) {
	renv := runner.Env{Run: env}
	stop = func() {}
	if simCfg != nil {
		url, stopSim, err := startEmbeddedSim(ctx, deps, simCfg)
		if err != nil {
			return nil, nil, err
		}
		renv.ServerURL, renv.Run.ServerInProcess, stop = url, true, stopSim
	}
	return runner.New(renv), stop, nil
}

// simToStart is the simulator to start for so's runs: none without --sim,
// nor for a dry run, which sends nothing.
func simToStart(so *ServeOptions) *sim.Config {
	if so.Run.DryRun {
		return nil
	}
	return so.Sim
}

// serveEnv is the surroundings of serve's runs, their block drawn as the
// gate's --format says.
func serveEnv(deps *Deps, sg *serveGate) run.Env {
	return run.Env{Stdout: deps.Stdout, Stderr: deps.Stderr, Now: deps.Now, Getenv: deps.Getenv,
		Progress: deps.IsTerminal, Version: deps.Version, Transport: deps.Transport, Render: sg.renderer(deps)}
}

// serveRuns carries out the runs of a parsed serve command line but its
// short form of a sweep: one run (printed, reported, gated), or the set of
// --num-runs; res is the one run's result. intr gives the interrupt steps.
func serveRuns(ctx context.Context, deps *Deps, opts *ServeOptions, intr *interrupts) (*run.Result, error) {
	sg, err := opts.Gate.prepare(deps.Stderr)
	if err != nil {
		return nil, err
	}
	rn, stopSim, err := startRunner(ctx, deps, simToStart(opts), opts.Live.env(intr.env(serveEnv(deps, sg))))
	if err != nil {
		return nil, err
	}
	defer stopSim()
	if opts.Repeat.Runs > 1 {
		opts.Live.plan(opts.Repeat.Runs)
		return nil, runRepeated(ctx, deps, opts.Repeat, opts.Run, rn, sg)
	}
	job := runner.Job{Options: opts.Run}
	if opts.Repeat.Cache == CacheReset { // one run asked for a cold cache
		guard := &cacheGuard{mode: CacheReset, what: "run"}
		if err := guard.prepare(ctx, deps, runnerTarget(rn), &job.Options, 1, false); err != nil {
			return nil, err
		}
	}
	pending, err := opts.Report.prepare()
	if err != nil {
		return nil, err
	}
	res, err := rn.Run(ctx, job)
	if res != nil && res.File != "" {
		fmt.Fprintf(deps.Stderr, "Saved the result to %s\n", res.File)
	}
	o := rn.Options(job)
	if rerr := opts.Report.write(deps, &o, res, pending); rerr != nil && err == nil {
		err = rerr
	}
	return res, sg.finish(deps, res, err)
}
