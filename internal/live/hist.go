package live

import (
	"math"
	"math/bits"
	"sync/atomic"
)

// The histogram's buckets are logarithmic in microseconds: exact below
// 16 µs, then 16 buckets per power of two, so that a quantile read from
// them is within 3 % of the exact one (half a bucket's width); the last
// bucket holds everything from about 12 days on. An index is two shifts
// and a bit count, no logarithm, as it is taken once per token at each
// request's completion.
const (
	subBuckets = 16
	subBits    = 4
	maxExp     = 36
	// NumBuckets is the number of buckets of a Hist.
	NumBuckets = (maxExp+2)*subBuckets - 1
)

// Hist is a histogram of durations in seconds that many goroutines add
// to without a lock: one atomic add per value. Its zero value is empty.
type Hist struct {
	counts [NumBuckets]atomic.Uint64
}

// bucketOf is the bucket of a value of seconds (below zero: the first).
func bucketOf(seconds float64) int {
	if !(seconds > 0) { // NaN too
		return 0
	}
	us := seconds * 1e6
	if us >= float64(uint64(1)<<(maxExp+subBits+1)) {
		return NumBuckets - 1
	}
	u := uint64(us)
	if u < subBuckets {
		return int(u)
	}
	e := bits.Len64(u) - (subBits + 1)
	return (e+1)*subBuckets + int(u>>e) - subBuckets
}

// bucketMid is the middle of bucket i, in seconds.
func bucketMid(i int) float64 {
	if i < subBuckets {
		return (float64(i) + 0.5) / 1e6
	}
	e := i/subBuckets - 1
	m := uint64(subBuckets + i%subBuckets)
	lo, hi := m<<e, (m+1)<<e
	return (float64(lo) + float64(hi)) / 2 / 1e6
}

// Add counts one value of seconds.
func (h *Hist) Add(seconds float64) { h.counts[bucketOf(seconds)].Add(1) }

// Counts is a copy of a Hist's buckets at one moment.
type Counts [NumBuckets]uint64

// Read copies h's buckets into c. A value added meanwhile may or may not
// be in the copy; the copy is never more than what was added.
func (h *Hist) Read(c *Counts) {
	for i := range c {
		c[i] = h.counts[i].Load()
	}
}

// Quantiles are the figures of a histogram the view shows.
type Quantiles struct {
	// N is the number of values; P50 and P99 their median and 99th
	// percentile in seconds (NaN when N is 0).
	N        uint64
	P50, P99 float64
}

// QuantilesOf reads the quantiles of the values of now that are not in
// before (before nil: all of now's).
func QuantilesOf(now, before *Counts) Quantiles {
	var n uint64
	for i := range now {
		n += now[i] - at(before, i)
	}
	q := Quantiles{N: n, P50: math.NaN(), P99: math.NaN()}
	if n == 0 {
		return q
	}
	r50, r99 := rankOf(0.5, n), rankOf(0.99, n)
	var seen uint64
	for i := range now {
		seen += now[i] - at(before, i)
		if seen >= r50 && math.IsNaN(q.P50) {
			q.P50 = bucketMid(i)
		}
		if seen >= r99 {
			q.P99 = bucketMid(i)
			break
		}
	}
	return q
}

// at is c's bucket i, 0 for a nil c.
func at(c *Counts, i int) uint64 {
	if c == nil {
		return 0
	}
	return c[i]
}

// rankOf is the 1-based rank of quantile q among n values (the nearest
// rank: the value that at least q of them do not exceed).
func rankOf(q float64, n uint64) uint64 {
	return max(1, uint64(math.Ceil(q*float64(n))))
}
