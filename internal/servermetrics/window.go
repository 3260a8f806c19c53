package servermetrics

import (
	"fmt"
	"math"
	"strconv"
)

// Increase is what one source did between two of its scrapes: for
// counters and histograms the end minus the start, series by series
// (matched by their labels; a series the start lacks counts from 0), and
// the gauges of the end. When anything went down — a counter, a bucket, a
// histogram's count — or the process start time changed, the server
// restarted in between: Increase then returns the end's totals (what the
// restarted server did since it started, all of it inside the window) and
// reset says what showed the restart. It never returns a negative count.
// (A bucket bound written twice, which could look like a count going
// down, is one bucket by then: Parse's fixBuckets.)
func Increase(start, end *Scrape) (inc *Scrape, reset string) {
	if reset = restarted(start, end); reset != "" {
		return end, reset
	}
	out := newScrape()
	out.Notes = append(out.Notes, end.Notes...)
	for _, name := range end.Names() {
		f := end.families[name]
		before := seriesBySignature(start.families[name], f.Kind)
		series := make([]Series, 0, len(f.Series))
		for _, se := range f.Series {
			d, what := delta(se, before[signature(se.Labels)], f.Kind)
			if what != "" {
				return end, f.Exposed + " " + what
			}
			series = append(series, d)
		}
		out.add(name, f.Exposed, f.Kind, series...)
	}
	return out, ""
}

// restarted reports a changed process start time.
func restarted(start, end *Scrape) string {
	a, okA := start.Gauge(ProcessStart)
	b, okB := end.Gauge(ProcessStart)
	if okA && okB && a.Max != b.Max {
		return fmt.Sprintf("%s changed from %s to %s", ProcessStart, num(a.Max), num(b.Max))
	}
	return ""
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// seriesBySignature indexes a family's series when it has the kind.
func seriesBySignature(f *Family, kind Kind) map[string]*Series {
	out := map[string]*Series{}
	if f == nil || f.Kind != kind {
		return out
	}
	for i := range f.Series {
		out[signature(f.Series[i].Labels)] = &f.Series[i]
	}
	return out
}

// delta is end minus start for one series (start nil: the series began
// inside the window); what is non-empty when a count went down.
func delta(end Series, start *Series, kind Kind) (Series, string) {
	if start == nil || kind == KindGauge {
		return end, ""
	}
	if kind == KindCounter {
		if end.Value < start.Value {
			return end, fmt.Sprintf("went down from %s to %s", num(start.Value), num(end.Value))
		}
		return Series{Labels: end.Labels, Value: end.Value - start.Value}, ""
	}
	h, what := histogramDelta(end.Hist, start.Hist)
	return Series{Labels: end.Labels, Hist: h}, what
}

// histogramDelta subtracts two cumulative histograms bucket by bucket.
func histogramDelta(end, start *Histogram) (*Histogram, string) {
	before := map[float64]float64{}
	for _, b := range start.Buckets {
		before[b.UpperBound] = b.Count
	}
	out := &Histogram{HasCount: end.HasCount, HasSum: end.HasSum && start.HasSum}
	for _, b := range end.Buckets {
		prev := before[b.UpperBound]
		if b.Count < prev {
			return nil, fmt.Sprintf("bucket le=%s went down from %s to %s", num(b.UpperBound), num(prev), num(b.Count))
		}
		out.Buckets = append(out.Buckets, Bucket{UpperBound: b.UpperBound, Count: b.Count - prev})
	}
	if end.HasCount {
		if end.Count < start.Count {
			return nil, fmt.Sprintf("count went down from %s to %s", num(start.Count), num(end.Count))
		}
		out.Count = end.Count - start.Count
	}
	if out.HasSum {
		out.Sum = math.Max(0, end.Sum-start.Sum)
	}
	return out, ""
}

// Window is the server's side of a time window: the increases of every
// source summed (or, from one scrape, the totals since the server
// started), the summed states at its two ends, and how long it was.
type Window struct {
	// Delta holds the counters and histograms of the window (totals since
	// start when SinceStart) and the gauges at its end.
	Delta *Scrape
	// Start and End are the sources' scrapes summed, at each end (Start is
	// nil when SinceStart): their gauges are the states.
	Start, End *Scrape
	// Seconds is the window's length; 0 when it is not known (two saved
	// scrapes without their times), and then rates are not computed.
	Seconds float64
	// SinceStart says the window is the server's whole life: one scrape.
	SinceStart bool
	// Restarted names each source that restarted inside the window and
	// what showed it; its share is its totals since the restart.
	Restarted []string
	// Engine is the server's engine, told by its metric names (Detect).
	Engine Engine
}

// NewWindow builds the window between start and end, one scrape per
// source in the same order (names says which, for the restart notes).
// start nil means one scrape: totals since start.
func NewWindow(start, end []*Scrape, names []string, seconds float64) (*Window, error) {
	if len(end) == 0 {
		return nil, fmt.Errorf("no scrape to read")
	}
	w := &Window{End: Sum(end...), Seconds: seconds}
	w.Engine = Detect(w.End)
	if start == nil {
		w.Delta, w.SinceStart, w.Seconds = w.End, true, 0
		return w, nil
	}
	if len(start) != len(end) {
		return nil, fmt.Errorf("%d scrapes at the start of the window but %d at its end", len(start), len(end))
	}
	incs := make([]*Scrape, len(end))
	for i := range end {
		var reset string
		if incs[i], reset = Increase(start[i], end[i]); reset != "" {
			name := fmt.Sprintf("source %d", i+1)
			if i < len(names) {
				name = names[i]
			}
			w.Restarted = append(w.Restarted, name+": "+reset)
		}
	}
	w.Start, w.Delta = Sum(start...), Sum(incs...)
	return w, nil
}
