package livemetrics

import (
	"sync/atomic"

	"github.com/gobench/gobench/internal/live"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/prometheus/client_golang/prometheus"
)

// Watch binds the metrics to a run's labels, so that its requests only
// add to them.
func (e *Exporter) Watch(info live.Info) live.Run {
	l := []string{info.Label, info.Model, info.Backend}
	return &runMetrics{e: e, labels: l,
		ttft: e.ttft.WithLabelValues(l...), itl: e.itl.WithLabelValues(l...),
		tpot: e.tpot.WithLabelValues(l...), e2el: e.e2el.WithLabelValues(l...),
		sent: e.sent.WithLabelValues(l...), completed: e.completed.WithLabelValues(l...),
		inTokens: e.inTokens.WithLabelValues(l...), outTokens: e.outTokens.WithLabelValues(l...),
		inFlight: e.inFlight.WithLabelValues(l...), queued: e.queued.WithLabelValues(l...), lag: e.lag.WithLabelValues(l...),
	}
}

// runMetrics is one run's handles.
type runMetrics struct {
	e                                    *Exporter
	labels                               []string
	ttft, itl, tpot, e2el                prometheus.Observer
	sent, completed, inTokens, outTokens prometheus.Counter
	inFlight, queued, lag                prometheus.Gauge
	// pending counts the requests released and not yet sent, so that a
	// run that releases none (conversations) never takes queued below 0.
	pending atomic.Int64
}

// Released counts a request waiting for its slot, and its lag.
func (r *runMetrics) Released(lag float64) {
	r.pending.Add(1)
	r.queued.Inc()
	r.lag.Set(lag)
}

// Sent moves a request from queued to in flight.
func (r *runMetrics) Sent() {
	if r.pending.Add(-1) >= 0 {
		r.queued.Dec()
	} else {
		r.pending.Add(1)
	}
	r.sent.Inc()
	r.inFlight.Inc()
}

// Finished counts a request that came back.
func (r *runMetrics) Finished(out *metrics.Output, failure string) {
	r.inFlight.Dec()
	if !out.Success {
		// A failure's kind is looked up by name: a lock in the library,
		// on the failures only.
		r.e.failed.WithLabelValues(append(r.labels[:len(r.labels):len(r.labels)], failure)...).Inc()
		return
	}
	r.completed.Inc()
	r.inTokens.Add(float64(out.PromptLen))
	r.outTokens.Add(float64(live.OutputTokens(out)))
	r.ttft.Observe(out.TTFT)
	r.e2el.Observe(out.Latency)
	if v, ok := live.TPOT(out); ok {
		r.tpot.Observe(v)
	}
	for _, v := range out.ITL {
		r.itl.Observe(v)
	}
}

// Server: the server's gauges are the server's own metrics, scraped from
// it; the endpoint does not repeat them.
func (r *runMetrics) Server(running, waiting, kvUsage float64) {}

// End: the run's gauges go back to zero (its counters stay, as counters do).
func (r *runMetrics) End() {
	r.inFlight.Set(0)
	r.queued.Set(0)
}
