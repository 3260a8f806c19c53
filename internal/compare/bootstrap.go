package compare

import (
	"cmp"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/resultkey"
)

// Kind is the kind of a latency statistic (resultkey.Kind).
type Kind = resultkey.Kind

// The location statistics the bootstrap estimates, as resultkey names
// them (resultkey.Std, a spread, is not estimated).
const (
	// Mean is np.mean.
	Mean = resultkey.Mean
	// Median is np.median.
	Median = resultkey.Median
	// Percentile is np.percentile with NumPy's default "linear" method.
	Percentile = resultkey.Percentile
)

// Statistic is one latency statistic: the mean, the median or a
// percentile P (0..100), the statistic a result key names
// (resultkey.Stat).
type Statistic = resultkey.Stat

// Defaults of Options.
const (
	// DefaultResamples is the number of bootstrap resamples: enough for the
	// ends of a 99% interval to move by well under its width from one seed
	// to another.
	DefaultResamples = 2000
	// DefaultConfidence is the confidence level of the intervals. A
	// comparison tests a dozen statistics at once (mean, median and
	// percentiles of TTFT, TPOT, ITL, E2EL); at 95% two identical
	// configurations would show at least one "real" difference in about
	// half of the comparisons, at 99% in about one in ten.
	DefaultConfidence = 0.99
)

// Options set the significance test.
type Options struct {
	// Resamples is the number of bootstrap resamples (DefaultResamples
	// when 0).
	Resamples int
	// Confidence is the level of the interval, in (0, 1)
	// (DefaultConfidence when 0).
	Confidence float64
	// Seed seeds the resampling: the same files, options and seed give
	// the same intervals.
	Seed uint64
	// Workers bounds the goroutines that resample at once (GOMAXPROCS when
	// 0). The intervals do not depend on it.
	Workers int
}

func (o Options) withDefaults() Options {
	if o.Resamples <= 0 {
		o.Resamples = DefaultResamples
	}
	if o.Confidence <= 0 || o.Confidence >= 1 {
		o.Confidence = DefaultConfidence
	}
	return o
}

// Sample is one run's values of one metric, grouped by request: the
// resampling unit is the request, so the inter-token latencies of one
// request, which are not independent of each other, stay together.
type Sample struct {
	vals    []float64 // every value, sorted ascending
	group   []int32   // the request of each value in vals
	sum     []float64 // per request: sum of its values
	count   []int     // per request: number of values
	nGroups int
	// single is true when every request has one value (TTFT, TPOT,
	// E2EL); requests are then numbered in value order, so that request i
	// is vals[i] and the walk needs no indirection.
	single bool
}

// NewSample builds a Sample from per-request values; requests without a
// value (a one-token output has no TPOT and no ITL) are left out.
func NewSample(groups [][]float64) *Sample {
	s := &Sample{single: true}
	type pair struct {
		v float64
		g int32
	}
	var pairs []pair
	for _, g := range groups {
		if len(g) == 0 {
			continue
		}
		id := int32(s.nGroups)
		s.nGroups++
		sum := 0.0
		for _, v := range g {
			pairs = append(pairs, pair{v, id})
			sum += v
		}
		s.sum = append(s.sum, sum)
		s.count = append(s.count, len(g))
		s.single = s.single && len(g) == 1
	}
	slices.SortStableFunc(pairs, func(a, b pair) int { return cmp.Compare(a.v, b.v) })
	s.vals = make([]float64, len(pairs))
	s.group = make([]int32, len(pairs))
	for i, p := range pairs {
		s.vals[i], s.group[i] = p.v, p.g
		if s.single {
			s.group[i] = int32(i)
			s.sum[i] = p.v
		}
	}
	return s
}

// Requests is the number of requests with at least one value.
func (s *Sample) Requests() int { return s.nGroups }

// draw resamples the requests with replacement: w[g] is how many times
// request g was drawn. Each 64-bit random number gives two draws, each
// index being the top bits of a 32-bit half times the number of requests
// (Lemire's multiply-shift without rejection: an index's probability is off
// by at most n/2³² relative, 1e-7 for 500 requests, far below what a
// bootstrap can resolve), which halves the cost that dominates the test.
func (s *Sample) draw(rng *rand.PCG, w []int) {
	clear(w)
	n := uint64(s.nGroups)
	for i := uint64(0); i < n; i += 2 {
		x := rng.Uint64()
		w[(x&0xffffffff)*n>>32]++
		if i+1 < n {
			w[(x>>32)*n>>32]++
		}
	}
}

// need is an order statistic an evaluation looks for: position pos of the
// sorted resample, stored at *at.
type need struct {
	pos int
	at  *float64
}

// evaluator holds the scratch space of Sample.eval for a list of
// statistics, so that the resampling loop does not allocate.
type evaluator struct {
	stats        []Statistic
	lo, hi, frac []float64
	needs        []need
	wantMean     bool
	out          []float64
}

func newEvaluator(stats []Statistic) *evaluator {
	e := &evaluator{stats: stats, lo: make([]float64, len(stats)), hi: make([]float64, len(stats)),
		frac: make([]float64, len(stats)), needs: make([]need, 0, 2*len(stats)), out: make([]float64, len(stats))}
	for _, st := range stats {
		e.wantMean = e.wantMean || st.Kind == Mean
	}
	return e
}

// eval computes the statistics on the data in which request g appears w[g]
// times (all ones: the sample itself) and returns them (in e's buffer).
// Resampled data are never materialised: the sorted values are walked
// once, each standing for w[its request] copies of itself, which finds any
// order statistic of the resample in O(values).
func (s *Sample) eval(e *evaluator, w []int) []float64 {
	n, sum := 0, 0.0
	switch {
	case s.single:
		n = s.nGroups
		if e.wantMean {
			for i, v := range s.vals {
				sum += float64(w[i]) * v
			}
		}
	default:
		for g := range s.nGroups {
			n += w[g] * s.count[g]
			sum += float64(w[g]) * s.sum[g]
		}
	}
	if n == 0 {
		for i := range e.out {
			e.out[i] = math.NaN()
		}
		return e.out
	}
	// The order statistics needed: two per statistic (equal for odd-n
	// medians and clamped percentiles).
	e.needs = e.needs[:0]
	for i, st := range e.stats {
		var a, b int
		switch st.Kind {
		case Mean, resultkey.Std:
			continue
		case Median:
			a, b = (n-1)/2, n/2
		case Percentile:
			h := float64(n-1) * (st.P / 100)
			f := math.Floor(h)
			a, b, e.frac[i] = int(f), int(f)+1, h-f
			if h >= float64(n-1) {
				a, b = n-1, n-1 // NumPy's clamp: both neighbours are the last
			}
		}
		e.needs = append(e.needs, need{a, &e.lo[i]}, need{b, &e.hi[i]})
	}
	slices.SortFunc(e.needs, func(x, y need) int { return cmp.Compare(x.pos, y.pos) })
	needs, k, cum := e.needs, 0, 0
	if s.single {
		for i := 0; i < len(s.vals) && k < len(needs); i++ {
			cum += w[i]
			for k < len(needs) && needs[k].pos < cum {
				*needs[k].at = s.vals[i]
				k++
			}
		}
	} else {
		for i := 0; i < len(s.vals) && k < len(needs); i++ {
			cum += w[s.group[i]]
			for k < len(needs) && needs[k].pos < cum {
				*needs[k].at = s.vals[i]
				k++
			}
		}
	}
	for i, st := range e.stats {
		switch st.Kind {
		case Mean:
			e.out[i] = sum / float64(n)
		case Median:
			e.out[i] = (e.lo[i] + e.hi[i]) / 2
		case Percentile:
			e.out[i] = metrics.Lerp(e.lo[i], e.hi[i], e.frac[i])
		default:
			e.out[i] = math.NaN() // a spread (Std) is not estimated
		}
	}
	return e.out
}

// Interval is a confidence interval of the difference B − A of one
// statistic.
type Interval struct {
	// Low and High are the ends of the interval (NaN when it could not be
	// computed).
	Low, High float64
}

// Excludes0 reports whether the interval lies entirely on one side of 0:
// the difference is real at the interval's confidence level.
func (iv Interval) Excludes0() bool { return iv.Low > 0 || iv.High < 0 }

// resamplesPerChunk is the number of resamples drawn from one random
// stream. The resamples are split into such chunks, each with its own
// stream derived from the seed, so that the chunks can run on every core
// while the result depends only on the seed, never on the core count.
const resamplesPerChunk = 50

// Bootstrap returns, for each statistic, the two-sample percentile
// bootstrap interval of stat(B) − stat(A): both samples are resampled by
// request, independently, o.Resamples times; the interval is the central
// o.Confidence part of the differences (np.percentile, linear). stream
// separates the random streams of different metrics under one seed. The
// resamples run on all cores: two runs of a million ITLs each take about
// six CPU-seconds.
func Bootstrap(a, b *Sample, stats []Statistic, o Options, stream string) []Interval {
	return bootstrap(a, b, stats, o, stream)
}

// BootstrapOne returns, for each statistic, the one-sample percentile
// bootstrap interval of stat(S): the requests of s are resampled with
// replacement o.Resamples times, and the interval is the central
// o.Confidence part of the replicates. It is how sure one run is of its
// own percentile (the SLA search asks whether a point's p99 is below its
// limit), with the same resampling unit, streams and seeds as Bootstrap.
func BootstrapOne(s *Sample, stats []Statistic, o Options, stream string) []Interval {
	return bootstrap(nil, s, stats, o, stream)
}

// bootstrap is Bootstrap, or BootstrapOne when a is nil (the replicates
// are then stat(B) alone).
func bootstrap(a, b *Sample, stats []Statistic, o Options, stream string) []Interval {
	o = o.withDefaults()
	h := fnv.New64a()
	h.Write([]byte(stream))
	base := h.Sum64()
	diffs := make([][]float64, len(stats))
	for i := range diffs {
		diffs[i] = make([]float64, o.Resamples)
	}
	chunks := (o.Resamples + resamplesPerChunk - 1) / resamplesPerChunk
	var next atomic.Int64
	var wg sync.WaitGroup
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	for range min(workers, chunks) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := newReplicator(a, b, stats)
			for c := int(next.Add(1) - 1); c < chunks; c = int(next.Add(1) - 1) {
				// Chunk c's stream: the metric's stream moved by a multiple
				// of 2^64/φ, so that chunks do not overlap.
				rng := rand.NewPCG(o.Seed, base+uint64(c)*0x9e3779b97f4a7c15)
				for k := c * resamplesPerChunk; k < min((c+1)*resamplesPerChunk, o.Resamples); k++ {
					r.replicate(rng, diffs, k)
				}
			}
		}()
	}
	wg.Wait()
	alpha := 1 - o.Confidence
	out := make([]Interval, len(stats))
	for i, d := range diffs {
		if slices.ContainsFunc(d, math.IsNaN) {
			out[i] = Interval{math.NaN(), math.NaN()}
			continue
		}
		slices.Sort(d)
		out[i] = Interval{Low: quantileSorted(d, alpha/2), High: quantileSorted(d, 1-alpha/2)}
	}
	return out
}

// replicator holds one goroutine's scratch space for bootstrap replicates
// of stat(B) − stat(A), or of stat(B) when A is nil.
type replicator struct {
	a, b   *Sample
	stats  []Statistic
	wa, wb []int
	ea, eb *evaluator
}

func newReplicator(a, b *Sample, stats []Statistic) *replicator {
	r := &replicator{a: a, b: b, stats: stats, wb: make([]int, b.nGroups), eb: newEvaluator(stats)}
	if a != nil {
		r.wa, r.ea = make([]int, a.nGroups), newEvaluator(stats)
	}
	return r
}

// replicate draws resample k and stores its statistics in out[i][k].
func (r *replicator) replicate(rng *rand.PCG, out [][]float64, k int) {
	if r.a == nil {
		r.b.draw(rng, r.wb)
		vb := r.b.eval(r.eb, r.wb)
		for i := range r.stats {
			out[i][k] = vb[i]
		}
		return
	}
	r.a.draw(rng, r.wa)
	r.b.draw(rng, r.wb)
	va, vb := r.a.eval(r.ea, r.wa), r.b.eval(r.eb, r.wb)
	for i := range r.stats {
		out[i][k] = vb[i] - va[i]
	}
}

// Estimate computes stats on the sample itself (every request once), with
// the same definitions as the bootstrap replicates: the point estimate
// that BootstrapOne's interval surrounds.
func (s *Sample) Estimate(stats []Statistic) []float64 { return s.estimate(stats) }

// estimate computes stats on the sample itself (every request once), with
// the same definitions as the bootstrap replicates.
func (s *Sample) estimate(stats []Statistic) []float64 {
	w := make([]int, s.nGroups)
	for i := range w {
		w[i] = 1
	}
	return slices.Clone(s.eval(newEvaluator(stats), w))
}

// quantileSorted is np.percentile(sorted, 100*q) for sorted data.
func quantileSorted(s []float64, q float64) float64 {
	n := len(s)
	h := float64(n-1) * q
	lo := math.Floor(h)
	if h >= float64(n-1) {
		return s[n-1]
	}
	return metrics.Lerp(s[int(lo)], s[int(lo)+1], h-lo)
}
