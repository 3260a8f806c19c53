package metrics

import (
	"cmp"
	"math"
	"slices"
)

// CalculateConcurrency is the exact peak of concurrently active requests,
// reproducing the sweep line of later vLLM (serve.py@009e6d4a
// calculate_metrics; helper calculate_concurrency pinned by
// tests/benchmarks/test_serve_metrics.py@07fd367e), which replaced the
// baseline's one-second histogram that counted two sequential sub-second
// requests in the same second as concurrent.
//
// Each interval [start, end) is half-open: a request that ends at t and one
// that starts at t do not overlap. Intervals with end <= start (zero
// latency) are ignored. All events at one instant are applied together:
// departures and arrivals at t form a single step.
//
// times and levels describe the step function for plotting: for every
// instant at which the level changes, two points are recorded at time
// t - minStart, the level before and the level after the step. (The test
// pins that five requests [(0,1),(0,1),(1,2),(1,2),(1,2)] give exactly
// levels [2, 3] at time 1.0; recording the level on both sides of each step
// is the simplest reading consistent with it.) peak is the largest level;
// with no non-empty interval it is 0 and times and levels are empty.
func CalculateConcurrency(intervals [][2]float64, minStart float64) (peak int, times []float64, levels []int) {
	type event struct {
		t     float64
		delta int
	}
	events := make([]event, 0, 2*len(intervals))
	for _, iv := range intervals {
		if !(iv[1] > iv[0]) {
			continue
		}
		events = append(events, event{iv[0], +1}, event{iv[1], -1})
	}
	// Departures (-1) before arrivals (+1) at equal times, as vLLM sorts by
	// (time, delta); with grouping the order only matters for stability.
	slices.SortFunc(events, func(a, b event) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.delta, b.delta)
	})
	level := 0
	for i := 0; i < len(events); {
		t := events[i].t
		before := level
		for ; i < len(events) && events[i].t == t; i++ {
			level += events[i].delta
		}
		if level != before {
			times = append(times, t-minStart, t-minStart)
			levels = append(levels, before, level)
		}
		peak = max(peak, level)
	}
	return peak, times, levels
}

// peakOutputTokensPerSecond reproduces vLLM's max_output_tokens_per_s
// (serve.py calculate_metrics): over the successful outputs, t0 = min
// start_time and tEnd = max(start_time + latency); there are
// int(ceil(tEnd - t0)) + 1 one-second bins; each output contributes the
// timestamps start+ttft, then the running sum +itl[k], and the bin
// int(ts - t0) (truncated toward zero, skipped when out of range) gets +1.
// It therefore counts token events (chunks), not tokens. The result is
// float(max(bins)), and 0 when there is no successful output.
func peakOutputTokensPerSecond(outputs []Output) float64 {
	first := true
	var t0, tEnd float64
	for i := range outputs {
		o := &outputs[i]
		if !o.Success {
			continue
		}
		end := o.StartTime + o.Latency
		if first {
			t0, tEnd, first = o.StartTime, end, false
			continue
		}
		t0 = min(t0, o.StartTime)
		tEnd = max(tEnd, end)
	}
	if first {
		return 0
	}
	span := math.Ceil(tEnd - t0)
	if math.IsNaN(span) || math.IsInf(span, 0) || span > 1e9 {
		// A corrupt clock would allocate without bound; vLLM would fail
		// too (int(nan) raises). Report no peak rather than crash.
		return 0
	}
	bins := make([]int, int(span)+1)
	for i := range outputs {
		o := &outputs[i]
		if !o.Success {
			continue
		}
		ts := o.StartTime + o.TTFT
		addBin(bins, ts-t0)
		for _, gap := range o.ITL {
			ts += gap
			addBin(bins, ts-t0)
		}
	}
	return float64(slices.Max(bins))
}

func addBin(bins []int, offset float64) {
	// Python's int() truncates toward zero, like Go's conversion; the range
	// check also rejects NaN.
	if !(offset > -1 && offset < float64(len(bins))) {
		return
	}
	bins[int(offset)]++
}
