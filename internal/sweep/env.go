package sweep

import (
	"context"
	"io"
	"net/http"
	"time"
)

// Runner runs one gobench command line in-process: args without the
// program name ("serve", "--model", ...), its standard output to stdout.
// The cli passes one that calls its own Main, so that a sweep's benchmark
// runs are gobench serve runs exactly, with no binary to find, no second
// process competing with the client for the CPU, and the sweep's context
// (an interrupt) reaching the run. A run that fails returns an error that
// carries its exit status.
type Runner func(ctx context.Context, args []string, stdout io.Writer) error

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
