// Package livemetrics is --metrics-listen: the client's side of a run as
// Prometheus metrics while it runs (histograms of TTFT, ITL, TPOT and
// E2EL, counters of requests, failures by kind and tokens, gauges of the
// requests in flight and queued and of the schedule lag), labelled with
// the run's label, model and backend, served through the Prometheus
// client library (text, OpenMetrics, or protobuf with native histograms
// when the scraper asks for them).
//
// The histograms and counters are fed once per request, at its
// completion, from what the run measured (package live): Prometheus'
// Observe and Add are atomic operations on handles bound to the run's
// labels when it starts, so the requests take no lock and allocate
// nothing for it.
package livemetrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Namespace prefixes every metric's name.
const Namespace = "gobench"

// Labels are the labels of every metric, in order: the run's --label, its
// model and its --backend.
var Labels = []string{"label", "model", "backend"}

// classicBuckets are the latency histograms' buckets for a scraper that
// asks for the text formats: from 1 ms to 5 min, about three per decade,
// so that TTFT and E2EL of a loaded server and the ITL of a fast one each
// have room; native histograms (factor 1.1) resolve far finer.
var classicBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 300}

// Exporter holds the metrics of every run of a command on one registry.
type Exporter struct {
	reg                                  *prometheus.Registry
	ttft, itl, tpot, e2el                *prometheus.HistogramVec
	sent, completed, inTokens, outTokens *prometheus.CounterVec
	failed                               *prometheus.CounterVec
	inFlight, queued, lag                *prometheus.GaugeVec
}

// New registers the metrics on a registry of their own (no process or Go
// collectors: a scrape shows the benchmark's figures only).
func New() *Exporter {
	e := &Exporter{reg: prometheus.NewRegistry()}
	e.ttft = e.histogram("ttft_seconds", "Time to first token of the successful requests.")
	e.itl = e.histogram("itl_seconds", "Inter-token latencies of the successful requests (each gap between two token events).")
	e.tpot = e.histogram("tpot_seconds", "Time per output token after the first, of the successful requests of more than one token.")
	e.e2el = e.histogram("e2el_seconds", "End-to-end latency of the successful requests.")
	e.sent = e.counter("requests_sent_total", "Requests sent (their concurrency slot taken).", Labels)
	e.completed = e.counter("requests_completed_total", "Requests that came back successful.", Labels)
	e.failed = e.counter("requests_failed_total", "Requests that failed, by kind (the result's failure_kinds).", append(Labels[:len(Labels):len(Labels)], "kind"))
	e.inTokens = e.counter("input_tokens_total", "Prompt tokens of the successful requests.", Labels)
	e.outTokens = e.counter("output_tokens_total", "Output tokens of the successful requests (usage.completion_tokens, else the token events).", Labels)
	e.inFlight = e.gauge("requests_in_flight", "Requests sent and not yet back.")
	e.queued = e.gauge("requests_queued", "Requests the schedule released that wait for a concurrency slot at the client.")
	e.lag = e.gauge("schedule_lag_seconds", "Schedule lag of the last request released: how late the client released it.")
	return e
}

// histogram registers a latency histogram: classic buckets and a native
// one at factor 1.1 (what a protobuf scrape gets).
func (e *Exporter) histogram(name, help string) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: name, Help: help,
		Buckets: classicBuckets, NativeHistogramBucketFactor: 1.1, NativeHistogramMaxBucketNumber: 160}, Labels)
	e.reg.MustRegister(h)
	return h
}

// counter registers a counter.
func (e *Exporter) counter(name, help string, labels []string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: name, Help: help}, labels)
	e.reg.MustRegister(c)
	return c
}

// gauge registers a gauge.
func (e *Exporter) gauge(name, help string) *prometheus.GaugeVec {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Name: name, Help: help}, Labels)
	e.reg.MustRegister(g)
	return g
}

// Handler serves the metrics: OpenMetrics or the text format as the
// scraper's Accept header asks, protobuf (native histograms) when it asks
// for that.
func (e *Exporter) Handler() http.Handler {
	return promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{EnableOpenMetrics: true})
}

// Gatherer is the registry, for the checks of what it holds.
func (e *Exporter) Gatherer() prometheus.Gatherer { return e.reg }

// Draws is false: the endpoint draws nothing on stderr.
func (e *Exporter) Draws() bool { return false }
