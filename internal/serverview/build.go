// Package serverview is the "Server view" of a gobench serve run: the
// server's own account of the run from its Prometheus /metrics (package
// diagnose: quantiles, ratios, gauges, the five questions and a verdict),
// put beside the client's figures, with what explains the gap between them,
// and the state gauges sampled over the run. It builds the result file's
// server_view object and draws it from that object, so that a saved run
// (gobench analyze) prints exactly what the run printed.
package serverview

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/gobench/gobench/internal/diagnose"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyjson"
	sm "github.com/gobench/gobench/internal/servermetrics"
)

// Client is what the client measured that the server view compares: the
// run's per-request records and what shapes its inter-token latency.
type Client struct {
	// Result is the run's metrics (its Outputs are the requests sent).
	Result *metrics.Result
	// MaxConcurrency is --max-concurrency (0: none): the client's own
	// queue is then outside its TTFT.
	MaxConcurrency int
	// SpecAcceptanceLength is vLLM's speculative-decoding acceptance
	// length over the run (0 when the server has none).
	SpecAcceptanceLength float64
}

// Sample is one reading of the state gauges during the run, At seconds
// after the run's first scrape.
type Sample = diagnose.State

// Build is the server_view object: rep's object (the schema of gobench
// diagnose --format json) plus client_vs_server (Compare) and timeline
// (the sampled gauges, in columns).
func Build(rep *diagnose.Report, c Client, samples []Sample) *pyjson.Object {
	o := rep.Object()
	rows := Compare(rep, c)
	cmp := make([]*pyjson.Object, 0, len(rows))
	for _, r := range rows {
		cmp = append(cmp, r.object())
	}
	o.Set("client_vs_server", cmp)
	o.Set("timeline", timeline(samples))
	if n := otherTraffic(rep, c); n != "" {
		notes, _ := o.Get("notes")
		list, _ := notes.([]string)
		o.Set("notes", append(list, n))
	}
	return o
}

// otherTraffic says when the server finished more requests in the window
// than the client sent: another client shares the server, and the
// server's figures include its requests.
func otherTraffic(rep *diagnose.Report, c Client) string {
	if c.Result == nil || math.IsNaN(rep.Ratios.Finished) {
		return ""
	}
	sent := len(c.Result.Outputs)
	if rep.Ratios.Finished <= float64(sent) {
		return ""
	}
	return fmt.Sprintf("the server finished %.0f requests during the run and this run sent %d: other traffic shares the server, and the server's figures include it", rep.Ratios.Finished, sent)
}

// timeline is the samples in columns: t (seconds), running, waiting,
// kv_cache_usage_perc (the highest engine's) and preemptions (counted from
// the first sample, so the column starts at 0), null where a gauge was
// absent.
func timeline(samples []Sample) *pyjson.Object {
	t := make([]any, len(samples))
	running, waiting, kv := make([]any, len(samples)), make([]any, len(samples)), make([]any, len(samples))
	preempted := make([]any, len(samples))
	base := math.NaN()
	for i, s := range samples {
		t[i] = math.Round(s.At*1000) / 1000
		running[i], waiting[i], kv[i] = finite(s.Running), finite(s.Waiting), finite(s.KVMax)
		if math.IsNaN(base) {
			base = s.Preemptions
		}
		preempted[i] = finite(s.Preemptions - base)
	}
	o := pyjson.NewObject()
	o.Set("t", t)
	o.Set("running", running)
	o.Set("waiting", waiting)
	o.Set("kv_cache_usage_perc", kv)
	o.Set("preemptions", preempted)
	return o
}

// finite is v, or nil (JSON null) when v is NaN or infinite.
func finite(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

// Figures are one side's statistics of a metric, in seconds: the mean and
// the p50 and p99 (the server's from its histogram: estimates).
type Figures struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
}

// Row compares one metric as the client and the server measured it.
type Row struct {
	// Metric is ttft, itl, tpot, e2el or queue.
	Metric string `json:"metric"`
	// ServerMetric is the vLLM histogram the server side comes from.
	ServerMetric string `json:"server_metric"`
	// Client and Server are nil when that side did not measure it.
	Client *Figures `json:"client"`
	Server *Figures `json:"server"`
	// Gap is the client's mean minus the server's (seconds); nil unless
	// both sides are known and measure the same interval.
	Gap *float64 `json:"gap_mean"`
	// Why says what the gap is made of.
	Why string `json:"why"`
}

// object is r as an ordered JSON object.
func (r Row) object() *pyjson.Object {
	b, err := json.Marshal(r)
	if err != nil {
		panic(fmt.Sprintf("serverview: %v", err)) // plain fields: cannot fail
	}
	o, err := pyjson.DecodeObject(b)
	if err != nil {
		panic(fmt.Sprintf("serverview: %v", err))
	}
	return o
}

// clientFigures summarises xs (seconds); nil when empty.
func clientFigures(xs []float64) *Figures {
	if len(xs) == 0 {
		return nil
	}
	// The mean first: its pairwise sum follows the samples' order, which
	// the in-place sort then changes (xs is clientLists' own copy).
	mean := metrics.Mean(xs)
	p := metrics.PercentilesInPlace(xs, 50, 99)
	return &Figures{Mean: mean, P50: p[0], P99: p[1]}
}

// serverFigures reads metric's row of rep; nil when the server has none.
func serverFigures(rep *diagnose.Report, metric string) *Figures {
	for _, row := range rep.Rows {
		if row.Metric == metric && row.Count > 0 {
			return &Figures{Mean: row.Mean, P50: row.P[0].Value, P99: row.P[3].Value}
		}
	}
	return nil
}

// Compare lines up the client's and the server's figures of TTFT, ITL,
// TPOT, E2E latency and queue time, each with the reason they differ
// (why.go).
func Compare(rep *diagnose.Report, c Client) []Row {
	lists := clientLists(c.Result)
	specs := []struct{ metric, server string }{
		{"ttft", sm.TTFT}, {"itl", sm.ITL}, {"tpot", sm.TPOT}, {"e2el", sm.E2E}, {"queue", sm.Queue},
	}
	rows := make([]Row, 0, len(specs))
	for _, s := range specs {
		r := Row{Metric: s.metric, ServerMetric: s.server, Client: clientFigures(lists[s.metric]), Server: serverFigures(rep, s.server)}
		if r.Client == nil && r.Server == nil {
			continue
		}
		// The two queues are different waits (why.go): no gap between them.
		if r.Client != nil && r.Server != nil && !math.IsNaN(r.Server.Mean) && s.metric != "queue" {
			g := r.Client.Mean - r.Server.Mean
			r.Gap = &g
		}
		r.Why = why(r, c, rep)
		rows = append(rows, r)
	}
	return rows
}

// clientLists are the client's per-request samples (seconds) of the
// successful requests: TTFT, every inter-token gap, TPOT (requests with
// more than one token), E2E latency, and the client's queue time.
func clientLists(r *metrics.Result) map[string][]float64 {
	out := map[string][]float64{}
	if r == nil {
		return out
	}
	// The gaps of a long run are most of its samples: their list is
	// allocated once at its size instead of grown (a grown slice may hold
	// up to twice its length).
	gaps := 0
	for _, o := range r.Outputs {
		if o.Success {
			gaps += len(o.ITL)
		}
	}
	out["itl"] = make([]float64, 0, gaps)
	for i, o := range r.Outputs {
		if !o.Success {
			continue
		}
		out["ttft"] = append(out["ttft"], o.TTFT)
		out["itl"] = append(out["itl"], o.ITL...)
		out["e2el"] = append(out["e2el"], o.Latency)
		if n := r.ActualOutputLens[i]; n > 1 {
			out["tpot"] = append(out["tpot"], (o.Latency-o.TTFT)/float64(n-1))
		}
		if r.MaxConcurrency > 0 {
			out["queue"] = append(out["queue"], o.ClientQueueTime)
		}
	}
	return out
}
