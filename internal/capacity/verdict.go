package capacity

import (
	"fmt"
	"math"
	"strconv"

	"github.com/gobench/gobench/internal/compare"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/resultkey"
)

// Verdict is what one point says about the objectives.
type Verdict int

const (
	// Unsure: the interval straddles the limit (or the run is too short
	// for the statistic): the point is run again, longer.
	Unsure Verdict = iota
	// Pass: the whole interval is within the limit.
	Pass
	// Fail: the whole interval is past the limit.
	Fail
)

// String names the verdict in the table and the JSON.
func (v Verdict) String() string { return [...]string{"unsure", "pass", "fail"}[v] }

// Judgement is one criterion's statistic at one point.
type Judgement struct {
	// Criterion is the criterion judged.
	Criterion Criterion
	// Requests is the number of requests with a score.
	Requests int
	// Estimate is the statistic of the scores (1 is the limit); Low and
	// High the ends of its bootstrap interval (NaN when not computed).
	Estimate, Low, High float64
	// Verdict is Pass when High is within 1, Fail when Low is past 1,
	// Unsure otherwise; Why says why a verdict is Unsure.
	Verdict Verdict
	Why     string
}

// minRequests is the fewest requests whose statistic st a verdict may
// rest on: a percentile P needs 2/(1 − P/100) requests (200 for p99), so
// that at least two requests lie above it and the interval is not the
// spread of the slowest request alone; the median and the mean need 20.
func minRequests(st compare.Statistic) int {
	if st.Kind != resultkey.Percentile || st.P <= 90 {
		return 20
	}
	if st.P >= 100 {
		return math.MaxInt // the maximum: no run is long enough to bound it
	}
	return int(math.Ceil(2 / (1 - st.P/100)))
}

// judge computes c's statistic on m with its bootstrap interval
// (compare.BootstrapOne: requests resampled with replacement) and the
// verdict at confidence o.Confidence.
func judge(m *metrics.Result, c Criterion, o compare.Options) Judgement {
	s := compare.NewSample(c.scores(m))
	j := Judgement{Criterion: c, Requests: s.Requests(), Estimate: math.NaN(), Low: math.NaN(), High: math.NaN()}
	if j.Requests == 0 {
		j.Why = "no request"
		return j
	}
	stats := []compare.Statistic{c.Stat}
	j.Estimate = s.Estimate(stats)[0]
	iv := compare.BootstrapOne(s, stats, o, c.Text)[0]
	j.Low, j.High = iv.Low, iv.High
	switch need := minRequests(c.Stat); {
	case j.Requests < need:
		j.Why = fmt.Sprintf("%d requests, %s needs at least %d", j.Requests, statName(c.Stat), need)
	case c.Strict && j.High < 1, !c.Strict && j.High <= 1:
		j.Verdict = Pass
	case c.Strict && j.Low >= 1, !c.Strict && j.Low > 1:
		j.Verdict = Fail
	default:
		j.Why = "the interval straddles the limit"
	}
	return j
}

// statName names a statistic in messages: p99, median, mean.
func statName(st compare.Statistic) string {
	switch st.Kind {
	case resultkey.Mean:
		return "the mean"
	case resultkey.Median:
		return "the median"
	}
	return "p" + resultkey.PercentileLabel(st.P)
}

// combine is the verdict of a point from its criteria's: Fail when any
// fails (more data would not make it pass), Pass when all pass, Unsure
// otherwise.
func combine(js []Judgement) Verdict {
	v := Pass
	for _, j := range js {
		switch j.Verdict {
		case Fail:
			return Fail
		case Unsure:
			v = Unsure
		}
	}
	return v
}

// formatScore prints a statistic of scores as a multiple of the limit.
func formatScore(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	if v >= failedScore {
		return "failed"
	}
	return strconv.FormatFloat(v, 'f', 2, 64) + "x"
}
