package live

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBucketsAreOrderedAndNarrow checks that the buckets cover the values
// in order and that each bucket's middle is within 3.2 % of every value it
// holds from 16 µs on (below, the buckets are a microsecond wide).
func TestBucketsAreOrderedAndNarrow(t *testing.T) {
	last := 0
	for us := 1.0; us < 1e12; us *= 1.0007 {
		s := us / 1e6
		i := bucketOf(s)
		if i < last {
			t.Fatalf("bucket of %g s is %d, below the bucket %d of a smaller value", s, i, last)
		}
		last = i
		if us >= subBuckets && math.Abs(bucketMid(i)-s)/s > 0.032 {
			t.Fatalf("value %g s in bucket %d of middle %g s: more than 3.2 %% off", s, i, bucketMid(i))
		}
	}
	for _, tc := range []struct {
		seconds float64
		want    int
	}{{-1, 0}, {math.NaN(), 0}, {0, 0}, {5e-6, 5}, {1e9, NumBuckets - 1}, {math.Inf(1), NumBuckets - 1}} {
		if got := bucketOf(tc.seconds); got != tc.want {
			t.Errorf("bucketOf(%g) = %d, want %d", tc.seconds, got, tc.want)
		}
	}
}

// TestQuantilesNearExact compares the histogram's quantiles with the exact
// nearest-rank ones of the same values.
func TestQuantilesNearExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		draw func() float64
	}{
		{"exponential", func() float64 { return 0.05 * r.ExpFloat64() }},
		{"lognormal", func() float64 { return math.Exp(r.NormFloat64()) }},
		{"constant", func() float64 { return 0.012 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h Hist
			vals := make([]float64, 5000)
			for i := range vals {
				vals[i] = tc.draw()
				h.Add(vals[i])
			}
			slices.Sort(vals)
			var c Counts
			h.Read(&c)
			q := QuantilesOf(&c, nil)
			exact := func(p float64) float64 { return vals[rankOf(p, uint64(len(vals)))-1] }
			if q.N != uint64(len(vals)) {
				t.Fatalf("N = %d, want %d", q.N, len(vals))
			}
			for _, p := range []struct{ got, want float64 }{{q.P50, exact(0.5)}, {q.P99, exact(0.99)}} {
				if math.Abs(p.got-p.want)/p.want > 0.032 {
					t.Errorf("quantile %g, exact %g: more than 3.2 %% off", p.got, p.want)
				}
			}
		})
	}
}

// TestQuantilesOfDifference reads the quantiles of the values added
// between two copies only.
func TestQuantilesOfDifference(t *testing.T) {
	var h Hist
	for range 100 {
		h.Add(1)
	}
	var before, now Counts
	h.Read(&before)
	for range 10 {
		h.Add(0.001)
	}
	h.Read(&now)
	q := QuantilesOf(&now, &before)
	if q.N != 10 || math.Abs(q.P99-0.001) > 0.0001 {
		t.Errorf("quantiles of the difference = %+v, want 10 values near 1 ms", q)
	}
	if e := QuantilesOf(&before, &before); e.N != 0 || !math.IsNaN(e.P50) {
		t.Errorf("quantiles of nothing = %+v, want N 0 and NaN", e)
	}
}
