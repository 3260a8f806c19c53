// Package live follows a run while it runs: what the run tells at each
// request's release, send and completion (Run), for the terminal's live
// view (Collector, Window) and the Prometheus endpoint (livemetrics).
//
// Nothing here is on the per-chunk path: a run feeds it from figures it
// measured already, once per request, and the feeding takes no lock and
// allocates nothing (atomic counters and fixed histograms), so that
// watching a run does not change what it measures.
package live

import (
	"time"

	"github.com/gobench/gobench/internal/metrics"
)

// Info is what a run tells of itself when it starts.
type Info struct {
	// Label is --label (the result's label), Model the served model,
	// Backend --backend.
	Label, Model, Backend string
	// Total is the number of requests the run plans to send.
	Total int
	// Offsets are the requests' scheduled arrivals in seconds from the
	// start, in order (the target rate is read from them); nil when the
	// schedule is not known ahead (conversations).
	Offsets []float64
	// RequestRate is --request-rate (+Inf: all at once); MaxConcurrency
	// --max-concurrency (0: none).
	RequestRate    float64
	MaxConcurrency int
	// Duration is --duration (0: none): a time-based run's bar fills with
	// the time, the requests it will send not being known ahead.
	Duration time.Duration
}

// Watcher is told of each run of a command (a sweep's points, the runs of
// --num-runs): Watch returns what receives that run's events.
type Watcher interface {
	Watch(info Info) Run
	// Draws tells that the watcher draws on stderr while a run runs, in
	// place of the progress bar.
	Draws() bool
}

// Run receives one run's events, from many goroutines at once. Its
// methods must not block, take a lock or allocate on the success path:
// they run on the request goroutines.
type Run interface {
	// Released: a request left the schedule lag seconds late, and waits
	// for a concurrency slot.
	Released(lag float64)
	// Sent: a request is being sent (its slot taken).
	Sent()
	// Finished: a request came back; failure is the kind of its failure
	// ("" when it succeeded).
	Finished(out *metrics.Output, failure string)
	// Server: the server's state gauges at a scrape of its /metrics
	// (NaN when it publishes one not).
	Server(running, waiting, kvUsage float64)
	// End: the run sent its last request and every answer came back.
	End()
}

// Planner is a watcher told how many runs a command plans (a sweep's
// points, --num-runs), so that it can say "run 2 of 5".
type Planner interface {
	Plan(runs int)
}

// Plan tells each watcher that plans.
func (ws Watchers) Plan(runs int) {
	for _, w := range ws {
		if p, ok := w.(Planner); ok {
			p.Plan(runs)
		}
	}
}

// Watchers is several watchers as one: every run goes to each.
type Watchers []Watcher

// Watch starts the run with each watcher.
func (ws Watchers) Watch(info Info) Run {
	runs := make(Runs, 0, len(ws))
	for _, w := range ws {
		runs = append(runs, w.Watch(info))
	}
	return runs
}

// Draws tells that one of the watchers draws.
func (ws Watchers) Draws() bool {
	for _, w := range ws {
		if w.Draws() {
			return true
		}
	}
	return false
}

// Runs is several runs as one.
type Runs []Run

// Released tells each run.
func (rs Runs) Released(lag float64) {
	for _, r := range rs {
		r.Released(lag)
	}
}

// Sent tells each run.
func (rs Runs) Sent() {
	for _, r := range rs {
		r.Sent()
	}
}

// Finished tells each run.
func (rs Runs) Finished(out *metrics.Output, failure string) {
	for _, r := range rs {
		r.Finished(out, failure)
	}
}

// Server tells each run.
func (rs Runs) Server(running, waiting, kvUsage float64) {
	for _, r := range rs {
		r.Server(running, waiting, kvUsage)
	}
}

// End ends each run.
func (rs Runs) End() {
	for _, r := range rs {
		r.End()
	}
}

// OutputTokens is what a successful request adds to the output tokens:
// usage.completion_tokens, or its token events when the server sent no
// usage (the result counts those with the tokenizer afterwards, too
// costly here), as the progress bar counts them.
func OutputTokens(out *metrics.Output) int {
	if out.OutputTokens > 0 {
		return out.OutputTokens
	}
	return 1 + len(out.ITL)
}

// TPOT is a successful request's time per output token after the first
// (vLLM's tpot), and whether it has one: a request of one token has none.
func TPOT(out *metrics.Output) (float64, bool) {
	n := OutputTokens(out)
	if n <= 1 {
		return 0, false
	}
	return (out.Latency - out.TTFT) / float64(n-1), true
}
