package htmlreport

import (
	"encoding/json"
	"math"
	"path/filepath"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
)

// runData is what the charts read of one run: its per-request values, in
// milliseconds for latencies and seconds since the first request's start
// for times. Detailed is false for a file saved without --save-detailed:
// then only the tables and the keys' figures are drawn.
type runData struct {
	run      *resultfile.Run
	label    string
	color    int
	detailed bool
	noDetail string // why the per-request charts are missing

	ttft, tpot, itl, e2el []float64 // successful requests, ms
	inputLens, outputLens []float64
	requests              []request
	hasStarts             bool
	errorTexts            []string  // each failed request's error text
	lagX, lagY            []float64 // scheduled offset (s), lag (ms)
}

// request is one request on the timeline, in seconds since the run's first
// start.
type request struct {
	start, queue, ttft, latency, meanITL float64
	ok                                   bool
	tokenTimes                           []float64
}

// latencyMetrics are the distributions drawn, with their result-key
// suffix.
var latencyMetrics = []struct{ key, title string }{
	{"ttft", "TTFT"}, {"tpot", "TPOT"}, {"itl", "ITL"}, {"e2el", "E2EL"},
}

// load reads the run's per-request data; a run without it keeps its keys
// only.
func load(r *resultfile.Run, color int) *runData {
	d := &runData{run: r, label: r.Label(), color: color}
	if d.label == "" {
		d.label = filepath.Base(r.Name())
	}
	det, err := r.Detailed()
	if err != nil {
		d.noDetail = err.Error()
		return d
	}
	d.detailed = true
	d.hasStarts = det.HasStartTimes
	first := math.Inf(1)
	for _, o := range det.Outputs {
		first = math.Min(first, o.StartTime)
	}
	for _, o := range det.Outputs {
		q := request{start: o.StartTime - first, queue: o.ClientQueueTime, ttft: o.TTFT, latency: o.Latency, ok: o.Success}
		if !o.Success {
			msg := o.Error
			if msg == "" {
				msg = "(no error text, no token)"
			}
			d.errorTexts = append(d.errorTexts, msg)
			d.requests = append(d.requests, q)
			continue
		}
		d.ttft = append(d.ttft, o.TTFT*1000)
		// vLLM's e2el runs from the send: the wait for a
		// --max-concurrency slot is in neither it nor the printed
		// percentiles the chart marks.
		d.e2el = append(d.e2el, o.Latency*1000)
		if o.OutputTokens > 1 {
			d.tpot = append(d.tpot, (o.Latency-o.TTFT)/float64(o.OutputTokens-1)*1000)
		}
		t := q.start + o.TTFT
		q.tokenTimes = append(q.tokenTimes, t)
		sum := 0.0
		for _, x := range o.ITL {
			d.itl = append(d.itl, x*1000)
			t += x
			sum += x
			q.tokenTimes = append(q.tokenTimes, t)
		}
		if len(o.ITL) > 0 {
			q.meanITL = sum / float64(len(o.ITL))
		}
		d.requests = append(d.requests, q)
	}
	d.inputLens = numberList(r, resultkey.InputLens)
	d.outputLens = numberList(r, resultkey.OutputLens)
	d.lagY = numberList(r, resultkey.ScheduleLags)
	d.lagX = numberList(r, resultkey.ScheduledOffsets)
	if len(d.lagX) != len(d.lagY) {
		d.lagX = make([]float64, len(d.lagY))
		for i := range d.lagX {
			d.lagX[i] = float64(i)
		}
	}
	for i := range d.lagY {
		d.lagY[i] *= 1000
	}
	return d
}

// numberList is the run's list of numbers under key (nulls as NaN), nil
// when absent.
func numberList(r *resultfile.Run, key string) []float64 {
	raw, ok := r.Raw(key)
	if !ok {
		return nil
	}
	var v []*float64
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	out := make([]float64, len(v))
	for i, p := range v {
		out[i] = math.NaN()
		if p != nil {
			out[i] = *p
		}
	}
	return out
}

// values returns the run's successful requests' values of a metric, ms.
func (d *runData) values(metric string) []float64 {
	switch metric {
	case "ttft":
		return d.ttft
	case "tpot":
		return d.tpot
	case "itl":
		return d.itl
	}
	return d.e2el
}

// percentiles are the statistics of metric the result holds as printed
// (median and p*), by label, in the file's order.
func percentiles(r *resultfile.Run, metric string) []mark {
	var out []mark
	for _, k := range r.Keys() {
		st, ok := trimMetric(k, metric)
		if !ok || (st != "median" && (len(st) < 2 || st[0] != 'p')) {
			continue
		}
		if st == "median" && r.Has("p50_"+metric+"_ms") {
			continue // the same number: mark it once
		}
		if v, ok := r.Number(k); ok {
			if st == "median" {
				st = "p50"
			}
			out = append(out, mark{X: v, Label: st + " " + resultfile.FormatFloat(v)})
		}
	}
	return out
}

// trimMetric cuts "<stat>_<metric>_ms" to stat.
func trimMetric(key, metric string) (string, bool) {
	suffix := "_" + metric + "_ms"
	if len(key) <= len(suffix) || key[len(key)-len(suffix):] != suffix {
		return "", false
	}
	return key[:len(key)-len(suffix)], true
}

// goodputSLOs are the run's --goodput SLOs in ms, as its gobench_workload
// records them (vLLM's files do not).
func goodputSLOs(r *resultfile.Run) map[string]float64 {
	w, ok := r.Object(resultkey.GobenchWorkload)
	if !ok {
		return nil
	}
	g, ok := w.Get(resultkey.WorkloadGoodput)
	if !ok {
		return nil
	}
	obj, ok := g.(*pyjson.Object)
	if !ok {
		return nil
	}
	out := map[string]float64{}
	for _, k := range obj.Keys() {
		v, _ := obj.Get(k)
		if f, ok := pyjson.Number(v); ok {
			out[k] = f
		}
	}
	return out
}

// failureKinds are the run's failures by kind, most frequent first: the
// file's failure_kinds when it has them, else its per-request error texts
// grouped as serve groups them.
func (d *runData) failureKinds() []report.FailureKind {
	if raw, ok := d.run.Raw(resultkey.FailureKinds); ok {
		var kinds []struct {
			Kind    string `json:"kind"`
			Count   int    `json:"count"`
			Example string `json:"example"`
		}
		if json.Unmarshal(raw, &kinds) == nil {
			out := make([]report.FailureKind, len(kinds))
			for i, k := range kinds {
				out[i] = report.FailureKind{Kind: k.Kind, Count: k.Count, Example: k.Example}
			}
			return out
		}
	}
	return report.FailureKinds(d.errorTexts)
}
