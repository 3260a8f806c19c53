package capacity

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/gobench/gobench/internal/compare"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyfmt"
)

// Variable is the load a search varies: vLLM's --sla-variable.
type Variable string

// The variables (vllm/benchmarks/sweep/serve_sla.py@0826bcfb7 SLAVariable).
const (
	// RequestRate varies --request-rate (requests per second; +Inf sends
	// every request at once).
	RequestRate Variable = "request_rate"
	// MaxConcurrency varies --max-concurrency (whole numbers).
	MaxConcurrency Variable = "max_concurrency"
)

// Why a search ended (Result.Stop).
const (
	// StopConverged: the largest passing and the smallest failing load
	// are within the tolerance of each other.
	StopConverged = "converged"
	// StopMaximum: the objectives hold at the largest load searched.
	StopMaximum = "holds at the maximum"
	// StopMinimum: the objectives fail at the smallest load searched.
	StopMinimum = "fails at the minimum"
	// StopBudget: the next point would not finish within the time budget,
	// or the budget ran out during a point.
	StopBudget = "time budget"
	// StopInterrupted: the user interrupted the search.
	StopInterrupted = "interrupted"
)

// Point is one run the search asks for.
type Point struct {
	// Value is the request rate or the concurrency.
	Value float64
	// Requests is the number of requests to send (--num-prompts).
	Requests int
	// Attempt is 0 for the first run at Value, k for the k-th longer
	// re-run of a point whose verdict was unsure.
	Attempt int
	// Deadline is the end of the time budget (zero: none): the runner
	// stops sending then and reports the run as Cut.
	Deadline time.Time
}

// Measurement is what a Runner measured.
type Measurement struct {
	// Metrics holds the per-request outputs the verdict rests on.
	Metrics *metrics.Result
	// File is the point's result file, "" when none was written.
	File string
	// Cut is true when the run stopped before sending every request (the
	// budget's deadline or an interrupt): its verdict is not used.
	Cut bool
}

// Runner carries out one point: a `gobench serve` run at p.Value with
// p.Requests requests. An error ends the search.
type Runner func(ctx context.Context, p Point) (*Measurement, error)

// Config is a search.
type Config struct {
	// Variable is the load varied.
	Variable Variable
	// Criteria are the objectives; a load meets them when every one
	// passes.
	Criteria []Criterion
	// Min and Max bound the load searched; Max is tried first (vLLM's
	// sweep does the same), and may be +Inf for RequestRate.
	Min, Max float64
	// Tolerance is the relative resolution: the search ends when the
	// smallest failing load is at most (1 + Tolerance) times the largest
	// passing one (or one above it, for the concurrency).
	Tolerance float64
	// Requests is the number of requests of a point's first run; each
	// re-run of an unsure point doubles it.
	Requests int
	// MaxReruns bounds the re-runs of a point; a point still unsure after
	// them counts as not meeting the objectives (the answer must have been
	// shown to meet them).
	MaxReruns int
	// Bootstrap sets the intervals: Confidence, Resamples, Seed.
	Bootstrap compare.Options
	// Budget bounds the search's wall time (0: none): no point starts
	// that would not finish within it, and a running point is stopped at
	// its end.
	Budget time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Progress receives a line per point (io.Discard when nil).
	Progress io.Writer
}

// Validate checks the configuration; errors name the setting.
func (c *Config) Validate() error {
	switch {
	case c.Variable != RequestRate && c.Variable != MaxConcurrency:
		return fmt.Errorf("variable: %q is neither %s nor %s", c.Variable, RequestRate, MaxConcurrency)
	case len(c.Criteria) == 0:
		return errors.New("criteria: no objective to search for")
	case !(c.Min > 0) || math.IsInf(c.Min, 0):
		return fmt.Errorf("min: must be a positive number, got %s", pyfmt.Float(c.Min))
	case !(c.Max >= c.Min):
		return fmt.Errorf("max: must be at least the minimum %s, got %s", pyfmt.Float(c.Min), pyfmt.Float(c.Max))
	case c.Variable == MaxConcurrency && (math.IsInf(c.Max, 0) || c.Min != math.Floor(c.Min) || c.Max != math.Floor(c.Max)):
		return fmt.Errorf("max_concurrency bounds must be whole numbers, got %s and %s", pyfmt.Float(c.Min), pyfmt.Float(c.Max))
	case !(c.Tolerance > 0) || math.IsInf(c.Tolerance, 0):
		return fmt.Errorf("tolerance: must be a positive number, got %s", pyfmt.Float(c.Tolerance))
	case c.Requests < 1:
		return fmt.Errorf("requests: must be at least 1, got %d", c.Requests)
	case c.MaxReruns < 0 || c.MaxReruns > 20:
		return fmt.Errorf("reruns: must be in [0, 20], got %d", c.MaxReruns)
	case c.Budget < 0:
		return fmt.Errorf("budget: must not be negative, got %s", c.Budget)
	}
	return nil
}

// PointResult is one run of the search with its verdict.
type PointResult struct {
	Point
	// Wall is the run's wall time in seconds, set-up included.
	Wall float64
	// Duration is the benchmark duration and Throughput the request
	// throughput, as the run's result reports them.
	Duration, Throughput float64
	// GoodShare is the share of requests that met every criterion.
	GoodShare float64
	// KeptUp is, for a finite request rate, the span of the successful
	// requests' starts over the span of their ends (keptUp); NaN
	// otherwise. Below MinKeptUp the point fails.
	KeptUp float64
	// Judgements are the criteria's statistics, in Config order.
	Judgements []Judgement
	// Verdict combines them (Unsure for a cut run).
	Verdict Verdict
	// File is the run's result file.
	File string
	// Cut is true when the run was stopped before its end.
	Cut bool
}

// Result is a search's outcome.
type Result struct {
	// Config is the search's configuration.
	Config Config
	// Points are the runs, in the order they ran.
	Points []PointResult
	// Answer is the largest load that met the objectives (NaN when none
	// did); Above the smallest load above it that did not (NaN when none
	// failed, +Inf never). The capacity lies in [Answer, Above).
	Answer, Above float64
	// Stop is why the search ended (StopConverged, ...).
	Stop string
	// Elapsed is the search's wall time in seconds.
	Elapsed float64
}

// searcher is one Search in progress.
type searcher struct {
	cfg      Config
	run      Runner
	start    time.Time
	deadline time.Time
	res      *Result
	lo, hi   float64 // largest pass, smallest fail above it (NaN: none yet)
}

// Search finds the largest load that meets cfg's criteria: it tries
// cfg.Max, then (when that fails) brackets the limit by halving (for the
// request rate, the first guess is the throughput the maximum load
// reached, which no larger rate can be served at), then bisects the
// bracket geometrically until it is within the tolerance. A point whose
// interval straddles a limit is run again with twice the requests, up to
// cfg.MaxReruns times. The search stops within cfg.Budget. The result is
// returned with what was measured even when err is not nil.
func Search(ctx context.Context, cfg Config, run Runner) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	s := &searcher{cfg: cfg, run: run, start: cfg.Now(), lo: math.NaN(), hi: math.NaN()}
	if cfg.Budget > 0 {
		s.deadline = s.start.Add(cfg.Budget)
	}
	s.res = &Result{Config: cfg, Answer: math.NaN(), Above: math.NaN()}
	defer func() { s.res.Elapsed = s.cfg.Now().Sub(s.start).Seconds() }()
	x := cfg.Max
	for {
		v, stop, err := s.point(ctx, x)
		if err != nil || stop != "" {
			s.res.Answer, s.res.Above, s.res.Stop = s.lo, s.hi, stop
			return s.res, err
		}
		if v == Pass {
			s.lo = x
		} else {
			s.hi = x
		}
		if x, stop = s.next(); stop != "" {
			s.res.Answer, s.res.Above, s.res.Stop = s.lo, s.hi, stop
			return s.res, nil
		}
	}
}

// next is the load to try after the points so far, or why to stop.
func (s *searcher) next() (float64, string) {
	c := &s.cfg
	whole := c.Variable == MaxConcurrency
	switch {
	case !math.IsNaN(s.lo) && s.lo >= c.Max:
		return 0, StopMaximum
	case math.IsNaN(s.lo) && s.hi <= c.Min:
		return 0, StopMinimum
	case math.IsNaN(s.lo):
		x := s.hi / 2
		if last := s.res.Points[len(s.res.Points)-1]; c.Variable == RequestRate && len(s.res.Points) == 1 &&
			last.Throughput > 0 && last.Throughput < s.hi {
			x = last.Throughput // no rate above it can be served
		}
		if whole {
			x = math.Floor(x)
		}
		return max(s.round(x), c.Min), ""
	case math.IsNaN(s.hi) || math.IsInf(s.hi, 1):
		return min(s.round(2*s.lo), c.Max), ""
	case s.hi <= s.lo*(1+c.Tolerance) || (whole && s.hi-s.lo <= 1):
		return 0, StopConverged
	}
	x := math.Sqrt(s.lo * s.hi)
	if whole {
		return min(max(math.Round(x), s.lo+1), s.hi-1), ""
	}
	if r := s.round(x); r > s.lo && r < s.hi {
		x = r
	}
	return x, ""
}

// round keeps three significant digits of a rate (154.333… → 154), so
// that the points read well in the table and in directory names; the
// resolution, 0.5 % at worst, is far finer than any tolerance a search
// uses. Concurrencies are whole already.
func (s *searcher) round(x float64) float64 {
	if s.cfg.Variable != RequestRate || x <= 0 || math.IsInf(x, 0) {
		return x
	}
	scale := math.Pow(10, 2-math.Floor(math.Log10(x)))
	return math.Round(x*scale) / scale
}

// point runs load x, again with twice the requests while its verdict is
// unsure (at most MaxReruns times; then it counts as a failure), and
// returns the verdict, or why the search must stop.
func (s *searcher) point(ctx context.Context, x float64) (Verdict, string, error) {
	n := s.cfg.Requests
	for attempt := 0; ; attempt++ {
		p := Point{Value: x, Requests: n, Attempt: attempt, Deadline: s.deadline}
		if ctx.Err() != nil {
			return Unsure, StopInterrupted, nil
		}
		if !s.deadline.IsZero() && s.cfg.Now().Add(s.expected(p)).After(s.deadline) {
			return Unsure, StopBudget, nil
		}
		began := s.cfg.Now()
		m, err := s.run(ctx, p)
		if err != nil {
			return Unsure, "", fmt.Errorf("%s=%s: %w", s.cfg.Variable, pyfmt.Float(x), err)
		}
		pr := s.judge(p, m, s.cfg.Now().Sub(began).Seconds())
		s.res.Points = append(s.res.Points, pr)
		fmt.Fprintln(s.cfg.Progress, progressLine(s.cfg.Variable, len(s.res.Points), &pr))
		switch {
		case pr.Cut && !s.deadline.IsZero() && !s.cfg.Now().Before(s.deadline):
			return Unsure, StopBudget, nil
		case pr.Cut:
			return Unsure, StopInterrupted, nil
		case pr.Verdict != Unsure:
			return pr.Verdict, "", nil
		case attempt >= s.cfg.MaxReruns:
			return Fail, "", nil
		}
		n *= 2
	}
}

// expected estimates the wall time of p: its requests over the rate, or
// the last point's wall time scaled by the requests (0 when unknown).
func (s *searcher) expected(p Point) time.Duration {
	secs := 0.0
	if s.cfg.Variable == RequestRate && !math.IsInf(p.Value, 1) {
		secs = float64(p.Requests) / p.Value
	} else if k := len(s.res.Points); k > 0 {
		last := s.res.Points[k-1]
		secs = last.Wall * float64(p.Requests) / float64(last.Requests)
	}
	return time.Duration(secs * float64(time.Second))
}

// judge makes the point's result from its measurement.
func (s *searcher) judge(p Point, m *Measurement, wall float64) PointResult {
	pr := PointResult{Point: p, Wall: wall, File: m.File, Cut: m.Cut, GoodShare: math.NaN(), KeptUp: math.NaN()}
	if m.Metrics == nil {
		return pr
	}
	pr.Duration, pr.Throughput = m.Metrics.Duration, m.Metrics.RequestThroughput
	pr.GoodShare = goodShare(m.Metrics, s.cfg.Criteria)
	for _, c := range s.cfg.Criteria {
		pr.Judgements = append(pr.Judgements, judge(m.Metrics, c, s.cfg.Bootstrap))
	}
	if s.cfg.Variable == RequestRate && !math.IsInf(p.Value, 1) {
		pr.KeptUp = keptUp(m.Metrics)
	}
	switch {
	case m.Cut:
	case pr.KeptUp < MinKeptUp:
		pr.Verdict = Fail
	default:
		pr.Verdict = combine(pr.Judgements)
	}
	return pr
}

// MinKeptUp is the least KeptUp of a passing point. A server that keeps
// up with the arrivals finishes requests as fast as they come: the ends
// of the requests spread over the same span as their starts, give or take
// the latency's growth from the first request to the last. One that does
// not finishes them at its own pace, so the ends spread over
// requests/capacity, and the ratio is capacity/rate. Such a point fails
// whatever its latencies: a run too short for the queue to reach the
// objectives would pass, and the next minute at that rate would not
// (a 400-request run at twice the capacity of a server with 256 slots
// absorbs the excess into its batch and can still meet a TTFT objective).
const MinKeptUp = 0.9

// keptUp is the span of the successful requests' start times over the
// span of their end times (NaN with fewer than two).
func keptUp(m *metrics.Result) float64 {
	first, last := math.Inf(1), math.Inf(-1)
	firstEnd, lastEnd := math.Inf(1), math.Inf(-1)
	n := 0
	for i := range m.Outputs {
		o := &m.Outputs[i]
		if !o.Success {
			continue
		}
		n++
		first, last = min(first, o.StartTime), max(last, o.StartTime)
		end := o.StartTime + o.Latency
		firstEnd, lastEnd = min(firstEnd, end), max(lastEnd, end)
	}
	if n < 2 || !(lastEnd > firstEnd) {
		return math.NaN()
	}
	return (last - first) / (lastEnd - firstEnd)
}
