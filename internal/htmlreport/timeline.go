package htmlreport

import (
	"fmt"
	"math"
	"strconv"
)

// DefaultITLThresholds are vLLM's --timeline-itl-thresholds (25,50 ms), in
// seconds.
var DefaultITLThresholds = [2]float64{0.025, 0.050}

// timelineChart is one run's per-request timeline: a bar per request
// (every k-th request when there are more than MaxTimelineRequests), in
// segments: the client queue, the wait for the first token, and the
// decode, coloured by the request's mean ITL against the thresholds (as
// vLLM's generate_timeline_plot colours ITLs, vllm/benchmarks/plot.py);
// failed requests are one red bar.
func timelineChart(d *runData, id string, thresholds [2]float64) *chart {
	if !d.detailed || !d.hasStarts || len(d.requests) == 0 {
		return nil
	}
	ms := func(s float64) string { return strconv.FormatFloat(s*1000, 'f', -1, 64) }
	names := []string{
		"queue", "waiting for the first token",
		"decode, mean ITL < " + ms(thresholds[0]) + " ms",
		"decode, mean ITL " + ms(thresholds[0]) + "–" + ms(thresholds[1]) + " ms",
		"decode, mean ITL ≥ " + ms(thresholds[1]) + " ms",
		"failed",
	}
	colors := []int{-3, -4, -5, -6, -7, sloColor}
	segs := make([]raw, len(names))
	for i := range segs {
		segs[i] = raw{label: names[i], color: colors[i]}
	}
	addSeg := func(s int, from, to float64, row int) {
		segs[s].x = append(segs[s].x, from)
		segs[s].end = append(segs[s].end, to)
		segs[s].y = append(segs[s].y, float64(row))
	}
	k := Every(len(d.requests), MaxTimelineRequests)
	for i := 0; i < len(d.requests); i += k {
		r := d.requests[i]
		if r.queue > 0 {
			addSeg(0, r.start-r.queue, r.start, i)
		}
		if !r.ok {
			addSeg(5, r.start, r.start+math.Max(r.latency, 0), i)
			continue
		}
		addSeg(1, r.start, r.start+r.ttft, i)
		s := 2
		switch {
		case r.meanITL >= thresholds[1]:
			s = 4
		case r.meanITL >= thresholds[0]:
			s = 3
		}
		addSeg(s, r.start+r.ttft, r.start+r.latency, i)
	}
	var list []raw
	for _, s := range segs {
		if len(s.x) > 0 {
			list = append(list, s)
		}
	}
	// The section is headed "Per-request timeline": the caption says what
	// a bar is made of.
	title := "Each request: client queue, wait for the first token, decode"
	if id != "timeline" {
		title = d.label + ": " + title
	}
	c := newChart(id, title, kindTimeline, "time since the first request (s)", "request", list)
	c.Time, c.Wide = true, true
	// The axis covers the whole run, to the last request's end (the bars'
	// x is where each segment starts) and from the first queued request.
	lo, hi := 0.0, 0.0
	for _, s := range list {
		for i := range s.x {
			lo, hi = math.Min(lo, s.x[i]), math.Max(hi, s.end[i])
		}
	}
	c.XMin, c.XMax = &lo, &hi
	if k > 1 {
		c.Note = fmt.Sprintf("Every %d-th of %d requests is drawn.", k, len(d.requests))
	}
	return c
}

// datasetCharts are the input and output length histograms of the runs
// (what --plot-dataset-stats writes).
func datasetCharts(runs []*runData) []*chart {
	var out []*chart
	for _, s := range []struct{ id, title string }{{"input-lens", "Input length"}, {"output-lens", "Output length"}} {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, d := range runs {
			for _, v := range lensOf(d, s.id) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		var list []raw
		for _, d := range runs {
			v := lensOf(d, s.id)
			if len(v) == 0 {
				continue
			}
			edges, counts := Histogram(v, lo, hi, histogramBins)
			list = append(list, raw{label: d.label, color: d.color, x: edges, y: append(counts, math.NaN())})
		}
		if len(list) > 0 {
			out = append(out, newChart(s.id, s.title+" distribution", kindBars, s.title+" (tokens)", "requests", list))
		}
	}
	return out
}

// lensOf is the run's input or output lengths.
func lensOf(d *runData, id string) []float64 {
	if id == "input-lens" {
		return d.inputLens
	}
	return d.outputLens
}
