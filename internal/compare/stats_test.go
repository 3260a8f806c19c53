package compare

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/resultkey"
)

// The significance method on synthetic data where the truth is known. Each
// trial draws fresh data from its own seed and bootstraps with its own
// seed, so every count below is deterministic. The tests are CPU-bound:
// they run one after the other on one core (Workers 1, no t.Parallel) so
// that the timing tests of other packages, which go test runs at the same
// time, keep a core; under -race they run a quarter of the trials.

var locationStats = []Statistic{{Kind: Mean}, {Kind: Median}, {Kind: Percentile, P: 90}, {Kind: Percentile, P: 99}}

func statName(s Statistic) string {
	switch s.Kind {
	case Mean:
		return "mean"
	case Median:
		return "median"
	}
	return "p" + resultkey.PercentileLabel(s.P)
}

// lognormal draws n one-value requests: median 50 (ms), log-spread sigma,
// times scale.
func lognormal(rng *rand.Rand, n int, sigma, scale float64) [][]float64 {
	g := make([][]float64, n)
	for i := range g {
		g[i] = []float64{50 * scale * math.Exp(sigma*rng.NormFloat64())}
	}
	return g
}

// realCounts runs trials and counts, per statistic, the trials whose
// verdict is "real".
func realCounts(trials int, gen func(rng *rand.Rand) (a, b [][]float64), stats []Statistic, o Options) []int {
	counts := make([]int, len(stats))
	for tr := range trials {
		a, b := gen(rand.New(rand.NewPCG(uint64(tr), 0x5eed)))
		o.Seed, o.Workers = uint64(tr), 1
		for i, iv := range Bootstrap(NewSample(a), NewSample(b), stats, o, "trial") {
			if iv.Excludes0() {
				counts[i]++
			}
		}
	}
	return counts
}

func trials(n int) int {
	if raceEnabled || testing.Short() {
		return n / 4
	}
	return n
}

// exponential draws n one-value requests: 10 plus an exponential tail of
// mean 40 (a latency with a long tail).
func exponential(rng *rand.Rand, n int) [][]float64 {
	g := make([][]float64, n)
	for i := range g {
		g[i] = []float64{10 + 40*rng.ExpFloat64()}
	}
	return g
}

// TestSameDistributionIsNoise: two runs drawn from one distribution (500
// requests each) are called noise in at least 95% of the trials, for every
// statistic (at the default 99% level the expected share is about 99%).
func TestSameDistributionIsNoise(t *testing.T) {
	dists := []struct {
		name   string
		trials int
		draw   func(*rand.Rand) [][]float64
	}{
		{"lognormal", trials(200), func(rng *rand.Rand) [][]float64 { return lognormal(rng, 500, 0.25, 1) }},
		{"exponential tail", trials(100), func(rng *rand.Rand) [][]float64 { return exponential(rng, 500) }},
	}
	for _, d := range dists {
		counts := realCounts(d.trials, func(rng *rand.Rand) ([][]float64, [][]float64) {
			return d.draw(rng), d.draw(rng)
		}, locationStats, Options{})
		for i, c := range counts {
			noise := 100 * float64(d.trials-c) / float64(d.trials)
			t.Logf("%s %s: noise in %.1f%% of %d trials", d.name, statName(locationStats[i]), noise, d.trials)
			if noise < 95 {
				t.Errorf("%s %s: noise in only %.1f%% of %d trials", d.name, statName(locationStats[i]), noise, d.trials)
			}
		}
	}
}

// TestTenPercentShiftIsReal: 500 requests 10% slower than 500 others
// (log-spread 0.25, a TTFT-like spread) are a real difference of the mean
// and the median in at least 95% of the trials. The tail percentiles of 500
// requests are too noisy to see 10% reliably; their share is only logged.
func TestTenPercentShiftIsReal(t *testing.T) {
	n := trials(100)
	counts := realCounts(n, func(rng *rand.Rand) ([][]float64, [][]float64) {
		return lognormal(rng, 500, 0.25, 1), lognormal(rng, 500, 0.25, 1.1)
	}, locationStats, Options{})
	for i, c := range counts {
		real := 100 * float64(c) / float64(n)
		t.Logf("%s: real in %.1f%% of %d trials", statName(locationStats[i]), real, n)
		if locationStats[i].Kind != Percentile && real < 95 {
			t.Errorf("%s: real in only %.1f%% of %d trials", statName(locationStats[i]), real, n)
		}
	}
	// A 10% shift of values that barely vary (the simulator's TTFT) is
	// real for every statistic, tails included.
	counts = realCounts(trials(20), func(rng *rand.Rand) ([][]float64, [][]float64) {
		return lognormal(rng, 500, 0.02, 1), lognormal(rng, 500, 0.02, 1.1)
	}, locationStats, Options{})
	for i, c := range counts {
		if c != trials(20) {
			t.Errorf("tight data, %s: real in %d of %d trials", statName(locationStats[i]), c, trials(20))
		}
	}
}

// itlRuns draws ITL-like data: 60 requests of 15 gaps, each request with
// its own level (a slow request is slow throughout), so the gaps of one
// request are not independent.
func itlRuns(rng *rand.Rand, scale float64) (byRequest, pooled [][]float64) {
	for range 60 {
		level := math.Exp(0.3 * rng.NormFloat64())
		var req []float64
		for range 15 {
			v := 10 * scale * level * math.Exp(0.1*rng.NormFloat64())
			req = append(req, v)
			pooled = append(pooled, []float64{v})
		}
		byRequest = append(byRequest, req)
	}
	return byRequest, pooled
}

// TestRequestsStayTogether: resampling requests (with all their ITLs)
// keeps same-distribution ITLs "noise"; resampling the gaps one by one, as
// if they were independent, would call them "real" in most trials.
func TestRequestsStayTogether(t *testing.T) {
	stats := []Statistic{{Kind: Mean}, {Kind: Median}, {Kind: Percentile, P: 99}}
	n := trials(120)
	grouped := realCounts(n, func(rng *rand.Rand) ([][]float64, [][]float64) {
		a, _ := itlRuns(rng, 1)
		b, _ := itlRuns(rng, 1)
		return a, b
	}, stats, Options{})
	pooled := realCounts(n, func(rng *rand.Rand) ([][]float64, [][]float64) {
		_, a := itlRuns(rng, 1)
		_, b := itlRuns(rng, 1)
		return a, b
	}, stats, Options{})
	for i := range stats {
		t.Logf("%s: real in %d (by request) vs %d (gap by gap) of %d trials", statName(stats[i]), grouped[i], pooled[i], n)
		if noise := 100 * float64(n-grouped[i]) / float64(n); noise < 95 {
			t.Errorf("%s: by request, noise in only %.1f%% of %d trials", statName(stats[i]), noise, n)
		}
	}
	if pooled[0] < n/4 {
		t.Errorf("gap by gap called the mean real in only %d of %d trials; the test data lost their per-request correlation", pooled[0], n)
	}
}

// TestBootstrapReproducible: the same seed gives the same intervals, another
// seed other ones.
func TestBootstrapReproducible(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	a, b := NewSample(lognormal(rng, 200, 0.5, 1)), NewSample(lognormal(rng, 200, 0.5, 1.05))
	one := Bootstrap(a, b, locationStats, Options{Seed: 7}, "ttft")
	two := Bootstrap(a, b, locationStats, Options{Seed: 7}, "ttft")
	other := Bootstrap(a, b, locationStats, Options{Seed: 8}, "ttft")
	stream := Bootstrap(a, b, locationStats, Options{Seed: 7}, "itl")
	for i := range one {
		if one[i] != two[i] {
			t.Errorf("%s: %v then %v with the same seed", statName(locationStats[i]), one[i], two[i])
		}
	}
	if one[0] == other[0] || one[0] == stream[0] {
		t.Errorf("seed or stream has no effect: %v %v %v", one[0], other[0], stream[0])
	}
}

// TestEstimateMatchesNumPy: the statistics the bootstrap takes of a
// resample are those of package metrics (NumPy's), so that the interval is
// about the printed statistic. Order statistics match bit for bit; the mean
// up to summation order.
func TestEstimateMatchesNumPy(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 5, 100, 101} {
		groups := lognormal(rng, n, 1, 1)
		flat := make([]float64, n)
		for i, g := range groups {
			flat[i] = g[0]
		}
		stats := []Statistic{{Kind: Mean}, {Kind: Median}, {Kind: Percentile, P: 0}, {Kind: Percentile, P: 37.5},
			{Kind: Percentile, P: 99}, {Kind: Percentile, P: 99.9}, {Kind: Percentile, P: 100}}
		got := NewSample(groups).estimate(stats)
		want := []float64{metrics.Mean(flat), metrics.Median(flat)}
		for _, s := range stats[2:] {
			want = append(want, metrics.Percentile(flat, s.P))
		}
		for i := range stats {
			exact := stats[i].Kind != Mean
			if exact && got[i] != want[i] || math.Abs(got[i]-want[i]) > 1e-12*math.Abs(want[i]) {
				t.Errorf("n=%d %s: %v, NumPy %v", n, statName(stats[i]), got[i], want[i])
			}
		}
	}
	if v := NewSample(nil).estimate([]Statistic{{Kind: Mean}}); !math.IsNaN(v[0]) {
		t.Errorf("empty sample: %v", v)
	}
}
