package sweep

import (
	"context"
	"io"
	"net/http"
	"time"
)

// Bench is one benchmark run of a sweep.
type Bench struct {
	// Params are the run's parameters under vLLM's names (num_prompts,
	// request_rate, ...), each a flag of the bench command to set: the
	// bench combination's (and its _benchmark_name, which is none), then
	// the sweep's own, percentile_metrics, save_result, result_dir and
	// result_filename, which say where the result file goes.
	Params Comb
	// Stdout receives what the run prints on its standard output.
	Stdout io.Writer
	// Index is the run's place in the sweep, from 0, the runs resumed
	// from their files counted too, so that a resumed sweep gives each
	// run the index it had.
	Index int
	// ResetsCaches tells that the sweep clears the server's caches after
	// each run itself (the server of --serve-cmd, or --after-bench-cmd);
	// otherwise the runner keeps the runs from each other's cache.
	ResetsCaches bool
}

// Runner carries out one benchmark run: the bench command's options with
// b.Params set, its result saved where they say. The cli passes one that
// parsed the bench command once and runs each run in this process as
// gobench serve runs it, so that no binary is needed, no second process
// competes with the client for the CPU, and the sweep's context (an
// interrupt, the exit of the sweep's server) reaches the run. A run that
// fails returns an error that carries its exit status.
type Runner func(ctx context.Context, b Bench) error

// Env is what a sweep needs of the process around it.
type Env struct {
	// Stdout gets the summary table (and, for --dry-run, the commands);
	// Stderr what the sweep is doing.
	Stdout, Stderr io.Writer
	// Run runs a benchmark command.
	Run Runner
	// Now is the wall clock; nil is time.Now.
	Now func() time.Time
	// HTTP checks the server's health and resets its caches; nil is a
	// client of its own.
	HTTP *http.Client
	// ReadyPoll is the pause between two health checks (vLLM's 1 s when
	// 0); StopGrace how long a server gets to exit after SIGTERM before
	// SIGKILL (10 s when 0).
	ReadyPoll, StopGrace time.Duration
}

func (e *Env) now() time.Time {
	if e.Now == nil {
		return time.Now()
	}
	return e.Now()
}

func (e *Env) httpClient() *http.Client {
	if e.HTTP == nil {
		return &http.Client{}
	}
	return e.HTTP
}

func (e *Env) readyPoll() time.Duration {
	if e.ReadyPoll <= 0 {
		return time.Second
	}
	return e.ReadyPoll
}

func (e *Env) stopGrace() time.Duration {
	if e.StopGrace <= 0 {
		return 10 * time.Second
	}
	return e.StopGrace
}
