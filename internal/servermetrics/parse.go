package servermetrics

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Parse reads one /metrics page: the Prometheus text format, or
// OpenMetrics when its last line is "# EOF". Only the families gobench
// reads are kept (the known engines' and the process start time), within
// bounds (page.go); Notes says what was dropped. The error of a malformed
// page is expfmt's, which names the line ("text format parsing error in
// line 3: ..."). An empty page is a Scrape without families.
func Parse(data []byte) (s *Scrape, err error) {
	// expfmt is a third-party parser fed arbitrary text; a panic in it
	// must be an error naming the page, not a crash of the command.
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("the metrics parser failed on this page: %v", r)
		}
	}()
	kept, lines, notes, err := filterPage(data, pageLimits())
	if err != nil {
		return nil, err
	}
	fams, err := decode(kept)
	if err != nil {
		return nil, pageLine(err, lines)
	}
	s = build(fams)
	s.Notes = append(notes, s.Notes...)
	return s, nil
}

// pageLine renames the line of expfmt's error, a line of the kept page,
// to the line of the page it came from.
func pageLine(err error, lines []int) error {
	var pe expfmt.ParseError
	if errors.As(err, &pe) && pe.Line >= 1 && pe.Line <= len(lines) {
		pe.Line = lines[pe.Line-1]
		return pe
	}
	return err
}

// IsOpenMetrics reports whether data is an OpenMetrics page: its last
// non-blank line is "# EOF", which the format requires and the Prometheus
// text format never has.
func IsOpenMetrics(data []byte) bool {
	data = bytes.TrimRight(data, " \t\r\n")
	i := bytes.LastIndexByte(data, '\n')
	return string(bytes.TrimSpace(data[i+1:])) == "# EOF"
}

// decode parses data into its metric families, in name order. The text
// parser comes first even for an OpenMetrics page: it reads what Python's
// client writes in OpenMetrics too (a comment for # EOF and # UNIT,
// counters' _total samples as untyped families, which build types) in
// milliseconds, where expfmt's OpenMetrics decoder, a grammar parser, takes
// seconds for a vLLM page. The decoder reads what the text parser cannot
// (exemplars, timestamps in seconds, info and stateset types), and its
// error is the one an OpenMetrics page reports.
func decode(data []byte) ([]*dto.MetricFamily, error) {
	fams, err := decodeText(data)
	if err == nil || !IsOpenMetrics(data) {
		return fams, err
	}
	dec := expfmt.NewDecoder(bytes.NewReader(data), expfmt.FmtOpenMetrics_1_0_0)
	fams = nil
	for {
		mf := &dto.MetricFamily{}
		err := dec.Decode(mf)
		if errors.Is(err, io.EOF) {
			return fams, nil
		}
		if err != nil {
			return nil, fmt.Errorf("OpenMetrics: %w", err)
		}
		fams = append(fams, mf)
	}
}

// decodeText is the Prometheus text format's parser.
func decodeText(data []byte) ([]*dto.MetricFamily, error) {
	// A zero TextParser panics in prometheus/common v0.74: always
	// NewTextParser.
	p := expfmt.NewTextParser(model.UTF8Validation)
	byName, err := p.TextToMetricFamilies(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	out := make([]*dto.MetricFamily, 0, len(byName))
	for _, mf := range byName {
		out = append(out, mf)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GetName() < out[j].GetName() })
	return out, nil
}

// build turns the families into a Scrape: typed families directly,
// untyped ones reassembled (histograms from _bucket/_sum/_count samples)
// and typed from the engines' tables.
func build(fams []*dto.MetricFamily) *Scrape {
	b := newBuilder()
	var untyped []*dto.MetricFamily
	for _, mf := range fams {
		name := mf.GetName()
		if strings.HasSuffix(name, "_created") {
			continue // Python's client: when each series was created
		}
		switch mf.GetType() {
		case dto.MetricType_COUNTER:
			b.addScalars(name, KindCounter, mf, func(m *dto.Metric) float64 { return m.GetCounter().GetValue() })
		case dto.MetricType_GAUGE:
			b.addScalars(name, KindGauge, mf, func(m *dto.Metric) float64 { return m.GetGauge().GetValue() })
		case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
			for _, m := range mf.GetMetric() {
				b.addHistogram(name, labelsOf(m, ""), typedHistogram(m.GetHistogram()))
			}
		case dto.MetricType_UNTYPED:
			untyped = append(untyped, mf)
		case dto.MetricType_SUMMARY:
			if isReadHistogram(name) {
				b.note(name + " is a summary, not a histogram: not read (gobench reads its buckets)")
			}
		}
	}
	b.addUntyped(untyped)
	b.s.renameAliases()
	return b.s
}

// isReadHistogram reports whether an engine's table reads name as a
// histogram.
func isReadHistogram(name string) bool {
	for _, e := range Engines() {
		if slices.Contains(e.histogramNames(), name) {
			return true
		}
	}
	return false
}

// renameAliases files a family found under an older name under its
// current one (Exposed keeps the older), when the page lacks the current
// name: so that pages of two vLLM versions sum.
func (s *Scrape) renameAliases() {
	for _, name := range []string{KVUsage, PrefixQueries, PrefixHits, ITL} {
		if _, ok := s.families[name]; ok {
			continue
		}
		for _, a := range Aliases(name) {
			if f, ok := s.families[a]; ok {
				delete(s.families, a)
				f.Name = name
				s.families[name] = f
				break
			}
		}
	}
}

// builder fills a Scrape from one page, noting what it could not read
// as the page said it.
type builder struct {
	s *Scrape
	// series holds the label signatures read of each family: a second
	// sample with the same labels is dropped.
	series map[string]map[string]bool
	noted  map[string]bool
}

func newBuilder() *builder {
	return &builder{s: newScrape(), series: map[string]map[string]bool{}, noted: map[string]bool{}}
}

// note adds a note once.
func (b *builder) note(text string) {
	if !b.noted[text] {
		b.noted[text] = true
		b.s.Notes = append(b.s.Notes, text)
	}
}

// fresh reports whether the family has no series with these labels yet,
// and records it.
func (b *builder) fresh(family, exposed string, labels map[string]string) bool {
	sig := signature(labels)
	seen := b.series[family]
	if seen == nil {
		seen = map[string]bool{}
		b.series[family] = seen
	}
	if seen[sig] {
		b.note(exposed + ": a second sample with the same labels: the first is read")
		return false
	}
	seen[sig] = true
	return true
}

// addScalars adds the counter or gauge series of mf, dropping those whose
// value is not a number the kind can hold. A family declared the other
// scalar kind than the one gobench reads it as (a counter typed gauge)
// is read as gobench's kind, with a note, rather than lost.
func (b *builder) addScalars(exposed string, declared Kind, mf *dto.MetricFamily, value func(*dto.Metric) float64) {
	name, kind := exposed, declared
	if declared == KindCounter {
		name = counterName(exposed)
	}
	if want := expectedKind(counterName(exposed)); want == KindCounter && declared == KindGauge {
		name, kind = counterName(exposed), KindCounter
	} else if want := expectedKind(name); want == KindGauge && declared == KindCounter {
		kind = KindGauge
	}
	if kind != declared {
		b.note(fmt.Sprintf("%s: declared %s, read as a %s (gobench knows it as one)", exposed, declared, kind))
	}
	var series []Series
	for _, m := range mf.GetMetric() {
		v := value(m)
		if bad := badScalar(kind, v); bad != "" {
			b.note(fmt.Sprintf("%s: %s sample ignored", exposed, bad))
			continue
		}
		if labels := labelsOf(m, ""); b.fresh(name, exposed, labels) {
			series = append(series, Series{Labels: labels, Value: v, Timestamped: m.TimestampMs != nil})
		}
	}
	if len(series) > 0 {
		b.s.add(name, exposed, kind, series...)
	}
}

// badScalar says why v cannot be a value of kind: NaN anywhere, an
// infinite or negative counter, an infinite gauge.
func badScalar(kind Kind, v float64) string {
	switch {
	case math.IsNaN(v):
		return "a NaN"
	case math.IsInf(v, 0):
		return "an infinite"
	case kind == KindCounter && v < 0:
		return "a negative"
	}
	return ""
}

// addHistogram adds one histogram series unless its counts are not
// numbers a histogram can hold; a NaN sum (NaN observations) only loses
// the sum. Buckets are sorted and their bounds made unique (fixBuckets).
func (b *builder) addHistogram(name string, labels map[string]string, h *Histogram) {
	for _, bk := range h.Buckets {
		if math.IsNaN(bk.Count) || math.IsInf(bk.Count, 0) || bk.Count < 0 || math.IsNaN(bk.UpperBound) {
			b.note(fmt.Sprintf("%s: a bucket count of %v (le=%v): histogram ignored", name, bk.Count, bk.UpperBound))
			return
		}
	}
	if h.HasCount && (math.IsNaN(h.Count) || math.IsInf(h.Count, 0) || h.Count < 0) {
		b.note(fmt.Sprintf("%s: a count of %v: histogram ignored", name, h.Count))
		return
	}
	if h.HasSum && (math.IsNaN(h.Sum) || math.IsInf(h.Sum, 0)) {
		b.note(fmt.Sprintf("%s: a sum of %v: mean not known", name, h.Sum))
		h.HasSum = false
	}
	if !b.fresh(name, name, labels) {
		return
	}
	b.fixBuckets(name, h)
	b.s.add(name, name, KindHistogram, Series{Labels: labels, Hist: h})
}

// fixBuckets sorts a series' buckets and keeps one per upper bound. A
// bound written twice (le="0.5" and le="0.50") is one bucket: Prometheus'
// histogram_quantile would add the two counts as if they were two series'
// (over the total, a p99 of 0.49 where the buckets say 3.75), and two
// scrapes that list them in another order would look like a count going
// down (a restart). The larger count is kept, with a note. A histogram
// without a +Inf bucket has no quantile, and cumulative counts that go
// down are read as Prometheus does (each raised to the largest before
// it): both are noted, as the figures they cost or change.
func (b *builder) fixBuckets(name string, h *Histogram) {
	sortBuckets(h.Buckets)
	out := h.Buckets[:0]
	for _, bk := range h.Buckets {
		if n := len(out); n > 0 && out[n-1].UpperBound == bk.UpperBound {
			b.note(fmt.Sprintf("%s: bucket le=%s appears twice (counts %s and %s): read once, with the larger count",
				name, num(bk.UpperBound), num(out[n-1].Count), num(bk.Count)))
			out[n-1].Count = math.Max(out[n-1].Count, bk.Count)
			continue
		}
		out = append(out, bk)
	}
	h.Buckets = out
	for i := 1; i < len(out); i++ {
		if out[i].Count < out[i-1].Count {
			b.note(fmt.Sprintf("%s: cumulative bucket counts go down (le=%s: %s after le=%s: %s): read as Prometheus does, "+
				"each raised to the largest before it", name, num(out[i].UpperBound), num(out[i].Count),
				num(out[i-1].UpperBound), num(out[i-1].Count)))
			break
		}
	}
	if len(out) > 0 && !math.IsInf(out[len(out)-1].UpperBound, 1) {
		b.note(name + ": no +Inf bucket: its quantiles are not known (histogram_quantile needs the total it holds)")
	}
}

// typedHistogram reads a histogram expfmt assembled (integer or float
// counts).
func typedHistogram(d *dto.Histogram) *Histogram {
	h := &Histogram{Sum: d.GetSampleSum(), HasSum: d.SampleSum != nil}
	switch {
	case d.SampleCountFloat != nil:
		h.Count, h.HasCount = d.GetSampleCountFloat(), true
	case d.SampleCount != nil:
		h.Count, h.HasCount = float64(d.GetSampleCount()), true
	}
	for _, b := range d.GetBucket() {
		c := float64(b.GetCumulativeCount())
		if b.CumulativeCountFloat != nil {
			c = b.GetCumulativeCountFloat()
		}
		h.Buckets = append(h.Buckets, Bucket{UpperBound: b.GetUpperBound(), Count: c})
	}
	return h
}

// labelsOf copies a series' labels, without skip (the le label of an
// untyped bucket sample).
func labelsOf(m *dto.Metric, skip string) map[string]string {
	out := make(map[string]string, len(m.GetLabel()))
	for _, lp := range m.GetLabel() {
		if lp.GetName() != skip {
			out[lp.GetName()] = lp.GetValue()
		}
	}
	return out
}

// untypedValue is an untyped sample's value.
func untypedValue(m *dto.Metric) float64 { return m.GetUntyped().GetValue() }

// addUntyped types the untyped families: X_bucket samples that all carry
// an le label make a histogram X (with X_sum and X_count), vLLM's counters
// and names ending in _total are counters, the rest gauges.
func (b *builder) addUntyped(fams []*dto.MetricFamily) {
	byName := map[string]*dto.MetricFamily{}
	for _, mf := range fams {
		byName[mf.GetName()] = mf
	}
	used := map[string]bool{}
	for _, mf := range fams {
		base, ok := strings.CutSuffix(mf.GetName(), "_bucket")
		if !ok || !allHaveLe(mf) {
			continue
		}
		for _, h := range untypedHistograms(mf, byName[base+"_sum"], byName[base+"_count"]) {
			b.addHistogram(base, h.labels, h.hist)
		}
		used[mf.GetName()], used[base+"_sum"], used[base+"_count"] = true, true, true
	}
	for _, mf := range fams {
		name := mf.GetName()
		if used[name] {
			continue
		}
		if c := counterName(name); knownCounter(c) || c != name || expectedKind(c) == KindCounter {
			b.addScalars(name, KindCounter, mf, untypedValue)
		} else {
			b.addScalars(name, KindGauge, mf, untypedValue)
		}
	}
}

func allHaveLe(mf *dto.MetricFamily) bool {
	for _, m := range mf.GetMetric() {
		if leOf(m) == "" {
			return false
		}
	}
	return len(mf.GetMetric()) > 0
}

func leOf(m *dto.Metric) string {
	for _, lp := range m.GetLabel() {
		if lp.GetName() == model.BucketLabel {
			return lp.GetValue()
		}
	}
	return ""
}

type labelledHistogram struct {
	labels map[string]string
	hist   *Histogram
}

// untypedHistograms groups bucket samples by their labels without le and
// attaches the _sum and _count samples with the same labels.
func untypedHistograms(buckets, sums, counts *dto.MetricFamily) []labelledHistogram {
	bySig := map[string]*labelledHistogram{}
	var order []string
	get := func(m *dto.Metric) *labelledHistogram {
		labels := labelsOf(m, model.BucketLabel)
		sig := signature(labels)
		if _, ok := bySig[sig]; !ok {
			bySig[sig] = &labelledHistogram{labels: labels, hist: &Histogram{}}
			order = append(order, sig)
		}
		return bySig[sig]
	}
	for _, m := range buckets.GetMetric() {
		ub, err := strconv.ParseFloat(leOf(m), 64)
		if err != nil {
			ub = math.NaN() // refused by addHistogram, with a note
		}
		h := get(m).hist
		h.Buckets = append(h.Buckets, Bucket{UpperBound: ub, Count: untypedValue(m)})
	}
	for _, m := range sums.GetMetric() {
		if lh, ok := bySig[signature(labelsOf(m, ""))]; ok {
			lh.hist.Sum, lh.hist.HasSum = untypedValue(m), true
		}
	}
	for _, m := range counts.GetMetric() {
		if lh, ok := bySig[signature(labelsOf(m, ""))]; ok {
			lh.hist.Count, lh.hist.HasCount = untypedValue(m), true
		}
	}
	out := make([]labelledHistogram, 0, len(order))
	for _, sig := range order {
		out = append(out, *bySig[sig])
	}
	return out
}
