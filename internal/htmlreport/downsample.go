package htmlreport

import (
	"math"
	"sort"
)

// MaxPoints is the most points one series of a chart keeps (see the
// package documentation for the rule).
const MaxPoints = 2000

// MaxTimelineRequests is the most requests the per-request timeline draws.
const MaxTimelineRequests = 2000

// MinMax downsamples the line (x[i], y[i]) (x ascending) to at most max
// points: when longer, the points are cut into max/2 buckets of
// consecutive points and each bucket keeps its lowest and highest point,
// in x order. A NaN y is never chosen unless the whole bucket is NaN.
func MinMax(x, y []float64, max int) (xs, ys []float64) {
	if len(x) <= max || max < 2 {
		return x, y
	}
	buckets := max / 2
	xs, ys = make([]float64, 0, max), make([]float64, 0, max)
	for b := range buckets {
		lo, hi := b*len(x)/buckets, (b+1)*len(x)/buckets
		if lo >= hi {
			continue
		}
		iMin, iMax := lo, lo
		for i := lo; i < hi; i++ {
			if !math.IsNaN(y[i]) && (math.IsNaN(y[iMin]) || y[i] < y[iMin]) {
				iMin = i
			}
			if !math.IsNaN(y[i]) && (math.IsNaN(y[iMax]) || y[i] > y[iMax]) {
				iMax = i
			}
		}
		first, second := min(iMin, iMax), max2(iMin, iMax)
		xs, ys = append(xs, x[first]), append(ys, y[first])
		if second != first {
			xs, ys = append(xs, x[second]), append(ys, y[second])
		}
	}
	return xs, ys
}

func max2(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// CDF is the empirical distribution of values: x the sorted values, y the
// share of values at or below each, keeping at most max points evenly
// spaced in rank (the first and the last always).
func CDF(values []float64, max int) (xs, ys []float64) {
	v := append([]float64(nil), values...)
	sort.Float64s(v)
	n := len(v)
	if n == 0 {
		return nil, nil
	}
	keep := min(n, max)
	for k := range keep {
		i := k * (n - 1) / max2(keep-1, 1)
		xs = append(xs, v[i])
		ys = append(ys, float64(i+1)/float64(n))
	}
	return xs, ys
}

// Every is the stride k of the timeline's rule: the smallest k for which
// every k-th of n requests is at most max requests.
func Every(n, max int) int {
	if n <= max || max < 1 {
		return 1
	}
	return (n + max - 1) / max
}

// Histogram counts values in bins equal-width bins over [lo, hi]; edges
// has bins+1 entries. A value equal to hi falls in the last bin. A range
// narrower than a billionth of hi is widened around it.
func Histogram(values []float64, lo, hi float64, bins int) (edges, counts []float64) {
	if hi-lo <= 1e-9*math.Max(1, math.Abs(hi)) {
		// One value, up to rounding (every TPOT equal): one bin's width
		// around it, so that the axis has a scale.
		pad := math.Max(math.Abs(lo)/10, 0.5)
		lo, hi = lo-pad, hi+pad
	}
	w := (hi - lo) / float64(bins)
	edges = make([]float64, bins+1)
	for i := range edges {
		edges[i] = lo + float64(i)*w
	}
	counts = make([]float64, bins)
	for _, v := range values {
		if math.IsNaN(v) {
			continue
		}
		i := int((v - lo) / w)
		i = min(max2(i, 0), bins-1)
		counts[i]++
	}
	return edges, counts
}

// LogHistogram counts positive values in bins bins of equal width on a
// log scale over [lo, hi] (both positive): Histogram of the logarithms,
// its edges brought back.
func LogHistogram(values []float64, lo, hi float64, bins int) (edges, counts []float64) {
	logs := make([]float64, len(values))
	for i, v := range values {
		logs[i] = math.Log(v)
	}
	edges, counts = Histogram(logs, math.Log(lo), math.Log(hi), bins)
	for i := range edges {
		edges[i] = math.Exp(edges[i])
	}
	return edges, counts
}
