// Package runset is a set of repeated runs of one configuration (`gobench
// serve --num-runs N`): the statistics of each metric across the runs
// (mean, standard deviation, range, coefficient of variation and a
// Student-t confidence interval of the mean), the test of the difference
// between two sets across runs (Welch's t interval), and the set file that
// lists the runs' result files with those statistics. The statistics come
// from gonum (stat, stat/distuv): across a handful of runs the question is
// the run-to-run spread, which NumPy-exactness does not bear on.
package runset

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// DefaultConfidence is the level of the intervals across runs: 95 %, the
// usual level for a single quantity (compare's per-request bootstrap uses
// 99 % because it tests a dozen statistics at once).
const DefaultConfidence = 0.95

// Summary describes one metric across the runs of a set.
type Summary struct {
	// N is the number of runs the metric was measured in.
	N int
	// Mean, Min and Max are over the runs.
	Mean, Min, Max float64
	// Std is the sample standard deviation (divisor N−1), CV is Std/Mean
	// (a fraction), and Low and High bound the Student-t confidence
	// interval of the mean: Mean ± t(N−1) · Std/√N. They are NaN with
	// fewer than two runs (a spread needs two), and CV also when Mean is 0.
	Std, CV, Low, High float64
}

// Summarize describes values (one per run) with intervals at confidence
// (0 < confidence < 1).
func Summarize(values []float64, confidence float64) Summary {
	s := Summary{N: len(values), Std: math.NaN(), CV: math.NaN(), Low: math.NaN(), High: math.NaN()}
	if s.N == 0 {
		s.Mean, s.Min, s.Max = math.NaN(), math.NaN(), math.NaN()
		return s
	}
	s.Min, s.Max = values[0], values[0]
	for _, v := range values {
		s.Min, s.Max = math.Min(s.Min, v), math.Max(s.Max, v)
	}
	s.Mean = stat.Mean(values, nil)
	if s.N < 2 {
		return s
	}
	s.Std = stat.StdDev(values, nil)
	if s.Mean != 0 {
		s.CV = s.Std / math.Abs(s.Mean)
	}
	half := tQuantile(confidence, float64(s.N-1)) * s.Std / math.Sqrt(float64(s.N))
	s.Low, s.High = s.Mean-half, s.Mean+half
	return s
}

// tQuantile is the two-sided critical value of Student's t with df
// degrees of freedom: the (1+confidence)/2 quantile.
func tQuantile(confidence, df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile((1 + confidence) / 2)
}

// Difference is Welch's test of the difference of two sets' means (B − A)
// across their runs, which does not assume that both sets vary alike.
type Difference struct {
	// Diff is mean(B) − mean(A); Low and High bound its confidence
	// interval, Diff ± t(DF) · SE.
	Diff, Low, High float64
	// SE is the standard error √(varA/nA + varB/nB) and DF the
	// Welch–Satterthwaite degrees of freedom.
	SE, DF float64
	// T is Diff/SE and P its two-sided p-value.
	T, P float64
	// Note says why there is no interval (fewer than two runs on a
	// side); the numbers are NaN then.
	Note string
}

// Excludes0 reports whether the interval lies wholly on one side of 0:
// the sets differ by more than their run-to-run spread explains.
func (d Difference) Excludes0() bool { return d.Low > 0 || d.High < 0 }

// Welch compares b with a (one value per run each) at confidence.
func Welch(a, b []float64, confidence float64) Difference {
	nan := math.NaN()
	d := Difference{Diff: nan, Low: nan, High: nan, SE: nan, DF: nan, T: nan, P: nan}
	if len(a) < 2 || len(b) < 2 {
		d.Note = "fewer than 2 runs in a set"
		return d
	}
	ma, va := stat.MeanVariance(a, nil)
	mb, vb := stat.MeanVariance(b, nil)
	na, nb := float64(len(a)), float64(len(b))
	d.Diff = mb - ma
	qa, qb := va/na, vb/nb
	d.SE = math.Sqrt(qa + qb)
	if d.SE == 0 {
		// Both sets constant: the difference is exact.
		d.Low, d.High, d.DF = d.Diff, d.Diff, math.Inf(1)
		if d.Diff == 0 {
			d.T, d.P = 0, 1
		} else {
			d.T, d.P = math.Copysign(math.Inf(1), d.Diff), 0
		}
		return d
	}
	d.DF = (qa + qb) * (qa + qb) / (qa*qa/(na-1) + qb*qb/(nb-1))
	half := tQuantile(confidence, d.DF) * d.SE
	d.Low, d.High = d.Diff-half, d.Diff+half
	d.T = d.Diff / d.SE
	d.P = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: d.DF}.Survival(math.Abs(d.T))
	return d
}
