package servermetrics

import (
	"math"
	"sort"
)

// Estimate is a quantile estimated from a histogram, and the bucket it
// came from: the true quantile lies in (Lower, Upper], however precise
// Value looks.
type Estimate struct {
	// Value is histogram_quantile's answer; NaN when there is none (no
	// observations, no +Inf bucket, fewer than two buckets).
	Value float64
	// Lower and Upper bound the bucket that holds the rank. For the
	// lowest bucket Lower is 0 (or -Inf when its upper bound is not
	// positive); for the +Inf bucket Upper is +Inf and Value is Lower,
	// a lower bound only.
	Lower, Upper float64
	// Lowest says the rank fell in the lowest bucket: Value is then an
	// interpolation between 0 and that bucket's bound, which says little
	// about small values.
	Lowest bool
}

// OK reports whether the estimate has a value.
func (e Estimate) OK() bool { return !math.IsNaN(e.Value) }

// InInf reports whether the rank fell in the +Inf bucket, where only a
// lower bound is known.
func (e Estimate) InInf() bool { return math.IsInf(e.Upper, 1) }

// precisionTolerance is the relative difference below which two
// successive cumulative counts are taken as equal (Prometheus'
// correctPrecisionErrors, promql/quantile.go@01381a801).
const precisionTolerance = 1e-12

// Quantile estimates the q-quantile (0 <= q <= 1) as Prometheus'
// histogram_quantile does for a classic histogram (bucketQuantile in
// promql/quantile.go@01381a801), with the bucket it lies in.
func (h *Histogram) Quantile(q float64) Estimate {
	none := Estimate{Value: math.NaN(), Lower: math.NaN(), Upper: math.NaN()}
	switch {
	case math.IsNaN(q):
		return none
	case q < 0:
		none.Value = math.Inf(-1)
		return none
	case q > 1:
		none.Value = math.Inf(1)
		return none
	}
	bs := append([]Bucket(nil), h.Buckets...)
	sortBuckets(bs)
	if len(bs) == 0 || !math.IsInf(bs[len(bs)-1].UpperBound, 1) {
		return none
	}
	bs = coalesce(bs)
	fixPrecision(bs)
	ensureMonotonic(bs)
	if len(bs) < 2 {
		return none
	}
	observations := bs[len(bs)-1].Count
	if observations == 0 {
		return none
	}
	rank := q * observations
	b := sort.Search(len(bs)-1, func(i int) bool { return bs[i].Count >= rank })
	if b == len(bs)-1 {
		ub := bs[len(bs)-2].UpperBound
		return Estimate{Value: ub, Lower: ub, Upper: math.Inf(1)}
	}
	if b == 0 && bs[0].UpperBound <= 0 {
		return Estimate{Value: bs[0].UpperBound, Lower: math.Inf(-1), Upper: bs[0].UpperBound, Lowest: true}
	}
	start, end, count := 0.0, bs[b].UpperBound, bs[b].Count
	if b > 0 {
		start = bs[b-1].UpperBound
		count -= bs[b-1].Count
		rank -= bs[b-1].Count
	}
	return Estimate{Value: start + (end-start)*(rank/count), Lower: start, Upper: end, Lowest: b == 0}
}

// coalesce merges sorted buckets with equal upper bounds.
func coalesce(bs []Bucket) []Bucket {
	out := bs[:1]
	for _, b := range bs[1:] {
		if last := &out[len(out)-1]; b.UpperBound == last.UpperBound {
			last.Count += b.Count
		} else {
			out = append(out, b)
		}
	}
	return out
}

// fixPrecision sets a count that differs from the previous one by less
// than precisionTolerance (relative) to the previous one, so that float
// noise cannot break monotonicity.
func fixPrecision(bs []Bucket) {
	prev := bs[0].Count
	for i := 1; i < len(bs); i++ {
		curr := bs[i].Count
		delta := math.Abs(curr - prev)
		if delta == 0 {
			continue
		}
		if delta/curr <= precisionTolerance {
			bs[i].Count = prev
		} else {
			prev = curr
		}
	}
}

// ensureMonotonic raises every count to the largest before it (the
// envelope), as Prometheus does for inconsistent data.
func ensureMonotonic(bs []Bucket) {
	top := bs[0].Count
	for i := 1; i < len(bs); i++ {
		if bs[i].Count > top {
			top = bs[i].Count
		} else {
			bs[i].Count = top
		}
	}
}
