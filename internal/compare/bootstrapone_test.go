package compare

import (
	"math"
	"testing"
)

// TestBootstrapOne: the one-sample interval surrounds the sample's own
// statistic, collapses to it when every request has the same value, and
// depends only on the seed.
func TestBootstrapOne(t *testing.T) {
	var groups [][]float64
	for i := range 200 {
		groups = append(groups, []float64{float64(i)})
	}
	s := NewSample(groups)
	stats := []Statistic{{Kind: Median}, {Kind: Percentile, P: 90}, {Kind: Mean}}
	o := Options{Resamples: 500, Confidence: 0.95, Seed: 7}
	est := s.Estimate(stats)
	ivs := BootstrapOne(s, stats, o, "ttft")
	for i, iv := range ivs {
		if !(iv.Low < est[i] && est[i] < iv.High) {
			t.Errorf("%v: estimate %v outside [%v, %v]", stats[i], est[i], iv.Low, iv.High)
		}
		// A 95 % interval of a statistic of 200 uniform values spans a
		// few percent of the range, not all of it.
		if w := iv.High - iv.Low; !(w > 1 && w < 60) {
			t.Errorf("%v: width %v", stats[i], w)
		}
	}
	o.Workers = 1
	again := BootstrapOne(s, stats, o, "ttft")
	for i := range ivs {
		if ivs[i] != again[i] {
			t.Errorf("%v: %v with all cores, %v with one", stats[i], ivs[i], again[i])
		}
	}
	flat := NewSample([][]float64{{3}, {3}, {3}, {3}})
	iv := BootstrapOne(flat, []Statistic{{Kind: Percentile, P: 99}}, o, "x")[0]
	if iv.Low != 3 || iv.High != 3 || math.IsNaN(iv.Low) {
		t.Errorf("constant sample: %v", iv)
	}
}
