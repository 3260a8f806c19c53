// Package capacity finds the largest load a server carries while its
// service level objectives hold: `gobench sweep sla` (vLLM's `vllm bench sweep
// serve_sla`, vllm/benchmarks/sweep/serve_sla.py@0826bcfb7). A search runs
// points (one `gobench serve` run each, through a Runner), judges each by
// a bootstrap interval of its per-request statistic (verdict.go), brackets
// the limit, bisects it (search.go) and reports the points (report.go).
//
// Every objective is a Criterion on a per-request score: the request's
// value divided by its limit, so that "meets the objective" is always
// "score ≤ 1". Goodput's objectives (--goodput ttft:500 tpot:50) with a
// required share of good requests R are one criterion: the 100·R-th
// percentile of max(ttft/500, tpot/50) is at most 1, which holds exactly
// when at least a share R of the requests meets every objective. A
// percentile objective of vLLM's sweep (p99_ttft_ms<=500) is the 99th
// percentile of ttft/500. Both therefore get the same interval, the same
// verdict and the same margin (how far the statistic is from 1).
package capacity

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/compare"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/resultkey"
)

// Limit is one objective on one per-request metric.
type Limit struct {
	// Metric is ttft, tpot, itl or e2el.
	Metric string
	// MS is the limit in milliseconds (positive; +Inf is no limit).
	MS float64
}

// Criterion is one service level objective: Stat of the per-request
// scores (the largest value/limit over Limits) must be at most 1 (below 1
// when Strict).
type Criterion struct {
	// Text is the criterion as the user wrote it, for the report.
	Text string
	// Limits are the metrics a request is scored on; a request's score is
	// the largest of its value/limit.
	Limits []Limit
	// Stat is the statistic of the scores that must stay within 1: a
	// percentile, the median or the mean.
	Stat compare.Statistic
	// Strict is true for "<": the statistic must be below the limit.
	Strict bool
}

// failedScore is the score of a failed request: far past any limit, so a
// server that sheds load by failing requests does not look fast, and
// finite, so that interpolated percentiles stay numbers.
const failedScore = 1e6

// sloMetrics are the metrics a criterion may name.
var sloMetrics = []string{resultkey.MetricTTFT, resultkey.MetricTPOT, resultkey.MetricITL, resultkey.MetricE2EL}

// ParseCriterion parses one percentile objective in the form of vLLM's
// --sla-params values (vllm/benchmarks/sweep/sla_sweep.py@d29a69a5):
// KEY<=VALUE or KEY<VALUE, KEY a statistic key of the result file
// (p99_ttft_ms, median_e2el_ms, mean_tpot_ms) and VALUE milliseconds.
// ">" and ">=", which vLLM also takes, bound a throughput from below: no
// per-request statistic, so they are refused with the reason.
func ParseCriterion(text string) (Criterion, error) {
	c := Criterion{Text: text}
	var key, val string
	switch {
	case strings.Contains(text, ">"):
		return c, fmt.Errorf("%q: only upper bounds of latency statistics (<=, <) are per-request objectives; a lower bound of a throughput has no per-request value to test", text)
	case strings.Contains(text, "<="):
		key, val, _ = strings.Cut(text, "<=")
	case strings.Contains(text, "<"):
		key, val, _ = strings.Cut(text, "<")
		c.Strict = true
	default:
		return c, fmt.Errorf("%q: expected KEY<=VALUE, e.g. p99_ttft_ms<=500", text)
	}
	key = strings.TrimSpace(key)
	metric, st, ok := resultkey.ParseStatKey(key)
	if !ok || !slices.Contains(sloMetrics, metric) || st.Kind == resultkey.Std {
		return c, fmt.Errorf("%q: %q is not a statistic of ttft, tpot, itl or e2el (mean_, median_ or pNN_ then the metric then _ms, e.g. p99_ttft_ms)", text, key)
	}
	ms, err := pyfmt.ParseFloat(strings.TrimSpace(val))
	if err != nil || !(ms > 0) {
		return c, fmt.Errorf("%q: the limit must be a positive number of milliseconds", text)
	}
	c.Limits, c.Stat = []Limit{{Metric: metric, MS: ms}}, st
	return c, nil
}

// GoodputCriterion is goodput's objectives (metrics.ParseGoodput: ttft,
// tpot, e2el in milliseconds) with the share of requests that must meet
// all of them: the 100·share-th percentile of the requests' scores is at
// most 1.
func GoodputCriterion(slos map[string]float64, share float64) (Criterion, error) {
	if !(share > 0 && share <= 1) {
		return Criterion{}, fmt.Errorf("the share of good requests must be in (0, 1], got %s", pyfmt.Float(share))
	}
	var parts []string
	c := Criterion{Stat: compare.Statistic{Kind: compare.Percentile, P: 100 * share}}
	for _, m := range []string{resultkey.MetricTTFT, resultkey.MetricTPOT, resultkey.MetricE2EL} {
		ms, ok := slos[m]
		if !ok {
			continue
		}
		if !(ms > 0) {
			return c, fmt.Errorf("the %s objective %s ms can never be met: give a positive limit", m, pyfmt.Float(ms))
		}
		c.Limits = append(c.Limits, Limit{Metric: m, MS: ms})
		parts = append(parts, m+":"+strconv.FormatFloat(ms, 'f', -1, 64))
	}
	if len(c.Limits) == 0 {
		return c, fmt.Errorf("no objective: give --goodput with ttft, tpot or e2el limits")
	}
	c.Text = fmt.Sprintf("%s%% of requests meet %s", strconv.FormatFloat(100*share, 'f', -1, 64), strings.Join(parts, " "))
	return c, nil
}

// scores returns the per-request scores of m under c, grouped by request
// (an ITL criterion scores each gap of a request): the input of the
// bootstrap, which resamples requests.
func (c Criterion) scores(m *metrics.Result) [][]float64 {
	groups := make([][]float64, 0, len(m.Outputs))
	for i := range m.Outputs {
		o := &m.Outputs[i]
		if !o.Success {
			groups = append(groups, []float64{failedScore})
			continue
		}
		if len(c.Limits) == 1 && c.Limits[0].Metric == resultkey.MetricITL {
			lim := c.Limits[0].MS / 1000
			g := make([]float64, len(o.ITL))
			for k, v := range o.ITL {
				g[k] = v / lim
			}
			groups = append(groups, g)
			continue
		}
		score := 0.0
		for _, l := range c.Limits {
			score = max(score, value(o, outputLen(m, i), l.Metric)/(l.MS/1000))
		}
		groups = append(groups, []float64{score})
	}
	return groups
}

// outputLen is the output length the metrics used for output i.
func outputLen(m *metrics.Result, i int) int {
	if i < len(m.ActualOutputLens) {
		return m.ActualOutputLens[i]
	}
	return m.Outputs[i].OutputTokens
}

// value is a successful request's metric in seconds, as vLLM's
// calculate_metrics defines it; TPOT is 0 for a one-token output, as
// goodput counts it; a request without ITLs has 0.
func value(o *metrics.Output, n int, metric string) float64 {
	switch metric {
	case resultkey.MetricTTFT:
		return o.TTFT
	case resultkey.MetricTPOT:
		if n > 1 {
			return (o.Latency - o.TTFT) / float64(n-1)
		}
		return 0
	case resultkey.MetricITL:
		return slices.Max(append([]float64{0}, o.ITL...))
	default:
		return o.Latency
	}
}

// goodShare is the share of requests whose score is within 1 under every
// criterion: vLLM's good requests over all requests sent.
func goodShare(m *metrics.Result, cs []Criterion) float64 {
	if len(m.Outputs) == 0 {
		return math.NaN()
	}
	worst := make([]float64, len(m.Outputs))
	for _, c := range cs {
		for i, g := range c.scores(m) {
			worst[i] = max(worst[i], slices.Max(append([]float64{0}, g...)))
		}
	}
	good := 0
	for _, w := range worst {
		if w <= 1 {
			good++
		}
	}
	return float64(good) / float64(len(worst))
}
