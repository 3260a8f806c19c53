package compare

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
	"github.com/gobench/gobench/internal/runset"
)

// SetChange is how one set differs from the baseline set in one metric,
// tested two ways.
type SetChange struct {
	// Abs and Rel are the change of the means across runs.
	Abs, Rel float64
	// Across is Welch's t interval of the difference of the runs' values:
	// is the change larger than the run-to-run spread?
	Across runset.Difference
	// Within is the bootstrap of the latency statistic over the requests
	// of all the set's runs pooled (nil for other metrics): is it larger
	// than the request-to-request spread?
	Within *Significance
}

// AcrossVerdict is Real, Noise or "" (no interval: see Across.Note).
func (c SetChange) AcrossVerdict() string {
	switch {
	case c.Across.Note != "":
		return ""
	case c.Across.Excludes0():
		return Real
	}
	return Noise
}

// SetRow is one metric of a comparison of sets.
type SetRow struct {
	// Key is the result key and Better its direction.
	Key    string
	Better Better
	// Means and Stds are per set, across its completed runs.
	Means, Stds []float64
	// Changes are per set after the baseline.
	Changes []SetChange
}

// SetComparison compares sets of runs (serve --num-runs), each with the
// first.
type SetComparison struct {
	// Names are A, B, ...; Sources the set files; Runs the completed runs
	// of each set.
	Names, Sources []string
	Runs           []int
	// Rows are the metrics every set has (0 everywhere left out, but
	// those whose zero is a finding).
	Rows []SetRow
	// Notes say which tests could not be made.
	Notes []string
	// Workload are, per set after the baseline, the workload settings in
	// which its first completed run differs from the baseline's
	// (WorkloadDiff).
	Workload [][]WorkloadDifference
	// Options are the bootstrap's; its Confidence is the level of both
	// tests.
	Options Options
	// All makes the text show every metric with its spread and both
	// intervals, not only what changed for real.
	All bool
}

// CompareSets compares sets[1:] with sets[0]; sources name their files.
func CompareSets(sets []*runset.Set, sources []string, o Options) (*SetComparison, error) {
	if len(sets) < 2 {
		return nil, errors.New("compare needs at least two sets of runs")
	}
	o = o.withDefaults()
	c := &SetComparison{Sources: sources, Options: o}
	pooled := make([]*resultfile.Detailed, len(sets))
	for i, s := range sets {
		c.Names = append(c.Names, runName(i))
		c.Runs = append(c.Runs, len(s.Complete()))
		d, err := pool(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sources[i], err)
		}
		pooled[i] = d
	}
	c.Rows = setRows(sets, o.Confidence)
	c.testWithin(pooled)
	for _, s := range sets[1:] {
		c.Workload = append(c.Workload, setWorkloadDiff(sets[0], s))
	}
	return c, nil
}

// setWorkloadDiff compares the workloads of the first completed runs of
// two sets (the runs of a set share theirs, but for the seed each run may
// draw); nil when a set has no completed run.
func setWorkloadDiff(a, b *runset.Set) []WorkloadDifference {
	ra, rb := a.Complete(), b.Complete()
	if len(ra) == 0 || len(rb) == 0 || ra[0].Result == nil || rb[0].Result == nil {
		return nil
	}
	return WorkloadDiff(ra[0].Result, rb[0].Result)
}

// setRows are the metrics of every set with their changes and the test
// across runs.
func setRows(sets []*runset.Set, confidence float64) []SetRow {
	var rows []SetRow
	for _, m := range sets[0].Metrics {
		row := SetRow{Key: m.Key, Better: resultkey.Direction(m.Key)}
		values := make([][]float64, len(sets))
		zero, ok := true, true
		for i, s := range sets {
			v, has := s.Values(m.Key)
			if !has {
				ok = false
				break
			}
			values[i] = v
			sum := runset.Summarize(v, confidence)
			row.Means, row.Stds = append(row.Means, sum.Mean), append(row.Stds, sum.Std)
			zero = zero && sum.Min == 0 && sum.Max == 0
		}
		if !ok || zero && !resultkey.ZeroIsMeaningful(m.Key) {
			continue
		}
		for j := 1; j < len(sets); j++ {
			abs := row.Means[j] - row.Means[0]
			row.Changes = append(row.Changes, SetChange{Abs: abs, Rel: abs / row.Means[0], Across: runset.Welch(values[0], values[j], confidence)})
		}
		rows = append(rows, row)
	}
	return rows
}

// pool is the per-request data of every completed run of s, in one list;
// nil when a run has none (saved without --save-detailed).
func pool(s *runset.Set) (*resultfile.Detailed, error) {
	out := &resultfile.Detailed{HasQueueTimes: true, HasLatencies: true, HasStartTimes: true}
	var outputs []metrics.Output
	for _, r := range s.Complete() {
		d, err := r.Result.Detailed()
		if errors.Is(err, resultfile.ErrNotDetailed) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		outputs = append(outputs, d.Outputs...)
		out.HasQueueTimes = out.HasQueueTimes && d.HasQueueTimes
		out.HasLatencies = out.HasLatencies && d.HasLatencies
		out.HasStartTimes = out.HasStartTimes && d.HasStartTimes
	}
	out.Outputs = outputs
	return out, nil
}

// testWithin fills Within for the latency statistics: the bootstrap of
// Compare, over each set's requests pooled.
func (c *SetComparison) testWithin(pooled []*resultfile.Detailed) {
	byMetric := map[string][]int{}
	var order []string
	for i, row := range c.Rows {
		m, _, ok := ParseStatKey(row.Key)
		if !ok {
			continue
		}
		if _, seen := byMetric[m]; !seen {
			order = append(order, m)
		}
		byMetric[m] = append(byMetric[m], i)
	}
	for j := 1; j < len(pooled); j++ {
		if pooled[0] == nil || pooled[j] == nil {
			who := c.Names[j]
			if pooled[0] == nil {
				who = c.Names[0]
			}
			if len(order) > 0 {
				c.Notes = append(c.Notes, fmt.Sprintf("%s vs %s: no test within runs: a run of %s saved no per-request data (run with --save-detailed)",
					c.Names[j], c.Names[0], who))
			}
			continue
		}
		for _, m := range order {
			c.testMetric(pooled[0], pooled[j], j, m, byMetric[m])
		}
	}
}

// testMetric bootstraps the statistics of metric (rows) between the
// pooled baseline a and set j's pooled b.
func (c *SetComparison) testMetric(a, b *resultfile.Detailed, j int, metric string, rows []int) {
	set := func(s *Significance) {
		for _, i := range rows {
			cp := *s
			c.Rows[i].Changes[j-1].Within = &cp
		}
	}
	if !hasMetricData(a, metric) || !hasMetricData(b, metric) {
		set(&Significance{Note: "no per-request " + metric + " data in the files"})
		return
	}
	sa, sb := NewSample(RequestValues(a, metric)), NewSample(RequestValues(b, metric))
	if sa.Requests() < minRequests || sb.Requests() < minRequests {
		set(&Significance{Note: fmt.Sprintf("fewer than %d requests", minRequests)})
		return
	}
	stats := make([]Statistic, len(rows))
	for k, i := range rows {
		_, stats[k], _ = ParseStatKey(c.Rows[i].Key)
	}
	ivs := Bootstrap(sa, sb, stats, c.Options, metric+"/"+strconv.Itoa(j))
	for k, i := range rows {
		s := &Significance{Interval: ivs[k], Verdict: Noise, RequestsA: sa.Requests(), RequestsB: sb.Requests()}
		if ivs[k].Excludes0() {
			s.Verdict = Real
		}
		c.Rows[i].Changes[j-1].Within = s
	}
}
