package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/gobench/gobench/internal/resultkey"
)

// Tally counts how one run's metrics changed from the baseline's, by the
// verdict of the significance test: it is the headline, and what
// --fail-on judges.
type Tally struct {
	// Regressions, Improvements and Noise count the tested statistics
	// whose change is real and worse, real and better, or noise; Real
	// counts real changes of a metric without a direction.
	Regressions, Improvements, Real, Noise int
	// Untested counts the metrics that changed without a verdict (no
	// test applies, or it could not be made), the top-level ones only
	// (isMain).
	Untested int
	// Metrics is the number of metrics compared, spreads aside.
	Metrics int
	// Regressed are the keys of the real regressions, in table order.
	Regressed []string
}

// Tested reports whether any change got a verdict.
func (t Tally) Tested() bool { return t.Regressions+t.Improvements+t.Real+t.Noise > 0 }

// verdictOf classifies a change: "worse", "better", Real (no direction),
// Noise, or "" without a verdict.
func verdictOf(verdict string, b Better, iv Interval) string {
	switch {
	case verdict == Noise:
		return Noise
	case verdict != Real:
		return ""
	}
	if d := direction(b, iv); d != "" {
		return d
	}
	return Real
}

// add counts one change; changed says whether its value moved at all.
func (t *Tally) add(key, verdict string, changed bool) {
	if !isSpread(key) {
		t.Metrics++
	}
	switch verdict {
	case "worse":
		t.Regressions++
		t.Regressed = append(t.Regressed, key)
	case "better":
		t.Improvements++
	case Real:
		t.Real++
	case Noise:
		t.Noise++
	default:
		if changed && isMain(key) {
			t.Untested++
		}
	}
}

// isMain reports whether an untested change of key belongs in the short
// table and the headline: a top-level figure (duration, throughputs,
// counts), not a spread (std_*) nor a figure of gobench's sections
// (gobench_steady_state.*, gobench_client.*), which --all shows.
func isMain(key string) bool {
	return !isSpread(key) && !strings.Contains(key, ".")
}

// isSpread reports whether key is a standard deviation, which describes
// the requests' spread rather than a level and is never tested.
func isSpread(key string) bool {
	_, st, ok := resultkey.ParseStatKey(key)
	return ok && st.Kind == resultkey.Std
}

// changed reports whether a change is one: not 0 (NaN, from values that
// are not numbers, counts as a change).
func changed(abs float64) bool { return abs != 0 || math.IsNaN(abs) }

// Headline is the first line of a comparison of run b with the baseline
// a: "B vs A: 3 real regressions, 2 real improvements, 14 within noise,
// 4 changed without a test", or, when nothing could be tested, "B vs A:
// 15 of 21 metrics changed; no significance test".
func (t Tally) Headline(a, b string) string {
	head := b + " vs " + a + ": "
	if !t.Tested() {
		return head + fmt.Sprintf("%d of %d metrics changed; no significance test", t.Untested, t.Metrics)
	}
	parts := []string{count(t.Regressions, "real regression"), count(t.Improvements, "real improvement"),
		fmt.Sprintf("%d within noise", t.Noise)}
	if t.Real > 0 {
		parts = append(parts, count(t.Real, "real change")+" without a direction")
	}
	if t.Untested > 0 {
		parts = append(parts, fmt.Sprintf("%d changed without a test", t.Untested))
	}
	return head + strings.Join(parts, ", ")
}

// count is "1 real regression", "3 real regressions".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Tally counts the changes of run j (1 for the first after the baseline).
func (c *Comparison) Tally(j int) Tally {
	var t Tally
	for _, r := range c.Metrics {
		ch := r.Changes[j-1]
		v := ""
		if ch.Sig != nil {
			v = verdictOf(ch.Sig.Verdict, r.Better, ch.Sig.Interval)
		}
		t.add(r.Key, v, changed(ch.Abs))
	}
	return t
}

// shownByDefault reports whether a metric row belongs in the short table:
// a real change for some run, or a change of a main figure (isMain) no
// test could judge; noise and unchanged values are left to --all.
func (c *Comparison) shownByDefault(r Row) bool {
	for j := range r.Changes {
		if shownFor(r, j) {
			return true
		}
	}
	return false
}

// shownFor reports whether row r belongs in the short table of the run
// after the baseline whose change is r.Changes[j].
func shownFor(r Row, j int) bool {
	ch := r.Changes[j]
	v := ""
	if ch.Sig != nil {
		v = verdictOf(ch.Sig.Verdict, r.Better, ch.Sig.Interval)
	}
	switch {
	case v == Noise:
		return false
	case v != "":
		return true
	}
	return changed(ch.Abs) && isMain(r.Key)
}

// Tally counts the changes of set j by the test across runs (is the
// change larger than the run-to-run spread?), the stronger of the two.
func (c *SetComparison) Tally(j int) Tally {
	var t Tally
	for _, r := range c.Rows {
		ch := r.Changes[j-1]
		iv := Interval{Low: ch.Across.Low, High: ch.Across.High}
		t.add(r.Key, verdictOf(ch.AcrossVerdict(), r.Better, iv), changed(ch.Abs))
	}
	return t
}

// shownByDefault reports whether a set row belongs in the short table: a
// real change across or within runs for some set.
func (c *SetComparison) shownByDefault(r SetRow) bool {
	for _, ch := range r.Changes {
		if ch.AcrossVerdict() == Real || ch.Within != nil && ch.Within.Verdict == Real {
			return true
		}
		if ch.AcrossVerdict() == "" && changed(ch.Abs) && isMain(r.Key) {
			return true
		}
	}
	return false
}
