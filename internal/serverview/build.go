// Package serverview is the "Server view" of a gobench serve run: the
// server's own account of the run from its Prometheus /metrics (package
// diagnose: the engine, quantiles, ratios, gauges, the five questions and a
// verdict), put beside the client's figures, with what explains the gap
// between them, and the state gauges sampled over the run. Besides the
// engine's histograms, the server's own per-request times (llama.cpp's
// timings) are compared with the client's, request by request. It builds
// the result file's server_view object and draws it from that object, so
// that a saved run (gobench analyze) prints exactly what the run printed.
// No figure in the object is NaN or infinite: an unknown one is null.
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
		t[i] = finite(math.Round(s.At*1000) / 1000)
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
// the p50 and p99 (the server's from its histogram: estimates). NaN is a
// figure that is not known, written as null.
type Figures struct {
	Mean float64
	P50  float64
	P99  float64
}

// object is f as a JSON object, null for a figure that is not known.
func (f *Figures) object() any {
	if f == nil {
		return nil
	}
	o := pyjson.NewObject()
	o.Set("mean", finite(f.Mean))
	o.Set("p50", finite(f.P50))
	o.Set("p99", finite(f.P99))
	return o
}

// UnmarshalJSON reads the object back, a null figure as NaN.
func (f *Figures) UnmarshalJSON(b []byte) error {
	var raw struct{ Mean, P50, P99 *float64 }
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("server view figures: %w", err)
	}
	nan := func(v *float64) float64 {
		if v == nil {
			return math.NaN()
		}
		return *v
	}
	*f = Figures{Mean: nan(raw.Mean), P50: nan(raw.P50), P99: nan(raw.P99)}
	return nil
}

// Row compares one metric as the client and the server measured it.
type Row struct {
	// Metric is ttft, itl, tpot, e2el or queue (the server's histogram
	// beside the client's figure of the same name), or prefill and decode
	// (the server's own per-request times beside the client's TTFT and
	// E2E - TTFT).
	Metric string `json:"metric"`
	// ServerMetric is the metric the server side comes from: the engine's
	// histogram, or the per-request field; "" when the engine has none.
	ServerMetric string `json:"server_metric"`
	// ServerSource says what kind of figure the server side is.
	ServerSource string `json:"server_source"`
	// Client and Server are nil when that side did not measure it.
	Client *Figures `json:"client"`
	Server *Figures `json:"server"`
	// Gap is the client's mean minus the server's (seconds); nil unless
	// both sides are known and measure the same interval.
	Gap *float64 `json:"gap_mean"`
	// Why says what the gap is made of.
	Why string `json:"why"`
}

// Where the server side of a row comes from.
const (
	// SourceHistogram: the engine's histogram in /metrics (estimates).
	SourceHistogram = "histogram"
	// SourceTimings: the server's own times in each answer (exact).
	SourceTimings = "llama.cpp timings, per request"
)

// object is r as an ordered JSON object; a figure that is not known is
// null.
func (r Row) object() *pyjson.Object {
	o := pyjson.NewObject()
	o.Set("metric", r.Metric)
	o.Set("server_metric", r.ServerMetric)
	o.Set("server_source", r.ServerSource)
	o.Set("client", r.Client.object())
	o.Set("server", r.Server.object())
	if r.Gap != nil {
		o.Set("gap_mean", finite(*r.Gap))
	} else {
		o.Set("gap_mean", nil)
	}
	o.Set("why", r.Why)
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

// serverFigures reads the row of role of rep; nil when the server has
// none.
func serverFigures(rep *diagnose.Report, role sm.Role) (*Figures, *diagnose.Row) {
	for _, row := range rep.Rows {
		if row.Role == role && row.Count > 0 {
			return &Figures{Mean: row.Mean, P50: row.P[0].Value, P99: row.P[3].Value}, row
		}
	}
	return nil, nil
}

// Compare lines up the client's and the server's figures of TTFT, ITL,
// TPOT, E2E latency and queue time (the engine's histograms), then the
// server's own per-request prefill and decode times beside the client's
// (timingRows), each with the reason they differ (why.go).
func Compare(rep *diagnose.Report, c Client) []Row {
	lists := clientLists(c.Result)
	specs := []struct {
		metric string
		role   sm.Role
	}{
		{"ttft", sm.RoleTTFT}, {"itl", sm.RoleITL}, {"tpot", sm.RoleTPOT}, {"e2el", sm.RoleE2E}, {"queue", sm.RoleQueue},
	}
	rows := make([]Row, 0, len(specs)+2)
	for _, s := range specs {
		h, _ := rep.Engine.Hist(s.role)
		server, row := serverFigures(rep, s.role)
		r := Row{Metric: s.metric, ServerMetric: h.Name, ServerSource: SourceHistogram, Client: clientFigures(lists[s.metric]), Server: server}
		if r.Client == nil && r.Server == nil {
			continue
		}
		// The two queues are different waits (why.go), and an engine's
		// interval may differ from the client's: no gap between them.
		if r.Client != nil && r.Server != nil && s.metric != "queue" && (row == nil || row.Differs == "") {
			r.Gap = gap(r.Client.Mean, r.Server.Mean)
		}
		r.Why = why(r, c, rep, row)
		rows = append(rows, r)
	}
	return append(rows, timingRows(c)...)
}

// gap is a - b, nil when it is not a finite number.
func gap(a, b float64) *float64 {
	g := a - b
	if math.IsNaN(g) || math.IsInf(g, 0) {
		return nil
	}
	return &g
}

// timingRows put the server's own per-request times (llama.cpp's
// timings.prompt_ms and predicted_ms, in the records as ServerPromptTime
// and ServerDecodeTime) beside the client's TTFT and decode time (E2E -
// TTFT) of the same requests: exact on both sides, so the gap is what
// lies outside the server's prefill and generation.
func timingRows(c Client) []Row {
	var ttft, prompt, decodeClient, decodeServer []float64
	if c.Result != nil {
		for _, o := range c.Result.Outputs {
			if !o.Success {
				continue
			}
			if o.ServerPromptTime != nil {
				ttft, prompt = append(ttft, o.TTFT), append(prompt, *o.ServerPromptTime)
			}
			if o.ServerDecodeTime != nil {
				decodeClient, decodeServer = append(decodeClient, o.Latency-o.TTFT), append(decodeServer, *o.ServerDecodeTime)
			}
		}
	}
	var rows []Row
	for _, t := range []struct {
		metric, field  string
		client, server []float64
	}{{"prefill", "timings.prompt_ms", ttft, prompt}, {"decode", "timings.predicted_ms", decodeClient, decodeServer}} {
		if len(t.server) == 0 {
			continue
		}
		r := Row{Metric: t.metric, ServerMetric: t.field, ServerSource: SourceTimings, Client: clientFigures(t.client), Server: clientFigures(t.server)}
		r.Gap = gap(r.Client.Mean, r.Server.Mean)
		r.Why = timingWhy(r.Metric, c)
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
