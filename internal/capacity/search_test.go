package capacity

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/compare"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/google/go-cmp/cmp"
)

// fakeServer is a server of known capacity: below it every request's TTFT
// is a tenth of the limit, above it every request's TTFT is twice the
// limit; at the maximum load it serves throughput requests a second.
type fakeServer struct {
	capacity, throughput float64
	// unsureUntil makes the first runs at a load shorter than this many
	// requests straddle the limit (half the requests just under it, half
	// just over), as a point near the capacity does.
	unsureBelow int
	// keepUpTo is the rate past which requests end at this pace, whatever
	// their TTFT (+Inf when 0).
	keepUpTo float64
	clock    *fakeClock
	cut      bool
	ran      []Point
}

// fakeClock is a clock the fake runner moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func (f *fakeServer) run(_ context.Context, p Point) (*Measurement, error) {
	f.ran = append(f.ran, p)
	if f.keepUpTo == 0 {
		f.keepUpTo = math.Inf(1)
	}
	ttft := 0.05 // the limit below is 500 ms
	if p.Value > f.capacity {
		ttft = 1
	}
	m := &metrics.Result{Duration: 10, RequestThroughput: f.throughput}
	if !math.IsInf(p.Value, 1) {
		m.RequestThroughput = min(p.Value, f.throughput)
	}
	for i := range p.Requests {
		v := ttft
		if p.Requests < f.unsureBelow {
			v = 0.45 + 0.1*float64(i%2) // 0.9 and 1.1 times the limit
		}
		start, lat := 0.0, v+0.1
		if !math.IsInf(p.Value, 1) {
			start = float64(i) / p.Value
			if p.Value > f.keepUpTo { // the requests end at the server's pace
				lat += float64(i) * (1/f.keepUpTo - 1/p.Value)
			}
		}
		m.Outputs = append(m.Outputs, metrics.Output{Success: true, TTFT: v, Latency: lat, OutputTokens: 2, StartTime: start})
		m.ActualOutputLens = append(m.ActualOutputLens, 2)
	}
	if f.clock != nil {
		secs := 10.0
		if !math.IsInf(p.Value, 1) {
			secs = float64(p.Requests) / p.Value
		}
		f.clock.t = f.clock.t.Add(time.Duration(secs * float64(time.Second)))
	}
	return &Measurement{Metrics: m, Cut: f.cut}, nil
}

// medianTTFT is "median_ttft_ms<=500".
func medianTTFT(t *testing.T) Criterion {
	t.Helper()
	c, err := ParseCriterion("median_ttft_ms<=500")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func testConfig(t *testing.T, v Variable, maxLoad float64) Config {
	return Config{Variable: v, Criteria: []Criterion{medianTTFT(t)}, Min: 1, Max: maxLoad, Tolerance: 0.05,
		Requests: 40, MaxReruns: 2, Bootstrap: compare.Options{Resamples: 200, Confidence: 0.95, Seed: 1}}
}

func values(ps []PointResult) []float64 {
	var out []float64
	for _, p := range ps {
		out = append(out, math.Round(p.Value*100)/100)
	}
	return out
}

func TestSearchBracketsThenBisects(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		name         string
		v            Variable
		max          float64
		srv          fakeServer
		want         []float64
		answer, next float64
		stop         string
	}{
		// The rate search tries inf, then the throughput inf reached (40),
		// halves once, then bisects [20, 40] geometrically to 5 %, at three
		// significant digits.
		{"rate", RequestRate, inf, fakeServer{capacity: 37, throughput: 40},
			[]float64{inf, 40, 20, 28.3, 33.6, 36.7, 38.3}, 36.7, 38.3, StopConverged},
		// Without a throughput below the maximum, the rate halves.
		{"rate without hint", RequestRate, 100, fakeServer{capacity: 30, throughput: 500},
			[]float64{100, 50, 25, 35.4, 29.7, 32.4, 31}, 29.7, 31, StopConverged},
		// A server that meets the TTFT objective at any rate but serves 37
		// requests a second fails the rates it cannot keep up with: past
		// 37/MinKeptUp = 41.1.
		{"keeping up", RequestRate, 100, fakeServer{capacity: 1000, throughput: 40, keepUpTo: 37},
			[]float64{100, 40, 63.2, 50.3, 44.9, 42.4, 41.2}, 40, 41.2, StopConverged},
		// The concurrency halves from the maximum, then bisects to one.
		{"concurrency", MaxConcurrency, 64, fakeServer{capacity: 12, throughput: 100},
			[]float64{64, 32, 16, 8, 11, 13, 12}, 12, 13, StopConverged},
		{"holds at the maximum", MaxConcurrency, 64, fakeServer{capacity: 100, throughput: 100},
			[]float64{64}, 64, math.NaN(), StopMaximum},
		{"fails at the minimum", MaxConcurrency, 8, fakeServer{capacity: 0.5, throughput: 100},
			[]float64{8, 4, 2, 1}, math.NaN(), 1, StopMinimum},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, tc.v, tc.max)
			res, err := Search(context.Background(), cfg, tc.srv.run)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, values(res.Points)); diff != "" {
				t.Errorf("points (-want +got):\n%s", diff)
			}
			round := func(f float64) float64 { return math.Round(f*100) / 100 }
			if !cmp.Equal(round(res.Answer), tc.answer, cmpNaN) || !cmp.Equal(round(res.Above), tc.next, cmpNaN) || res.Stop != tc.stop {
				t.Errorf("answer %v, above %v, stop %q; want %v, %v, %q", res.Answer, res.Above, res.Stop, tc.answer, tc.next, tc.stop)
			}
			if !math.IsNaN(res.Answer) && res.Answer > tc.srv.capacity {
				t.Errorf("answer %v above the capacity %v", res.Answer, tc.srv.capacity)
			}
		})
	}
}

var cmpNaN = cmp.Comparer(func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) })

// TestUnsureRerunsLonger: a point whose interval straddles the limit is
// run again with twice the requests, not guessed; one still unsure after
// the re-runs counts as a failure.
func TestUnsureRerunsLonger(t *testing.T) {
	for _, tc := range []struct {
		name     string
		reruns   int
		requests []int
		verdicts []string
		stop     string
	}{
		{"resolved by a longer run", 2, []int{40, 80, 160}, []string{"unsure", "unsure", "pass"}, StopMaximum},
		{"still unsure counts as failing", 1, []int{40, 80, 40, 80}, []string{"unsure", "unsure", "unsure", "unsure"}, StopMinimum},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, MaxConcurrency, 2)
			cfg.MaxReruns = tc.reruns
			srv := fakeServer{capacity: 100, throughput: 10, unsureBelow: 160}
			res, err := Search(context.Background(), cfg, srv.run)
			if err != nil {
				t.Fatal(err)
			}
			var reqs []int
			var verdicts []string
			for _, p := range res.Points {
				reqs = append(reqs, p.Requests)
				verdicts = append(verdicts, p.Verdict.String())
			}
			if diff := cmp.Diff(tc.requests, reqs); diff != "" {
				t.Errorf("requests per run (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.verdicts, verdicts); diff != "" {
				t.Errorf("verdicts (-want +got):\n%s", diff)
			}
			if res.Stop != tc.stop {
				t.Errorf("stop %q, want %q", res.Stop, tc.stop)
			}
			if res.Points[0].Judgements[0].Why != "the interval straddles the limit" {
				t.Errorf("why %q", res.Points[0].Judgements[0].Why)
			}
		})
	}
}

// TestTooFewRequestsForThePercentile: p99 of 100 requests rests on the
// slowest one; the point is re-run with 200.
func TestTooFewRequestsForThePercentile(t *testing.T) {
	cfg := testConfig(t, MaxConcurrency, 4)
	c, err := ParseCriterion("p99_ttft_ms<=500")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Criteria, cfg.Requests = []Criterion{c}, 100
	srv := fakeServer{capacity: 100, throughput: 10}
	res, err := Search(context.Background(), cfg, srv.run)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 2 || res.Points[1].Requests != 200 || res.Points[1].Verdict != Pass {
		t.Fatalf("points %+v", res.Points)
	}
	if want := "100 requests, p99 needs at least 200"; res.Points[0].Judgements[0].Why != want {
		t.Errorf("why %q, want %q", res.Points[0].Judgements[0].Why, want)
	}
}

// TestTimeBudget: no point starts that would end past the budget, and the
// search says why it stopped.
func TestTimeBudget(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	cfg := testConfig(t, RequestRate, math.Inf(1))
	cfg.Now, cfg.Budget = clock.now, 15*time.Second
	srv := fakeServer{capacity: 37, throughput: 40, clock: clock}
	res, err := Search(context.Background(), cfg, srv.run)
	if err != nil {
		t.Fatal(err)
	}
	// inf takes 10 s, 40 req/s 1 s, 20 req/s 2 s, 28.3 req/s 1.4 s, ...
	if res.Stop != StopBudget {
		t.Fatalf("stop %q, want %q", res.Stop, StopBudget)
	}
	if res.Elapsed > cfg.Budget.Seconds() {
		t.Errorf("elapsed %v s past the budget %v", res.Elapsed, cfg.Budget)
	}
	for _, p := range srv.ran {
		if !p.Deadline.Equal(time.Unix(1e9, 0).Add(cfg.Budget)) {
			t.Errorf("point %v deadline %v", p.Value, p.Deadline)
		}
	}
	if math.IsNaN(res.Answer) || res.Answer > srv.capacity {
		t.Errorf("answer %v: the last passing load is kept", res.Answer)
	}
	// A run cut at the deadline ends the search too.
	clock = &fakeClock{t: time.Unix(1e9, 0)}
	cfg.Now, cfg.Budget = clock.now, 5*time.Second
	srv = fakeServer{capacity: 37, throughput: 40, clock: clock, cut: true}
	res, err = Search(context.Background(), cfg, srv.run)
	if err != nil || res.Stop != StopBudget || len(res.Points) != 1 || !res.Points[0].Cut {
		t.Fatalf("cut run: err %v, stop %q, points %+v", err, res.Stop, res.Points)
	}
}

func TestInterruptedAndRunnerErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	srv := fakeServer{capacity: 10, throughput: 10}
	res, err := Search(ctx, testConfig(t, RequestRate, 100), srv.run)
	if err != nil || res.Stop != StopInterrupted || len(res.Points) != 0 {
		t.Errorf("cancelled: err %v, stop %q, points %d", err, res.Stop, len(res.Points))
	}
	boom := errors.New("connection refused")
	res, err = Search(context.Background(), testConfig(t, RequestRate, 100), func(context.Context, Point) (*Measurement, error) {
		return nil, boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "request_rate=100") || res == nil {
		t.Errorf("runner error: %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"variable", func(c *Config) { c.Variable = "rate" }, "variable:"},
		{"criteria", func(c *Config) { c.Criteria = nil }, "criteria:"},
		{"min", func(c *Config) { c.Min = 0 }, "min:"},
		{"max", func(c *Config) { c.Max = 0.5 }, "max:"},
		{"whole", func(c *Config) { c.Variable, c.Max = MaxConcurrency, math.Inf(1) }, "whole numbers"},
		{"tolerance", func(c *Config) { c.Tolerance = 0 }, "tolerance:"},
		{"requests", func(c *Config) { c.Requests = 0 }, "requests:"},
		{"reruns", func(c *Config) { c.MaxReruns = -1 }, "reruns:"},
		{"budget", func(c *Config) { c.Budget = -time.Second }, "budget:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testConfig(t, RequestRate, 100)
			tc.edit(&c)
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}
