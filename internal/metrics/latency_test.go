package metrics

import (
	"testing"

	"github.com/gobench/gobench/internal/resultkey"
	"github.com/google/go-cmp/cmp"
)

// TestRequestLatencies reads each metric off one request of five tokens
// and off a request of one token (which has no TPOT and no ITL).
func TestRequestLatencies(t *testing.T) {
	t.Parallel()
	five := &Output{Success: true, TTFT: 0.5, Latency: 1.5, ITL: []float64{0.25, 0.25, 0.25, 0.25}, ClientQueueTime: 0.125}
	one := &Output{Success: true, TTFT: 0.5, Latency: 0.5}
	tests := []struct {
		metric    string
		o         *Output
		n         int
		want      []float64
		wantKnown bool
	}{
		{resultkey.MetricTTFT, five, 5, []float64{0.5}, true},
		{resultkey.MetricTPOT, five, 5, []float64{0.25}, true},
		{resultkey.MetricTPOT, one, 1, nil, true},
		{resultkey.MetricITL, five, 5, []float64{0.25, 0.25, 0.25, 0.25}, true},
		{resultkey.MetricITL, one, 1, nil, true},
		{resultkey.MetricE2EL, five, 5, []float64{1.5}, true},
		{resultkey.MetricClientQueueTime, five, 5, []float64{0.125}, true},
		{resultkey.MetricE2ELIncludingClientQueue, five, 5, []float64{1.625}, true},
		{"nope", five, 5, nil, false},
	}
	for _, tt := range tests {
		got, ok := RequestLatencies(tt.o, tt.n, tt.metric)
		if ok != tt.wantKnown || !cmp.Equal(got, tt.want) {
			t.Errorf("%s of %d tokens: %v, %v; want %v, %v", tt.metric, tt.n, got, ok, tt.want, tt.wantKnown)
		}
	}
}

// TestRequestLatenciesMatchCalculate: every metric of resultkey's table
// has its per-request values here, and Calculate's statistics of it are
// the statistics of those values over the successful requests: a metric
// added to one and not the other fails.
func TestRequestLatenciesMatchCalculate(t *testing.T) {
	t.Parallel()
	outputs := append(seedOutputs(), Output{Success: false, Error: "boom"})
	for i := range outputs {
		outputs[i].ClientQueueTime = 0.01 * float64(i)
	}
	cfg := seedConfig()
	cfg.MaxConcurrency = 4
	r := Calculate(outputs, 8, cfg)
	sections := map[string]Stats{}
	for _, s := range r.Sections() {
		sections[s.Key] = s.Stats
	}
	for _, m := range resultkey.Metrics() {
		var values []float64
		for i := range outputs {
			if !outputs[i].Success {
				continue
			}
			v, ok := RequestLatencies(&outputs[i], r.ActualOutputLens[i], m.Key)
			if !ok {
				t.Fatalf("%s: no per-request values", m.Key)
			}
			values = append(values, v...)
		}
		got, ok := sections[m.Key]
		if !ok {
			t.Errorf("%s: Calculate has no section of it", m.Key)
			continue
		}
		if diff := cmp.Diff(Summarize(values, cfg.Percentiles), got); diff != "" {
			t.Errorf("%s (-per request +Calculate):\n%s", m.Key, diff)
		}
	}
}
