package htmlreport

import (
	"fmt"
	"math"
	"sort"

	"github.com/gobench/gobench/internal/pyjson"
)

// histogramBins is the number of equal-width bins of every histogram.
const histogramBins = 60

// sloColor is the palette index of the goodput SLO marks (report.js draws
// it red).
const sloColor = -1

// logTail is how many times the median the largest value must be for a
// distribution to be drawn on a log axis: on a linear axis of
// histogramBins bins, half the values would then share the first three
// bins, and the histogram would be one spike.
const logTail = 20

// logAxis reports whether the runs' values of one metric go on a log
// axis: every value positive and the largest at least logTail times the
// median of the pooled values.
func logAxis(lists [][]float64) bool {
	var all []float64
	for _, v := range lists {
		all = append(all, v...)
	}
	if len(all) == 0 {
		return false
	}
	sorted := append([]float64(nil), all...)
	sort.Float64s(sorted)
	median := sorted[len(sorted)/2]
	return sorted[0] > 0 && sorted[len(sorted)-1] >= logTail*median
}

// distributionCharts are the histogram and the CDF of each latency metric,
// the runs overlaid, with the printed percentiles and the SLOs marked.
func distributionCharts(runs []*runData) []*chart {
	var out []*chart
	for _, m := range latencyMetrics {
		var lists [][]float64
		for _, d := range runs {
			if v := d.values(m.key); len(v) > 0 {
				lists = append(lists, v)
			}
		}
		if len(lists) == 0 {
			continue
		}
		h, c := distribution(runs, m.key, m.title, logAxis(lists))
		out = append(out, h, c)
	}
	return out
}

// distribution is one metric's histogram (bars over shared bins,
// log-spaced on a log axis) and CDF.
func distribution(runs []*runData, key, title string, log bool) (h, c *chart) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, d := range runs {
		for _, v := range d.values(key) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	var hists, cdfs []raw
	var marks []mark
	for _, d := range runs {
		v := d.values(key)
		if len(v) == 0 {
			continue
		}
		edges, counts := Histogram(v, lo, hi, histogramBins)
		if log {
			edges, counts = LogHistogram(v, lo, hi, histogramBins)
		}
		hists = append(hists, raw{label: d.label, color: d.color, x: edges, y: append(counts, math.NaN())})
		x, y := CDF(v, MaxPoints)
		cdfs = append(cdfs, raw{label: d.label, color: d.color, x: x, y: y})
		for _, p := range percentiles(d.run, key) {
			p.Color = d.color
			if len(runs) > 1 {
				p.Label = d.label + " " + p.Label
			}
			marks = append(marks, p)
		}
	}
	marks = append(marks, sloMarks(runs, key)...)
	h = newChart("hist-"+key, title+" histogram", kindBars, title+" (ms)", "requests", hists)
	c = newChart("cdf-"+key, title+" CDF", kindLine, title+" (ms)", "share of requests", cdfs)
	if key == "itl" {
		h.YLabel = "tokens"
		c.YLabel = "share of tokens"
	}
	if log {
		h.Title += " (log axis: a long tail)"
		c.Title += " (log axis)"
	}
	h.Marks, c.Marks = marks, marks
	h.XLog, c.XLog = log, log
	return h, c
}

// sloMarks are the goodput SLOs of metric, once per distinct value.
func sloMarks(runs []*runData, metric string) []mark {
	var out []mark
	seen := map[float64]bool{}
	for _, d := range runs {
		if v, ok := goodputSLOs(d.run)[metric]; ok && !seen[v] {
			seen[v] = true
			out = append(out, mark{X: v, Label: "SLO " + fmt.Sprintf("%g", v), Color: sloColor, Dash: true})
		}
	}
	return out
}

// timeCharts are the charts over the run's time: requests in flight,
// output tokens per second, the schedule lag and the server's gauges.
func timeCharts(runs []*runData) []*chart {
	var inflight, tokens, lags, gauges, kv, preempted []raw
	for _, d := range runs {
		if !d.detailed || !d.hasStarts {
			continue
		}
		x, y := inFlight(d.requests)
		x, y = MinMax(x, y, MaxPoints)
		inflight = append(inflight, raw{label: d.label, color: d.color, x: x, y: y})
		x, y = tokenRate(d.requests)
		tokens = append(tokens, raw{label: d.label, color: d.color, x: x, y: y})
	}
	for _, d := range runs {
		if len(d.lagY) > 0 {
			x, y := MinMax(d.lagX, d.lagY, MaxPoints)
			lags = append(lags, raw{label: d.label, color: d.color, x: x, y: y})
		}
		g := serverTimeline(d, len(runs) > 1)
		gauges, kv, preempted = append(gauges, g.counts...), append(kv, g.kv...), append(preempted, g.preempted...)
	}
	var out []*chart
	// Every chart over time spans the same window, from the run's start
	// to its last request's end, so that their cursors line up.
	lo, hi := 0.0, runEnd(runs)
	add := func(id, title, y string, list []raw, kind string) {
		if len(list) > 0 {
			c := newChart(id, title, kind, "time since the first request (s)", y, list)
			c.Time, c.XMin = true, &lo
			if hi > 0 {
				c.XMax = &hi
			}
			out = append(out, c)
		}
	}
	add("inflight", "Requests in flight", "requests", inflight, kindStep)
	add("tokens", "Output tokens per second", "tokens/s", tokens, kindStep)
	if len(lags) > 0 {
		c := newChart("lag", "Schedule lag", kindPoints, "scheduled offset (s)", "lag (ms)", lags)
		c.Time, c.XMin = true, &lo
		if hi > 0 {
			c.XMax = &hi
		}
		out = append(out, c)
	}
	add("server-gauges", "Server: requests running and waiting", "requests", gauges, kindStep)
	add("server-kv", "Server: KV cache usage", "percent", kv, kindLine)
	add("server-preemptions", "Server: preemptions since the first sample", "preemptions", preempted, kindStep)
	return out
}

// runEnd is when the runs' last request ended, in seconds since their
// first start; 0 without per-request times.
func runEnd(runs []*runData) float64 {
	end := 0.0
	for _, d := range runs {
		for _, r := range d.requests {
			end = math.Max(end, r.start+math.Max(r.latency, 0))
		}
	}
	return end
}

// inFlight is the number of requests sent and not finished, after each
// start and end (seconds since the first start).
func inFlight(reqs []request) (x, y []float64) {
	type ev struct {
		t float64
		d int
	}
	evs := make([]ev, 0, 2*len(reqs))
	for _, r := range reqs {
		evs = append(evs, ev{r.start, 1}, ev{r.start + r.latency, -1})
	}
	sort.Slice(evs, func(i, j int) bool {
		if evs[i].t != evs[j].t {
			return evs[i].t < evs[j].t
		}
		return evs[i].d < evs[j].d
	})
	n := 0
	for _, e := range evs {
		n += e.d
		x, y = append(x, e.t), append(y, float64(n))
	}
	return x, y
}

// tokenRate counts output tokens by arrival time in at most
// histogramBins*5 equal bins over the run, as tokens per second.
func tokenRate(reqs []request) (x, y []float64) {
	end := 0.0
	var times []float64
	for _, r := range reqs {
		times = append(times, r.tokenTimes...)
		end = math.Max(end, r.start+r.latency)
	}
	if len(times) == 0 || end <= 0 {
		return nil, nil
	}
	bins := histogramBins * 5
	edges, counts := Histogram(times, 0, end, bins)
	w := edges[1] - edges[0]
	for i := range counts {
		counts[i] /= w
	}
	return edges, append(counts, counts[len(counts)-1])
}

// gaugeSeries are a run's server gauges as series.
type gaugeSeries struct{ counts, kv, preempted []raw }

// serverTimeline reads server_view.timeline (t, running, waiting,
// kv_cache_usage_perc, preemptions: counted from the first sample); the
// series name their run when several are overlaid.
func serverTimeline(d *runData, several bool) gaugeSeries {
	var g gaugeSeries
	view, ok := d.run.Object("server_view")
	if !ok {
		return g
	}
	tv, ok := view.Get("timeline")
	if !ok {
		return g
	}
	cols, ok := tv.(interface{ Get(string) (any, bool) })
	if !ok {
		return g
	}
	t := column(cols, "t")
	prefix := ""
	if several && len(d.label) > 0 {
		prefix = d.label + ": "
	}
	for i, name := range []string{"running", "waiting"} {
		y := column(cols, name)
		if drawable(y, t) {
			x, yy := MinMax(t, y, MaxPoints)
			g.counts = append(g.counts, raw{label: prefix + name, color: d.color*3 + i, x: x, y: yy})
		}
	}
	if y := column(cols, "kv_cache_usage_perc"); drawable(y, t) {
		for i := range y {
			y[i] *= 100
		}
		x, yy := MinMax(t, y, MaxPoints)
		g.kv = append(g.kv, raw{label: prefix + "KV cache usage", color: d.color, x: x, y: yy})
	}
	if y := column(cols, "preemptions"); drawable(y, t) {
		x, yy := MinMax(t, y, MaxPoints)
		g.preempted = append(g.preempted, raw{label: prefix + "preemptions", color: d.color, x: x, y: yy})
	}
	return g
}

// drawable reports whether a gauge column can be drawn against the times
// t: one value per time, and at least one known. A server that does not
// publish the gauge (llama.cpp has no KV-cache usage or preemptions) has
// a column of nulls, which would be an empty chart.
func drawable(y, t []float64) bool {
	if len(y) != len(t) || len(t) == 0 {
		return false
	}
	for _, v := range y {
		if !math.IsNaN(v) {
			return true
		}
	}
	return false
}

// column is one list of numbers of a columns object, null as NaN.
func column(o interface{ Get(string) (any, bool) }, key string) []float64 {
	v, ok := o.Get(key)
	if !ok {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]float64, len(list))
	for i, e := range list {
		f, ok := pyjson.Number(e)
		if !ok {
			f = math.NaN()
		}
		out[i] = f
	}
	return out
}
