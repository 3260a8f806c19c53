package servermetrics

import (
	"math"
	"slices"
	"sort"
	"strings"
)

// Kind is what a family's series hold.
type Kind int

// The kinds of family. Untyped samples become counters (vLLM's counters,
// names ending in _total) or gauges; summaries are not read (vLLM has none).
const (
	// KindCounter is a monotonic count since the process started.
	KindCounter Kind = iota + 1
	// KindGauge is a value at the time of the scrape (info metrics too:
	// value 1, the facts in their labels).
	KindGauge
	// KindHistogram is cumulative bucket counts, a count and a sum.
	KindHistogram
)

// String is the kind as a # TYPE line writes it.
func (k Kind) String() string {
	switch k {
	case KindCounter:
		return "counter"
	case KindGauge:
		return "gauge"
	case KindHistogram:
		return "histogram"
	}
	return "untyped"
}

// ModelLabel is the label vLLM puts the served model's name in.
const ModelLabel = "model_name"

// Scrape is one /metrics page (or the sum of several), by family. A Scrape
// is not modified by its methods: ForModel, Sum and Increase return new
// ones.
type Scrape struct {
	families map[string]*Family
	// Notes says what was dropped while reading: samples that are not
	// numbers (NaN, infinite counters, bad bucket counts), conflicting
	// types.
	Notes []string
}

// Family is one metric: its name as gobench reads it (counters without
// _total), the name the server used, its kind and its series.
type Family struct {
	Name    string
	Exposed string
	Kind    Kind
	Series  []Series
}

// Series is one labelled series of a family. Value holds a counter's or a
// gauge's value, Hist a histogram.
type Series struct {
	Labels map[string]string
	Value  float64
	Hist   *Histogram
	// Timestamped: the page gave a counter's or gauge's sample a
	// timestamp of its own, which vLLM's benchmark client cannot read
	// (SpecDecode skips it, as that client does).
	Timestamped bool
}

// Histogram is a classic Prometheus histogram: cumulative bucket counts
// sorted by upper bound (the last is +Inf when the page had it), the
// number of observations and their sum. HasCount and HasSum say whether
// the page had the _count and _sum samples (a pasted excerpt may not).
type Histogram struct {
	Buckets  []Bucket
	Count    float64
	HasCount bool
	Sum      float64
	HasSum   bool
}

// Bucket is one cumulative bucket: the observations <= UpperBound.
type Bucket struct {
	UpperBound float64
	Count      float64
}

func newScrape() *Scrape { return &Scrape{families: map[string]*Family{}} }

// Names lists the families of s, sorted.
func (s *Scrape) Names() []string {
	names := make([]string, 0, len(s.families))
	for n := range s.families {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Family returns the family name, or the first of its Aliases that s has.
func (s *Scrape) Family(name string) (*Family, bool) {
	if f, ok := s.families[name]; ok {
		return f, true
	}
	for _, a := range Aliases(name) {
		if f, ok := s.families[a]; ok {
			return f, true
		}
	}
	return nil, false
}

// Exposed is the name the server used for the family name (an alias on an
// older vLLM), or "" when s lacks it.
func (s *Scrape) Exposed(name string) string {
	if f, ok := s.Family(name); ok {
		return f.Exposed
	}
	return ""
}

// add appends series to the family name, creating it; a family met again
// with another kind keeps its first kind and the conflict is noted.
func (s *Scrape) add(name, exposed string, kind Kind, series ...Series) {
	f, ok := s.families[name]
	if !ok {
		f = &Family{Name: name, Exposed: exposed, Kind: kind}
		s.families[name] = f
	}
	if f.Kind != kind {
		s.Notes = append(s.Notes, "ignored "+exposed+": "+name+" was already read as another type")
		return
	}
	f.Series = append(f.Series, series...)
}

// Models lists the distinct model_name values of s, sorted.
func (s *Scrape) Models() []string {
	var out []string
	for _, f := range s.families {
		for _, se := range f.Series {
			if m, ok := se.Labels[ModelLabel]; ok && !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	sort.Strings(out)
	return out
}

// ForModel keeps the series of model (and those without a model_name
// label, such as vllm:cache_config_info and the process's own metrics).
func (s *Scrape) ForModel(model string) *Scrape {
	out := newScrape()
	out.Notes = append(out.Notes, s.Notes...)
	for name, f := range s.families {
		var keep []Series
		for _, se := range f.Series {
			if m, ok := se.Labels[ModelLabel]; !ok || m == model {
				keep = append(keep, se)
			}
		}
		if len(keep) > 0 {
			out.add(name, f.Exposed, f.Kind, keep...)
		}
	}
	return out
}

// Sum is the scrapes side by side: every family holds the series of all of
// them, so that Counter and Histogram add them up, and Gauge reports their
// sum, mean and maximum.
func Sum(scrapes ...*Scrape) *Scrape {
	out := newScrape()
	for _, s := range scrapes {
		out.Notes = append(out.Notes, s.Notes...)
		for _, name := range s.Names() {
			f := s.families[name]
			out.add(name, f.Exposed, f.Kind, f.Series...)
		}
	}
	return out
}

// Counter is the sum of the counter's series; ok is false when s has no
// such counter.
func (s *Scrape) Counter(name string) (v float64, ok bool) {
	f, ok := s.Family(name)
	if !ok || f.Kind != KindCounter {
		return 0, false
	}
	for _, se := range f.Series {
		v += se.Value
	}
	return v, true
}

// CounterBy is the counter summed by the value of label (finished_reason,
// source, ...); series without the label are left out.
func (s *Scrape) CounterBy(name, label string) map[string]float64 {
	return s.by(name, label, KindCounter)
}

// GaugeBy is the gauge summed by the value of label (reason, ...).
func (s *Scrape) GaugeBy(name, label string) map[string]float64 {
	return s.by(name, label, KindGauge)
}

func (s *Scrape) by(name, label string, kind Kind) map[string]float64 {
	f, ok := s.Family(name)
	if !ok || f.Kind != kind {
		return nil
	}
	out := map[string]float64{}
	for _, se := range f.Series {
		if v, ok := se.Labels[label]; ok {
			out[v] += se.Value
		}
	}
	return out
}

// GaugeValue is a gauge over its series (engines, sources): their sum,
// mean and maximum, and how many there were.
type GaugeValue struct {
	Sum, Mean, Max float64
	N              int
}

// Gauge reads the gauge name over its series; ok is false when s has none.
func (s *Scrape) Gauge(name string) (g GaugeValue, ok bool) {
	f, ok := s.Family(name)
	if !ok || f.Kind != KindGauge || len(f.Series) == 0 {
		return g, false
	}
	g.Max = math.Inf(-1)
	for _, se := range f.Series {
		g.Sum += se.Value
		g.Max = math.Max(g.Max, se.Value)
	}
	g.N = len(f.Series)
	g.Mean = g.Sum / float64(g.N)
	return g, true
}

// Infos returns the label sets of an info metric (a gauge whose facts are
// its labels), one per series.
func (s *Scrape) Infos(name string) []map[string]string {
	f, ok := s.Family(name)
	if !ok {
		return nil
	}
	out := make([]map[string]string, 0, len(f.Series))
	for _, se := range f.Series {
		out = append(out, se.Labels)
	}
	return out
}

// Histogram is the histogram summed over its series: bucket counts added
// by upper bound (Prometheus' sum by (le)), counts and sums added. ok is
// false when s has no such histogram.
func (s *Scrape) Histogram(name string) (*Histogram, bool) {
	f, ok := s.Family(name)
	if !ok || f.Kind != KindHistogram || len(f.Series) == 0 {
		return nil, false
	}
	byBound := map[float64]float64{}
	h := &Histogram{HasCount: true, HasSum: true}
	for _, se := range f.Series {
		for _, b := range se.Hist.Buckets {
			byBound[b.UpperBound] += b.Count
		}
		h.Count += se.Hist.Count
		h.Sum += se.Hist.Sum
		h.HasCount = h.HasCount && se.Hist.HasCount
		h.HasSum = h.HasSum && se.Hist.HasSum
	}
	for ub, c := range byBound {
		h.Buckets = append(h.Buckets, Bucket{UpperBound: ub, Count: c})
	}
	sortBuckets(h.Buckets)
	return h, true
}

func sortBuckets(bs []Bucket) {
	sort.Slice(bs, func(i, j int) bool { return bs[i].UpperBound < bs[j].UpperBound })
}

// Total is the number of observations: the +Inf bucket's count (what
// histogram_quantile ranks against), else the _count sample, else 0.
func (h *Histogram) Total() float64 {
	if n := len(h.Buckets); n > 0 && math.IsInf(h.Buckets[n-1].UpperBound, 1) {
		return h.Buckets[n-1].Count
	}
	if h.HasCount {
		return h.Count
	}
	return 0
}

// Mean is the exact mean observation (sum over count), when the page had
// both and there were observations.
func (h *Histogram) Mean() (float64, bool) {
	if !h.HasSum || !h.HasCount || h.Count <= 0 {
		return math.NaN(), false
	}
	return h.Sum / h.Count, true
}

// signature identifies a series by its labels, for matching the same
// series in two scrapes.
func signature(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte(0xff)
		b.WriteString(labels[k])
		b.WriteByte(0xfe)
	}
	return b.String()
}
