package servermetrics

import (
	"math"
	"testing"
)

// h builds a histogram from (upper bound, cumulative count) pairs.
func h(pairs ...float64) *Histogram {
	out := &Histogram{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out.Buckets = append(out.Buckets, Bucket{UpperBound: pairs[i], Count: pairs[i+1]})
	}
	return out
}

var inf = math.Inf(1)

// seedQueue and seedTTFT are the design notes' sample scrape (3000
// requests).
func seedQueue() *Histogram {
	return h(0.05, 2100, 0.1, 2350, 0.25, 2600, 0.5, 2780, 1.0, 2900, 2.5, 2970, 5.0, 2995, inf, 3000)
}

func seedTTFT() *Histogram {
	return h(0.05, 120, 0.1, 480, 0.25, 1630, 0.5, 2410, 1.0, 2790, 2.5, 2950, 5.0, 2990, inf, 3000)
}

// TestQuantile checks histogram_quantile's arithmetic on cases worked by
// hand: rank = q x the +Inf bucket's count; the first bucket whose count
// reaches the rank holds it; value = start + (end - start) x (rank -
// count below) / (count in bucket).
func TestQuantile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		h            *Histogram
		q            float64
		want         float64
		lower, upper float64
		lowest       bool
	}{
		// rank 1500 <= 2100 in the lowest bucket, from 0: 0.05 x 1500/2100.
		{"seed queue p50", seedQueue(), 0.5, 0.05 * 1500 / 2100, 0, 0.05, true},
		// rank 2850 in (0.5, 1]: 0.5 + 0.5 x (2850-2780)/(2900-2780).
		{"seed queue p95", seedQueue(), 0.95, 0.5 + 0.5*70.0/120, 0.5, 1, false},
		// rank 2970 equals the 2.5 bucket's count: its top, 1 + 1.5 x 70/70.
		{"seed queue p99", seedQueue(), 0.99, 2.5, 1, 2.5, false},
		// rank 1500 in (0.1, 0.25]: 0.1 + 0.15 x (1500-480)/(1630-480).
		{"seed TTFT p50", seedTTFT(), 0.5, 0.1 + 0.15*1020.0/1150, 0.1, 0.25, false},
		// rank 2850 in (1, 2.5]: 1 + 1.5 x (2850-2790)/(2950-2790) = 1.5625.
		{"seed TTFT p95", seedTTFT(), 0.95, 1.5625, 1, 2.5, false},
		// rank 2970 in (2.5, 5]: 2.5 + 2.5 x 20/40 = 3.75.
		{"seed TTFT p99", seedTTFT(), 0.99, 3.75, 2.5, 5, false},
		// Every observation above the last finite bound: the +Inf rule
		// gives that bound, the second-highest bucket's.
		{"+Inf bucket", h(1, 0, 2, 0, inf, 3), 0.5, 2, 2, inf, false},
		// The lowest bucket's bound is <= 0: the bound itself.
		{"non-positive lowest bucket", h(-1, 5, 0, 5, inf, 10), 0.25, -1, math.Inf(-1), -1, true},
		// Counts 5, 3, 8, 8 become the envelope 5, 5, 8, 8: rank 6 in
		// (2, 3]: 2 + 1 x (6-5)/(8-5).
		{"monotonicity fixed", h(1, 5, 2, 3, 3, 8, inf, 8), 0.75, 2 + 1.0/3, 2, 3, false},
		// Equal bounds merge: le=1 holds 2+3 = 5 of 10; rank 5 -> its top.
		{"equal bounds coalesced", h(1, 2, 1, 3, inf, 10), 0.5, 1, 0, 1, true},
		// 1 and 1+1e-13 are equal within 1e-12, so le=2 holds none of its
		// own; rank 1 (of 2) is reached at le=1's top: 1 x 1/1.
		{"float noise", h(1, 1, 2, 1+1e-13, inf, 2), 0.5, 1, 0, 1, true},
		// Bounds out of order are sorted first.
		{"unsorted", h(inf, 4, 2, 4, 1, 2), 0.5, 1, 0, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.h.Quantile(tt.q)
			if math.Abs(got.Value-tt.want) > 1e-12 || got.Lower != tt.lower || got.Upper != tt.upper || got.Lowest != tt.lowest {
				t.Errorf("Quantile(%v) = %+v, want %v in (%v, %v] lowest %v", tt.q, got, tt.want, tt.lower, tt.upper, tt.lowest)
			}
		})
	}
}

// TestQuantileNone checks the cases without an answer, as Prometheus:
// NaN for no observations, no +Inf bucket, fewer than two buckets or a NaN
// q; -Inf and +Inf for q out of [0, 1].
func TestQuantileNone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		h    *Histogram
		q    float64
		want float64
	}{
		{"empty", h(1, 0, inf, 0), 0.5, math.NaN()},
		{"no buckets", h(), 0.5, math.NaN()},
		{"no +Inf bucket", h(1, 3, 2, 5), 0.5, math.NaN()},
		{"+Inf only", h(inf, 5), 0.5, math.NaN()},
		{"NaN q", seedTTFT(), math.NaN(), math.NaN()},
		{"q < 0", seedTTFT(), -0.1, math.Inf(-1)},
		{"q > 1", seedTTFT(), 1.1, math.Inf(1)},
	}
	for _, tt := range tests {
		got := tt.h.Quantile(tt.q).Value
		if !(math.IsNaN(tt.want) && math.IsNaN(got)) && got != tt.want {
			t.Errorf("%s: Quantile(%v) = %v, want %v", tt.name, tt.q, got, tt.want)
		}
	}
	if e := h(1, 0, inf, 0).Quantile(0.5); e.OK() {
		t.Errorf("empty histogram: OK() true")
	}
}

// TestQuantileKeepsBuckets checks that estimating does not reorder or
// change the histogram's own buckets.
func TestQuantileKeepsBuckets(t *testing.T) {
	t.Parallel()
	x := h(2, 3, 1, 5, inf, 8)
	x.Quantile(0.5)
	if x.Buckets[0].UpperBound != 2 || x.Buckets[1].Count != 5 {
		t.Errorf("buckets changed: %+v", x.Buckets)
	}
}
