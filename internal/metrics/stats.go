package metrics

import (
	"math"
	"slices"
)

// pairwiseBlock is NumPy's PW_BLOCKSIZE: below it the sum is unrolled over
// eight accumulators, above it the range is split in two.
const pairwiseBlock = 128

// pairwiseSum reproduces the C function DOUBLE_pairwise_sum of NumPy 1.24
// (numpy/core/src/umath/loops_utils.h.src), which np.add.reduce uses for a
// contiguous float64 array. The association order of the additions is what
// makes the result differ from a naive loop in the last bits, so it is
// copied literally:
//
//   - n < 8: a plain left-to-right loop starting from 0.
//   - n <= 128: eight accumulators r[j] += a[i+j] over whole blocks of 8,
//     combined as ((r0+r1)+(r2+r3)) + ((r4+r5)+(r6+r7)), then the tail
//     added one by one.
//   - otherwise: split at n2 = n/2 rounded down to a multiple of 8 and add
//     the two halves' sums.
func pairwiseSum(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		res := 0.0
		for _, v := range a {
			res += v
		}
		return res
	case n <= pairwiseBlock:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			r[0] += a[i]
			r[1] += a[i+1]
			r[2] += a[i+2]
			r[3] += a[i+3]
			r[4] += a[i+4]
			r[5] += a[i+5]
			r[6] += a[i+6]
			r[7] += a[i+7]
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += a[i]
		}
		return res
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return pairwiseSum(a[:n2]) + pairwiseSum(a[n2:])
	}
}

// reduceBuffer is NumPy's default ufunc buffer size (np.getbufsize(),
// 8192 elements): the reduction iterator hands the inner loop at most this
// many elements at a time.
const reduceBuffer = 8192

// sum is np.add.reduce over a float64 vector: the reduction starts from the
// ufunc identity 0.0 and adds, chunk by chunk of reduceBuffer elements, the
// pairwise sum of each chunk (so the pairwise tree is cut every 8192
// elements, and a sum of negative zeros is +0, as in NumPy).
func sum(xs []float64) float64 {
	res := 0.0
	for len(xs) > reduceBuffer {
		res += pairwiseSum(xs[:reduceBuffer])
		xs = xs[reduceBuffer:]
	}
	return res + pairwiseSum(xs)
}

// Mean returns np.mean(xs or 0): the sum of xs as NumPy's add.reduce
// computes it (pairwise summation in blocks of 128 with 8 accumulators,
// restarted every 8192 elements, the ufunc buffer size) divided by
// len(xs). Verified bit for bit against NumPy 1.24.2 up to 100,003
// elements (stats_test.go). An
// empty slice yields 0, because vLLM computes every statistic on
// `xs or 0` (serve.py calculate_metrics), i.e. on the scalar 0.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return sum(xs) / float64(len(xs))
}

// Std returns np.std(xs or 0), the population standard deviation (ddof=0)
// computed as NumPy's _var does: m = Mean(xs); d_i = x_i - m; the squares
// d_i*d_i are summed pairwise, divided by n and square-rooted. An empty
// slice yields 0.
func Std(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	m := Mean(xs)
	sq := make([]float64, len(xs))
	for i, x := range xs {
		d := x - m
		// The explicit conversion forbids fusing into an FMA with a later
		// addition: NumPy rounds the product before summing.
		sq[i] = float64(d * d)
	}
	return math.Sqrt(sum(sq) / float64(len(xs)))
}

// Median returns np.median(xs or 0). NumPy takes the mean of the middle
// element (odd n) or of the two middle elements (even n) of the sorted data,
// i.e. (0 + a + b) / 2 summed left to right — which can differ in the last
// bit from Percentile(xs, 50), whose _lerp computes b - (b-a)*0.5. A NaN
// anywhere yields NaN; an empty slice yields 0. xs is not modified.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return medianSorted(sortedCopy(xs))
}

// Percentile returns np.percentile(xs or 0, p) with NumPy's default
// "linear" method (Hyndman–Fan type 7), reproduced operation for operation
// from numpy/lib/function_base.py (_quantile, _get_indexes, _lerp):
//
//	q   = p / 100
//	h   = (n-1) * q
//	lo  = floor(h); hi = lo + 1; if h >= n-1 then lo = hi = -1 (last element)
//	g   = h - lo          (note: h + 1 in the clamped case, as in NumPy)
//	res = a + (b-a)*g     if g < 0.5
//	res = b - (b-a)*(1-g) otherwise          (_lerp)
//
// with a = x[lo], b = x[hi] of the sorted data. A NaN in xs yields NaN. An
// empty slice yields 0. p is expected in [0, 100] (ParseMetricPercentiles
// rejects anything else); xs is not modified.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return percentileSorted(sortedCopy(xs), p)
}

// Percentiles returns Percentile(xs, p) for each p, sorting xs once: a
// run's ITL list holds one value per token event, and sorting it again
// for each figure is what a summary of a long run spends its time on.
func Percentiles(xs []float64, ps ...float64) []float64 {
	return PercentilesInPlace(slices.Clone(xs), ps...)
}

// PercentilesInPlace is Percentiles for a caller whose xs is its own to
// reorder: it sorts xs itself instead of a copy, so a list of every
// inter-token gap of a long run is held once, not twice, at the end of
// the run. xs is left sorted.
func PercentilesInPlace(xs []float64, ps ...float64) []float64 {
	out := make([]float64, len(ps))
	if len(xs) == 0 {
		return out
	}
	slices.Sort(xs)
	for i, p := range ps {
		out[i] = percentileSorted(xs, p)
	}
	return out
}

// sortedCopy returns xs sorted ascending without touching xs. NaNs sort
// first (slices.Sort's order), which medianSorted and percentileSorted
// check to return NaN as NumPy does.
func sortedCopy(xs []float64) []float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s
}

func hasNaN(sorted []float64) bool {
	return len(sorted) > 0 && math.IsNaN(sorted[0])
}

func medianSorted(s []float64) float64 {
	n := len(s)
	if n == 0 {
		return 0
	}
	if hasNaN(s) {
		return math.NaN()
	}
	if n%2 == 1 {
		return sum(s[n/2:n/2+1]) / 1
	}
	return sum(s[n/2-1:n/2+1]) / 2
}

func percentileSorted(s []float64, p float64) float64 {
	n := len(s)
	if n == 0 {
		return 0
	}
	if hasNaN(s) {
		return math.NaN()
	}
	q := p / 100
	h := float64(n-1) * q
	lo := math.Floor(h)
	var a, b float64
	if h >= float64(n-1) || math.IsNaN(h) {
		// NumPy marks both neighbours as index -1 (the last element) and
		// still computes gamma against -1.
		lo = -1
		a, b = s[n-1], s[n-1]
	} else {
		a, b = s[int(lo)], s[int(lo)+1]
	}
	return Lerp(a, b, h-lo)
}

// Lerp is NumPy's _lerp, the interpolation of np.percentile's "linear"
// method: it interpolates from the nearer end so that t == 1 yields b
// exactly. The conversions keep each product rounded on its own (no FMA),
// as NumPy's separate ufunc calls do.
func Lerp(a, b, t float64) float64 {
	diff := b - a
	if t >= 0.5 {
		return b - float64(diff*(1-t))
	}
	return a + float64(diff*t)
}

// Stats are the summary statistics vLLM keeps for one metric, in
// milliseconds: mean, median and population std of the values, and one
// value per selected percentile (serve.py calculate_metrics:
// mean_*_ms, median_*_ms, std_*_ms, percentiles_*_ms).
type Stats struct {
	// Mean is np.mean(xs or 0) * 1000.
	Mean float64
	// Median is np.median(xs or 0) * 1000.
	Median float64
	// Std is np.std(xs or 0) * 1000 (ddof=0).
	Std float64
	// Percentiles holds np.percentile(xs or 0, p) * 1000 for each selected
	// p, in the order of the selection (duplicates kept).
	Percentiles []PercentileValue
}

// PercentileValue is one (p, value) pair of Stats.Percentiles, vLLM's
// tuple (p, np.percentile(xs or 0, p) * 1000).
type PercentileValue struct {
	// P is the percentile as given on the command line (0..100).
	P float64
	// Value is the percentile in milliseconds.
	Value float64
}

// Summarize computes Stats for values given in seconds, as vLLM's
// calculate_metrics does for each metric: the statistic is taken on the
// seconds and multiplied by 1000 afterwards. The data are sorted once for
// the median and all percentiles; the mean and std use the original order,
// because the pairwise sum depends on it.
func Summarize(seconds []float64, percentiles []float64) Stats {
	return SummarizeInPlace(slices.Clone(seconds), percentiles)
}

// SummarizeInPlace is Summarize for a caller whose seconds are its own to
// reorder: the mean and std are taken first, in the samples' order, then
// seconds itself is sorted for the median and percentiles instead of a
// copy of it (a run's list of every inter-token gap is then held once
// more, not twice). seconds is left sorted.
func SummarizeInPlace(seconds []float64, percentiles []float64) Stats {
	st := Stats{
		Mean:        Mean(seconds) * 1000,
		Std:         Std(seconds) * 1000,
		Percentiles: make([]PercentileValue, len(percentiles)),
	}
	slices.Sort(seconds)
	st.Median = medianSorted(seconds) * 1000
	for i, p := range percentiles {
		st.Percentiles[i] = PercentileValue{P: p, Value: percentileSorted(seconds, p) * 1000}
	}
	return st
}
