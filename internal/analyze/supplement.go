package analyze

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
)

// Values gives the values of a result, as gate.Values does
// (resultfile.Run implements it).
type Values interface {
	// Number returns the value of key and whether the result has it as a
	// number.
	Number(key string) (float64, bool)
	// String returns the value of key and whether the result has it as
	// text.
	String(key string) (string, bool)
}

// Supplemented answers the numeric keys of a result and, for the latency
// statistics it lacks (a percentile --metric-percentiles did not select),
// their values computed from the run's per-request data by Recompute's
// code: the records rebuilt from the file, metrics.Calculate, NumPy's
// percentiles. A threshold on p95_ttft_ms then needs no second run.
type Supplemented struct {
	base     Values
	computed map[string]float64
	notes    map[string]string
}

// Supplement answers the keys among keys that base lacks and that are
// latency statistic keys (resultkey.ParseStatKey) from the per-request
// data of data, the run base was read from (or an object of it). A run
// without per-request data (no --save-detailed) computes nothing; corrupt
// per-request lists are an error. A statistic whose metric the run did not
// measure (TPOT without a tokenizer, the client queue without
// --max-concurrency) stays missing.
func Supplement(base Values, data *resultfile.Run, keys []string) (*Supplemented, error) {
	s := &Supplemented{base: base, computed: map[string]float64{}, notes: map[string]string{}}
	var want []string
	var sel selection
	for _, k := range keys {
		if _, ok := base.Number(k); ok || slices.Contains(want, k) {
			continue
		}
		if m, st, ok := resultkey.ParseStatKey(k); ok {
			want = append(want, k)
			sel.add(m, st)
		}
	}
	if len(want) == 0 {
		return s, nil
	}
	d, err := data.Detailed()
	if errors.Is(err, resultfile.ErrNotDetailed) {
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	res, err := recompute(data, d, Options{PercentileMetrics: sel.metrics(), MetricPercentiles: sel.percentiles()}.withRun(data))
	if err != nil {
		return nil, err
	}
	again, err := resultfile.FromObject(data.Name(), res.Object(data))
	if err != nil {
		return nil, err
	}
	for _, k := range want {
		m, st, _ := resultkey.ParseStatKey(k)
		v, ok := again.Number(resultkey.StatKey(m, st))
		if !ok {
			continue
		}
		s.computed[k] = v
		records := "records"
		if len(d.Outputs) == 1 {
			records = "record"
		}
		note := fmt.Sprintf("computed from %d per-request %s, not in the result", len(d.Outputs), records)
		if !d.HasLatencies && m != resultkey.MetricTTFT && m != resultkey.MetricITL && m != resultkey.MetricClientQueueTime {
			note += "; no latencies in the file, so E2EL is TTFT plus the ITLs"
		}
		s.notes[k] = note
	}
	return s, nil
}

// Number returns the result's value of key, or the value computed for it.
func (s *Supplemented) Number(key string) (float64, bool) {
	if v, ok := s.base.Number(key); ok {
		return v, true
	}
	v, ok := s.computed[key]
	return v, ok
}

// String returns the result's value of key when it is text (nothing is
// computed as text).
func (s *Supplemented) String(key string) (string, bool) { return s.base.String(key) }

// Note says how the value of key was obtained when it was computed rather
// than read ("computed from 200 per-request records, not in the result"),
// and is "" otherwise.
func (s *Supplemented) Note(key string) string {
	if _, ok := s.base.Number(key); ok {
		return ""
	}
	return s.notes[key]
}

// selection gathers the metrics and percentiles a recomputation needs.
type selection struct {
	metricKeys []string
	labels     []string
}

func (sel *selection) add(metric string, st resultkey.Stat) {
	if !slices.Contains(sel.metricKeys, metric) {
		sel.metricKeys = append(sel.metricKeys, metric)
	}
	if st.Kind == resultkey.Percentile {
		if l := resultkey.PercentileLabel(st.P); !slices.Contains(sel.labels, l) {
			sel.labels = append(sel.labels, l)
		}
	}
}

// metrics is the --percentile-metrics value of the selection.
func (sel *selection) metrics() string { return strings.Join(sel.metricKeys, ",") }

// percentiles is the --metric-percentiles value ("" when no percentile is
// asked: the run's own are then computed).
func (sel *selection) percentiles() string { return strings.Join(sel.labels, ",") }
