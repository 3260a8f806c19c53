package metrics

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestCalculateConcurrency reproduces tests/benchmarks/test_serve_metrics.py
// @07fd367e (the first five rows, with min_start = min of the starts as its
// _concurrency helper does) plus the step points this port records.
func TestCalculateConcurrency(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		intervals  [][2]float64
		minStart   float64
		wantPeak   int
		wantTimes  []float64 // nil: not checked
		wantLevels []int
		atOne      []int // levels recorded at time 1.0, when non-nil
	}{
		// half-open: one ends at 1.0 as the next starts => never 2
		{name: "half open", intervals: [][2]float64{{0, 1}, {1, 2}}, wantPeak: 1},
		// genuine overlap
		{name: "overlap", intervals: [][2]float64{{0, 1.5}, {1, 2}}, wantPeak: 2},
		// five sequential 0.1 s requests in one second: the baseline histogram said 5
		{name: "sequential subsecond",
			intervals: [][2]float64{{0, 0.1}, {0.2, 0.3}, {0.4, 0.5}, {0.6, 0.7}, {0.8, 0.9}}, wantPeak: 1},
		// simultaneous departures and arrivals form one step 2 -> 3
		{name: "grouped instant",
			intervals: [][2]float64{{0, 1}, {0, 1}, {1, 2}, {1, 2}, {1, 2}}, wantPeak: 3,
			wantTimes:  []float64{0, 0, 1, 1, 2, 2},
			wantLevels: []int{0, 2, 2, 3, 3, 0},
			atOne:      []int{2, 3}},
		// zero latency is an empty interval
		{name: "zero latency", intervals: [][2]float64{{0, 0}}, wantPeak: 0,
			wantTimes: []float64{}, wantLevels: []int{}},
		// no requests at all
		{name: "empty", intervals: nil, wantPeak: 0, wantTimes: []float64{}, wantLevels: []int{}},
		// times are relative to minStart; an instant with no net change records no step
		{name: "relative times", intervals: [][2]float64{{10, 11}, {11, 12}}, minStart: 10, wantPeak: 1,
			wantTimes: []float64{0, 0, 2, 2}, wantLevels: []int{0, 1, 1, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			peak, times, levels := CalculateConcurrency(tt.intervals, tt.minStart)
			if peak != tt.wantPeak {
				t.Errorf("peak = %d, want %d", peak, tt.wantPeak)
			}
			if len(times) != len(levels) {
				t.Fatalf("len(times) %d != len(levels) %d", len(times), len(levels))
			}
			if tt.wantTimes != nil {
				if diff := cmp.Diff(tt.wantTimes, times, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("times (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tt.wantLevels, levels, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("levels (-want +got):\n%s", diff)
				}
			}
			if tt.atOne != nil {
				var got []int
				for i, tm := range times {
					if tm == 1.0 {
						got = append(got, levels[i])
					}
				}
				if !cmp.Equal(tt.atOne, got) {
					t.Errorf("levels at 1.0 = %v, want %v", got, tt.atOne)
				}
			}
		})
	}
}
