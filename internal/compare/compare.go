// Package compare puts saved benchmark results side by side: every metric
// the results share, its value in each, the change from the first
// (the baseline), which direction is better, and — when the results carry
// per-request data (--save-detailed) — whether a change in a latency
// statistic is real or noise, from a seeded bootstrap confidence interval
// of the difference. Results of gobench serve that carry the server's own
// account (server_view) are also compared on it: each run's verdict and
// the main server figures (ServerView).
package compare

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
)

// Better says which direction of a metric is an improvement
// (resultkey.Direction decides it per key).
type Better = resultkey.Better

// Directions of improvement, as resultkey defines them.
const (
	// Neither: the value describes the workload or is a count whose
	// direction depends on the goal (tokens sent, peak concurrency).
	Neither = resultkey.Neither
	// Lower is better: latencies, failures, duration.
	Lower = resultkey.Lower
	// Higher is better: throughputs, goodput, completed requests.
	Higher = resultkey.Higher
)

// Verdicts of the significance test.
const (
	// Real: the interval of the difference excludes 0.
	Real = "real"
	// Noise: the interval includes 0; the data cannot tell the runs apart.
	Noise = "noise"
)

// minRequests is the fewest requests per run for which a bootstrap
// interval is computed.
const minRequests = 5

// Significance is the bootstrap test of one statistic between the
// baseline and one other run.
type Significance struct {
	// Interval is the confidence interval of the difference (run minus
	// baseline), in the statistic's unit (ms).
	Interval Interval
	// Verdict is Real or Noise, or "" when the test could not be made
	// (see Note).
	Verdict string
	// Note says why there is no verdict.
	Note string
	// RequestsA and RequestsB are the numbers of requests resampled.
	RequestsA, RequestsB int
}

// Change is how one run differs from the baseline in one metric.
type Change struct {
	// Abs is value − baseline value; Rel is Abs / baseline value (±Inf or
	// NaN when the baseline value is 0).
	Abs, Rel float64
	// Sig is the significance test, nil for metrics that are not latency
	// statistics.
	Sig *Significance
}

// Row is one line of the comparison.
type Row struct {
	// Key is the result key.
	Key string
	// Better is the direction of improvement (metrics only).
	Better Better
	// Values are the runs' values (metrics only).
	Values []float64
	// Text are the runs' values as printed ("" where a run lacks the key).
	Text []string
	// Changes are per run after the baseline (metrics only).
	Changes []Change
	// path is the row's place in a setting that is an object
	// (gobench_workload, seed: Key "gobench_workload.seed"); nil for a
	// top-level key.
	path []string
	// missing marks the runs that lack a server figure (ServerView).
	missing []bool
}

// Comparison is the result of Compare.
type Comparison struct {
	// Names are the short names of the runs (A, B, C, ...), the first
	// being the baseline; Sources are their file names (with #index for
	// files of several runs) and Labels their --label.
	Names, Sources, Labels []string
	// Detailed tells which runs carry per-request data.
	Detailed []bool
	// Settings are the keys describing the runs' setup, side by side.
	Settings []Row
	// Metrics are the numeric result keys every run has, with changes.
	Metrics []Row
	// NotShared are the numeric keys that only some runs have.
	NotShared []string
	// Zero are the numeric keys left out because every run has 0 or lacks
	// them (rtfx of text runs), but those whose zero is a finding
	// (resultkey.ZeroIsMeaningful: failed, ...).
	Zero []string
	// Notes say which comparisons could not be tested for significance.
	Notes []string
	// Server compares the runs' server_view (the server's own figures);
	// nil when no run has one.
	Server *ServerView
	// Workload are, per run after the baseline, the workload settings
	// in which it differs from the baseline (WorkloadDiff).
	Workload [][]WorkloadDifference
	// Options are the significance test's options (defaults applied).
	Options Options
	// All makes the text show every metric, the settings, the command
	// lines and the server's figures, not only what changed for real.
	All bool
}

// Compare compares runs[1:] with runs[0]. It fails when fewer than two
// runs are given or a run's per-request lists are corrupt.
func Compare(runs []*resultfile.Run, o Options) (*Comparison, error) {
	if len(runs) < 2 {
		return nil, errors.New("compare needs at least two results")
	}
	o = o.withDefaults()
	c := &Comparison{Options: o}
	details := make([]*resultfile.Detailed, len(runs))
	for i, r := range runs {
		c.Names = append(c.Names, runName(i))
		c.Sources = append(c.Sources, r.Name())
		c.Labels = append(c.Labels, r.Label())
		d, err := r.Detailed()
		if err != nil && !errors.Is(err, resultfile.ErrNotDetailed) {
			return nil, err
		}
		details[i] = d
		c.Detailed = append(c.Detailed, d != nil)
	}
	c.Settings = settingRows(runs)
	c.Metrics, c.NotShared, c.Zero = metricRows(runs)
	c.testSignificance(details)
	c.Server = serverViewOf(runs)
	for _, r := range runs[1:] {
		c.Workload = append(c.Workload, WorkloadDiff(runs[0], r))
	}
	return c, nil
}

// runName is A, B, ..., Z, then R27, R28, ...
func runName(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return "R" + strconv.Itoa(i+1)
}

// isList reports whether a run holds key as a list or object (per-request
// data, events), which tables leave out.
func isList(r *resultfile.Run, key string) bool {
	raw, _ := r.Raw(key)
	return len(raw) > 0 && (raw[0] == '[' || raw[0] == '{')
}

// settingRows lists the setup keys and the non-numeric scalars (metadata)
// of any run, in order of first appearance. A setup key holding an object
// (gobench_workload) gives a row per value inside it, keyed by its dotted
// path.
func settingRows(runs []*resultfile.Run) []Row {
	var rows []Row
	seen := map[string]bool{}
	add := func(key string, path []string) {
		if seen[key] {
			return
		}
		seen[key] = true
		row := Row{Key: key, path: path}
		for _, r := range runs {
			if path != nil {
				row.Text = append(row.Text, nestedText(r, path))
			} else {
				row.Text = append(row.Text, settingText(r, key))
			}
		}
		rows = append(rows, row)
	}
	for _, r := range runs {
		for _, k := range r.Keys() {
			if _, ok := r.Object(k); ok && resultkey.IsSetting(k) {
				for _, p := range objectPaths(runs, k) {
					add(strings.Join(p, "."), p)
				}
				continue
			}
			// Metadata (strings, booleans) counts as setup; a metric that
			// some runs lack (request_goodput null) does not.
			setting := resultkey.IsSetting(k) || !anyNumeric(runs, k) && !isNullEverywhere(runs, k)
			if !isList(r, k) && setting {
				add(k, nil)
			}
		}
	}
	return rows
}

// objectPaths are the paths of the values inside the object setting key
// of every run ([key, name], [key, name, name inside], ...), in order of
// first appearance: a value that is a non-empty object in some run is
// entered, and a run that has another value there shows none below it.
func objectPaths(runs []*resultfile.Run, key string) [][]string {
	t := &tree{sub: map[string]*tree{}}
	for _, r := range runs {
		if o, ok := r.Object(key); ok {
			t.add(o)
		}
	}
	return t.paths([]string{key})
}

// tree is the union of the keys of several objects, in order of first
// appearance; a nil sub-tree is a value that is no object anywhere.
type tree struct {
	keys []string
	sub  map[string]*tree
}

func (t *tree) add(o *pyjson.Object) {
	for _, k := range o.Keys() {
		if _, seen := t.sub[k]; !seen {
			t.keys = append(t.keys, k)
			t.sub[k] = nil
		}
		v, _ := o.Get(k)
		if child, ok := v.(*pyjson.Object); ok && child.Len() > 0 {
			if t.sub[k] == nil {
				t.sub[k] = &tree{sub: map[string]*tree{}}
			}
			t.sub[k].add(child)
		}
	}
}

func (t *tree) paths(prefix []string) [][]string {
	var out [][]string
	for _, k := range t.keys {
		p := append(slices.Clip(prefix), k)
		if t.sub[k] == nil {
			out = append(out, p)
		} else {
			out = append(out, t.sub[k].paths(p)...)
		}
	}
	return out
}

// nestedText prints the value at path inside a run's object setting: a
// string as it is, anything else as its JSON (Python's repr of numbers,
// as the file has it); "" when the run lacks it.
func nestedText(r *resultfile.Run, path []string) string {
	o, _ := r.Object(path[0])
	v, ok := lookup(o, path[1:]...)
	if !ok {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, err := pyjson.AppendPython(nil, v)
	if err != nil {
		return ""
	}
	return string(b)
}

// settingText prints a setting as the file has it: numbers in the file's
// own text (Python's repr: 8.0, 0.5), infinity as inf.
func settingText(r *resultfile.Run, key string) string {
	if v, ok := r.Number(key); ok && r.IsNumeric(key) && !math.IsInf(v, 0) && !math.IsNaN(v) {
		raw, _ := r.Raw(key)
		return strings.TrimSpace(string(raw))
	} else if ok {
		return resultfile.FormatValue(v)
	}
	return r.Display(key)
}

func isNullEverywhere(runs []*resultfile.Run, key string) bool {
	for _, r := range runs {
		if raw, ok := r.Raw(key); ok && string(raw) != "null" {
			return false
		}
	}
	return true
}

func anyNumeric(runs []*resultfile.Run, key string) bool {
	for _, r := range runs {
		if r.IsNumeric(key) {
			return true
		}
	}
	return false
}

// metricRows lists the numeric keys every run has (in the first run's
// order, failed_ratio after failed), the numeric keys only some have, and
// those left out because they are 0 or absent in every run.
func metricRows(runs []*resultfile.Run) (rows []Row, notShared, zero []string) {
	var keys []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, k := range keysWithFigures(r) {
			if seen[k] || resultkey.IsSetting(k) || !r.IsNumeric(k) && !strings.Contains(k, ".") {
				continue
			}
			seen[k] = true
			if zeroEverywhere(runs, k) && !resultkey.ZeroIsMeaningful(k) {
				zero = append(zero, k)
				continue
			}
			if !everyNumeric(runs, k) {
				notShared = append(notShared, k)
				continue
			}
			keys = append(keys, k)
			if k == resultkey.Failed {
				keys = append(keys, resultkey.FailedRatio)
			}
		}
	}
	rows = make([]Row, 0, len(keys))
	for _, k := range keys {
		row := Row{Key: k, Better: resultkey.Direction(k)}
		for _, r := range runs {
			v, _ := r.Number(k)
			row.Values = append(row.Values, v)
			row.Text = append(row.Text, r.Display(k))
		}
		base := row.Values[0]
		for _, v := range row.Values[1:] {
			row.Changes = append(row.Changes, Change{Abs: v - base, Rel: (v - base) / base})
		}
		rows = append(rows, row)
	}
	return rows, notShared, zero
}

// keysWithFigures is r's keys with, after each of gobench's objects, the
// dotted paths of its figures (resultkey.Figures: the steady state's
// throughputs and latencies, the client's schedule lag).
func keysWithFigures(r *resultfile.Run) []string {
	var keys []string
	for _, k := range r.Keys() {
		keys = append(keys, k)
		if o, ok := r.Object(k); ok {
			keys = append(keys, resultkey.Figures(k, o.Keys())...)
		}
	}
	return keys
}

// zeroEverywhere reports whether every run has key as 0 or lacks it.
func zeroEverywhere(runs []*resultfile.Run, key string) bool {
	for _, r := range runs {
		if v, ok := r.Number(key); ok && v != 0 {
			return false
		}
	}
	return true
}

func everyNumeric(runs []*resultfile.Run, key string) bool {
	for _, r := range runs {
		if _, ok := r.Number(key); !ok {
			return false
		}
	}
	return true
}

// ParseStatKey splits a latency statistic key such as "p99.9_ttft_ms" into
// its metric and statistic (resultkey.ParseStatKey); ok is false for other
// keys and for std_* (the spread is not a location and is not tested).
func ParseStatKey(key string) (metric string, st Statistic, ok bool) {
	metric, st, ok = resultkey.ParseStatKey(key)
	if !ok || st.Kind == resultkey.Std {
		return "", Statistic{}, false
	}
	return metric, st, true
}

// testSignificance fills Sig for the latency statistics of every run
// compared with the baseline.
func (c *Comparison) testSignificance(details []*resultfile.Detailed) {
	type stat struct {
		row int
		st  Statistic
	}
	byMetric := map[string][]stat{}
	var order []string
	for i, row := range c.Metrics {
		m, st, ok := ParseStatKey(row.Key)
		if !ok {
			continue
		}
		if _, seen := byMetric[m]; !seen {
			order = append(order, m)
		}
		byMetric[m] = append(byMetric[m], stat{i, st})
	}
	samples := make([]map[string]*Sample, len(details))
	sample := func(run int, metric string) *Sample {
		if samples[run] == nil {
			samples[run] = map[string]*Sample{}
		}
		if s, ok := samples[run][metric]; ok {
			return s
		}
		s := NewSample(RequestValues(details[run], metric))
		samples[run][metric] = s
		return s
	}
	for j := 1; j < len(details); j++ {
		if details[0] == nil || details[j] == nil {
			if len(order) > 0 {
				c.Notes = append(c.Notes, fmt.Sprintf("%s vs %s: no significance test: %s", c.Names[j], c.Names[0], lacking(c, j, details)))
			}
			continue
		}
		for _, m := range order {
			stats := byMetric[m]
			sig := func(note string) *Significance { return &Significance{Note: note} }
			var results []*Significance
			switch {
			case !hasMetricData(details[0], m) || !hasMetricData(details[j], m):
				results = repeat(sig("no per-request "+m+" data in the file"), len(stats))
			default:
				a, b := sample(0, m), sample(j, m)
				if a.Requests() < minRequests || b.Requests() < minRequests {
					results = repeat(sig(fmt.Sprintf("fewer than %d requests", minRequests)), len(stats))
					break
				}
				list := make([]Statistic, len(stats))
				for k, s := range stats {
					list[k] = s.st
				}
				ivs := Bootstrap(a, b, list, c.Options, m+"/"+strconv.Itoa(j))
				for _, iv := range ivs {
					s := &Significance{Interval: iv, Verdict: Noise, RequestsA: a.Requests(), RequestsB: b.Requests()}
					if iv.Excludes0() {
						s.Verdict = Real
					}
					results = append(results, s)
				}
			}
			for k, s := range stats {
				c.Metrics[s.row].Changes[j-1].Sig = results[k]
			}
		}
	}
}

// lacking says which of the baseline and run j has no per-request data.
func lacking(c *Comparison, j int, details []*resultfile.Detailed) string {
	var names []string
	for _, i := range []int{0, j} {
		if details[i] == nil {
			names = append(names, c.Names[i])
		}
	}
	return strings.Join(names, " and ") + " saved no per-request data (run with --save-detailed)"
}

// Tested reports whether any statistic got a verdict.
func (c *Comparison) Tested() bool {
	for _, r := range c.Metrics {
		for _, ch := range r.Changes {
			if ch.Sig != nil && ch.Sig.Verdict != "" {
				return true
			}
		}
	}
	return false
}

func repeat(s *Significance, n int) []*Significance {
	out := make([]*Significance, n)
	for i := range out {
		cp := *s
		out[i] = &cp
	}
	return out
}

// hasMetricData reports whether the per-request data can give metric.
func hasMetricData(d *resultfile.Detailed, metric string) bool {
	if m, _ := resultkey.LookupMetric(metric); m.ClientQueue {
		return d.HasQueueTimes
	}
	return true
}

// RequestValues returns, per successful request, its values of metric in
// milliseconds, as metrics.Calculate derives them
// (metrics.RequestLatencies; TPOT from the request's own output tokens).
func RequestValues(d *resultfile.Detailed, metric string) [][]float64 {
	var out [][]float64
	for i := range d.Outputs {
		o := &d.Outputs[i]
		if !o.Success {
			continue
		}
		seconds, _ := metrics.RequestLatencies(o, o.OutputTokens, metric)
		var v []float64 // nil for none
		if len(seconds) > 0 {
			v = make([]float64, len(seconds))
			for k, x := range seconds {
				v[k] = x * 1000
			}
		}
		out = append(out, v)
	}
	return slices.Clip(out)
}
