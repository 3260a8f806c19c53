package gate

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
)

// Values gives the values of a result; resultfile.Run implements it.
type Values interface {
	// Number returns the value of key and whether the result has it as a
	// number.
	Number(key string) (float64, bool)
	// String returns the value of key and whether the result has it as
	// text.
	String(key string) (string, bool)
}

// Noter is implemented by Values that compute some keys rather than read
// them (analyze.Supplemented): Note says how, and is "" for a key read
// from the result.
type Noter interface {
	Note(key string) string
}

// Problems that make a threshold fail whatever its values.
const (
	// ProblemAllFailed: every request of the run failed.
	ProblemAllFailed = "every request failed"
	// ProblemNoKey: the result has no numeric value under the key (no
	// text value, for a threshold compared with text).
	ProblemNoKey = "not in the result"
	// ProblemNoBaselineKey: the baseline has no numeric value under the key.
	ProblemNoBaselineKey = "not in the baseline"
	// ProblemNoBaseline: the threshold is relative but no baseline was given.
	ProblemNoBaseline = "relative to a baseline, but no baseline was given"
	// ProblemText: the result holds text under the key, which compares
	// only with == or != and a text limit.
	ProblemText = "text in the result, not a number"
	// ProblemNumber: the threshold compares text with a key the result
	// holds as a number.
	ProblemNumber = "a number in the result, not text"
)

// Verdict is the outcome of one threshold.
type Verdict struct {
	// Threshold is what was tested.
	Threshold Threshold
	// Measured is the result's value (NaN when it has none, or when the
	// threshold compares text).
	Measured float64
	// Limit is the value Measured was compared with (for a relative
	// threshold, computed from Baseline).
	Limit float64
	// Baseline is the baseline's value for a relative threshold, NaN
	// otherwise.
	Baseline float64
	// Text is true when the threshold compared text: the values are then
	// MeasuredText, LimitText and BaselineText.
	Text bool
	// MeasuredText, LimitText and BaselineText are the values of a
	// comparison of text ("" when absent).
	MeasuredText, LimitText, BaselineText string
	// Pass is true when the comparison holds and there is no Problem.
	Pass bool
	// Problem says why the threshold could not pass ("" when the values
	// decided): one of the Problem constants.
	Problem string
	// Note says where a value not read from the result came from
	// ("computed from 200 per-request records, not in the result"; a
	// baseline's value so obtained as "baseline computed from ..."), ""
	// when both were read.
	Note string
}

// Report is the outcome of every threshold of a run.
type Report struct {
	// Verdicts are in the order the thresholds were given.
	Verdicts []Verdict
	// AllFailed is true when the result's "completed" is 0.
	AllFailed bool
	// Warnings say what makes the verdicts less than a like-for-like
	// judgement (a baseline of another workload); every rendering prints
	// them before any verdict.
	Warnings []string
}

// Passed reports whether every threshold passed and the run was not one
// in which every request failed.
func (r *Report) Passed() bool {
	if r.AllFailed {
		return false
	}
	for _, v := range r.Verdicts {
		if !v.Pass {
			return false
		}
	}
	return true
}

// Failed counts the thresholds that did not pass.
func (r *Report) Failed() int {
	n := 0
	for _, v := range r.Verdicts {
		if !v.Pass {
			n++
		}
	}
	return n
}

// Evaluate tests every threshold against result; relative thresholds take
// their limit from baseline, which may be nil when none is relative. A
// result whose "completed" is 0 fails every threshold with
// ProblemAllFailed.
func Evaluate(ths []Threshold, result, baseline Values) *Report {
	rep := &Report{Verdicts: make([]Verdict, len(ths))}
	if c, ok := result.Number(resultkey.Completed); ok && c == 0 {
		rep.AllFailed = true
	}
	for i, t := range ths {
		var v Verdict
		if isText(t, result, baseline) {
			v = evaluateText(t, result, baseline)
		} else {
			v = evaluateNumber(t, result, baseline)
		}
		v.Note = notes(t, result, baseline)
		if rep.AllFailed {
			v.Problem = ProblemAllFailed
			v.Pass = false
		}
		rep.Verdicts[i] = v
	}
	return rep
}

// isText reports whether t compares text: its limit is text, or it is
// "KEY==baseline" (or !=) on a key the result, else the baseline, holds
// as text.
func isText(t Threshold, result, baseline Values) bool {
	if t.IsText || !t.Relative || t.BaselineOp != 0 || !t.Op.equality() {
		return t.IsText
	}
	if _, ok := result.Number(t.Key); ok {
		return false
	}
	if _, ok := result.String(t.Key); ok {
		return true
	}
	if baseline == nil {
		return false
	}
	_, ok := baseline.String(t.Key)
	return ok
}

// evaluateNumber tests a threshold on a number.
func evaluateNumber(t Threshold, result, baseline Values) Verdict {
	v := Verdict{Threshold: t, Measured: math.NaN(), Limit: t.Value, Baseline: math.NaN()}
	if m, ok := result.Number(t.Key); ok {
		v.Measured = m
	} else if _, ok := result.String(t.Key); ok {
		v.Problem = ProblemText
	} else {
		v.Problem = ProblemNoKey
	}
	if t.Relative {
		v.Limit = math.NaN()
		if baseline == nil {
			v.Problem = firstProblem(v.Problem, ProblemNoBaseline)
		} else if b, ok := baseline.Number(t.Key); ok {
			v.Baseline = b
			v.Limit = relativeLimit(t, b)
		} else {
			v.Problem = firstProblem(v.Problem, ProblemNoBaselineKey)
		}
	}
	v.Pass = v.Problem == "" && t.Op.holds(v.Measured, v.Limit)
	return v
}

// evaluateText tests a threshold that compares text.
func evaluateText(t Threshold, result, baseline Values) Verdict {
	v := Verdict{Threshold: t, Measured: math.NaN(), Limit: math.NaN(), Baseline: math.NaN(), Text: true, LimitText: t.Text}
	if m, ok := result.String(t.Key); ok {
		v.MeasuredText = m
	} else if _, ok := result.Number(t.Key); ok {
		v.Problem = ProblemNumber
	} else {
		v.Problem = ProblemNoKey
	}
	if t.Relative {
		if baseline == nil {
			v.Problem = firstProblem(v.Problem, ProblemNoBaseline)
		} else if b, ok := baseline.String(t.Key); ok {
			v.BaselineText, v.LimitText = b, b
		} else {
			v.Problem = firstProblem(v.Problem, ProblemNoBaselineKey)
		}
	}
	v.Pass = v.Problem == "" && t.Op.holdsText(v.MeasuredText, v.LimitText)
	return v
}

// notes joins what result and, for a relative threshold, baseline say of
// how they obtained the threshold's key.
func notes(t Threshold, result, baseline Values) string {
	var out []string
	if n, ok := result.(Noter); ok {
		if s := n.Note(t.Key); s != "" {
			out = append(out, s)
		}
	}
	if n, ok := baseline.(Noter); ok && t.Relative {
		if s := n.Note(t.Key); s != "" {
			out = append(out, "baseline "+s)
		}
	}
	return strings.Join(out, "; ")
}

func firstProblem(have, next string) string {
	if have != "" {
		return have
	}
	return next
}

// relativeLimit applies the threshold's baseline operation to b.
func relativeLimit(t Threshold, b float64) float64 {
	switch t.BaselineOp {
	case '*':
		return b * t.Value
	case '+':
		return b + t.Value
	case '-':
		return b - t.Value
	}
	return b
}

// explain says in words why a verdict came out as it did: "53.12 < 500",
// "61.20 > 55.78 (baseline 53.12)", "\"queue/seq-limit\" != \"healthy\"",
// or its problem.
func (v Verdict) explain() string {
	if v.Problem != "" {
		return v.Problem
	}
	measured, limit, baseline := v.shown()
	op := v.Threshold.Op.String()
	if !v.Pass {
		op = v.Threshold.Op.negated()
		if !v.Text && (math.IsNaN(v.Measured) || math.IsNaN(v.Limit)) {
			op = "is not comparable with"
		}
	}
	s := measured + " " + op + " " + limit
	if v.Threshold.Relative {
		s += " (baseline " + baseline + ")"
	}
	if v.Note != "" {
		s += " (" + v.Note + ")"
	}
	return s
}

// shown are the verdict's measured value, limit and baseline as printed:
// numbers as resultfile.FormatValue prints them, text in double quotes.
func (v Verdict) shown() (measured, limit, baseline string) {
	if v.Text {
		return strconv.Quote(v.MeasuredText), strconv.Quote(v.LimitText), strconv.Quote(v.BaselineText)
	}
	return resultfile.FormatValue(v.Measured), resultfile.FormatValue(v.Limit), resultfile.FormatValue(v.Baseline)
}

func (v Verdict) word() string {
	if v.Pass {
		return "PASS"
	}
	return "FAIL"
}

// summary is the closing line: "Thresholds: 2 passed, 1 failed."
func (r *Report) summary() string {
	failed := r.Failed()
	s := fmt.Sprintf("Thresholds: %d passed, %d failed", len(r.Verdicts)-failed, failed)
	if r.AllFailed {
		s += " (every request of the run failed, so it cannot pass)"
	}
	return s + "."
}

// WriteText prints one line per threshold, PASS or FAIL with the measured
// value and the limit, then a count, under a header in the style of the
// result block.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString(strings.Repeat("=", 19) + " Thresholds " + strings.Repeat("=", 19) + "\n")
	for _, s := range r.Warnings {
		b.WriteString("Warning: " + s + "\n")
	}
	width := 0
	for _, v := range r.Verdicts {
		width = max(width, len(v.Threshold.Expr))
	}
	for _, v := range r.Verdicts {
		fmt.Fprintf(&b, "%s  %-*s  %s\n", v.word(), width, v.Threshold.Expr, v.explain())
	}
	b.WriteString(r.summary() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown prints the verdicts as a Markdown table for a pull-request
// comment or a CI job summary.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("#### Thresholds\n\n")
	for _, s := range r.Warnings {
		b.WriteString("> ⚠️ " + s + "\n\n")
	}
	b.WriteString("| | Threshold | Measured | Limit |\n|---|---|---:|---:|\n")
	for _, v := range r.Verdicts {
		mark := "✅ pass"
		if !v.Pass {
			mark = "❌ fail"
		}
		measured, limit, baseline := v.shown()
		if v.Threshold.Relative {
			limit += " (baseline " + baseline + ")"
		}
		if v.Problem != "" {
			measured = v.Problem
		} else if v.Note != "" {
			measured += " (" + v.Note + ")"
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", mark, strings.ReplaceAll(v.Threshold.Expr, "|", `\|`), measured, limit)
	}
	b.WriteString("\n" + r.summary() + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Object returns the verdicts as a JSON object (pyjson.AppendPython writes
// it): {"passed", "all_failed", "warnings": [string], "thresholds":
// [{"expression", "key", "op",
// "measured", "limit", "baseline", "pass", "problem", "note"}]},
// non-finite values as the strings "nan"/"inf" like gobench's result
// files; the values of a comparison of text are strings (null when
// absent).
func (r *Report) Object() *pyjson.Object {
	list := make([]*pyjson.Object, len(r.Verdicts))
	for i, v := range r.Verdicts {
		o := pyjson.NewObject()
		o.Set("expression", v.Threshold.Expr)
		o.Set("key", v.Threshold.Key)
		o.Set("op", v.Threshold.Op.String())
		v.setValues(o)
		o.Set("pass", v.Pass)
		if v.Problem != "" {
			o.Set("problem", v.Problem)
		} else {
			o.Set("problem", nil)
		}
		if v.Note != "" {
			o.Set("note", v.Note)
		} else {
			o.Set("note", nil)
		}
		list[i] = o
	}
	o := pyjson.NewObject()
	o.Set("passed", r.Passed())
	o.Set("all_failed", r.AllFailed)
	o.Set("warnings", append([]string{}, r.Warnings...))
	o.Set("thresholds", list)
	return o
}

// setValues sets the verdict's "measured", "limit" and "baseline" on o.
func (v Verdict) setValues(o *pyjson.Object) {
	var measured, limit, baseline any = v.Measured, v.Limit, v.Baseline
	if v.Text {
		measured, limit, baseline = v.MeasuredText, v.LimitText, v.BaselineText
		if v.MeasuredText == "" && v.Problem != "" {
			measured = nil
		}
		if v.Threshold.Relative && v.BaselineText == "" && v.Problem != "" {
			baseline, limit = nil, nil
		}
	}
	o.Set("measured", measured)
	o.Set("limit", limit)
	if !v.Threshold.Relative {
		baseline = nil
	}
	o.Set("baseline", baseline)
}
