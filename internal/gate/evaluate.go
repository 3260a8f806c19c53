package gate

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
)

// Values gives the numeric keys of a result; resultfile.Run implements it.
type Values interface {
	// Number returns the value of key and whether the result has it as a
	// number.
	Number(key string) (float64, bool)
}

// Noter is implemented by Values that compute some keys rather than read
// them (analyze.Supplemented): Note says how, and is "" for a key read
// from the result.
type Noter interface {
	Note(key string) string
}

// Problems that make a threshold fail whatever its numbers.
const (
	// ProblemAllFailed: every request of the run failed.
	ProblemAllFailed = "every request failed"
	// ProblemNoKey: the result has no numeric value under the key.
	ProblemNoKey = "not in the result"
	// ProblemNoBaselineKey: the baseline has no numeric value under the key.
	ProblemNoBaselineKey = "not in the baseline"
	// ProblemNoBaseline: the threshold is relative but no baseline was given.
	ProblemNoBaseline = "relative to a baseline, but no baseline was given"
)

// Verdict is the outcome of one threshold.
type Verdict struct {
	// Threshold is what was tested.
	Threshold Threshold
	// Measured is the result's value (NaN when it has none).
	Measured float64
	// Limit is the value Measured was compared with (for a relative
	// threshold, computed from Baseline).
	Limit float64
	// Baseline is the baseline's value for a relative threshold, NaN
	// otherwise.
	Baseline float64
	// Pass is true when the comparison holds and there is no Problem.
	Pass bool
	// Problem says why the threshold could not pass ("" when the numbers
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
		v := Verdict{Threshold: t, Measured: math.NaN(), Limit: t.Value, Baseline: math.NaN()}
		if m, ok := result.Number(t.Key); ok {
			v.Measured = m
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
		v.Note = notes(t, result, baseline)
		if rep.AllFailed {
			v.Problem = ProblemAllFailed
		}
		v.Pass = v.Problem == "" && t.Op.holds(v.Measured, v.Limit)
		rep.Verdicts[i] = v
	}
	return rep
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
// "61.20 > 55.78 (baseline 53.12)", or its problem.
func (v Verdict) explain() string {
	if v.Problem != "" {
		return v.Problem
	}
	op := v.Threshold.Op.String()
	if !v.Pass {
		op = v.Threshold.Op.negated()
		if math.IsNaN(v.Measured) || math.IsNaN(v.Limit) {
			op = "is not comparable with"
		}
	}
	s := resultfile.FormatValue(v.Measured) + " " + op + " " + resultfile.FormatValue(v.Limit)
	if v.Threshold.Relative {
		s += " (baseline " + resultfile.FormatValue(v.Baseline) + ")"
	}
	if v.Note != "" {
		s += " (" + v.Note + ")"
	}
	return s
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
	b.WriteString("#### Thresholds\n\n| | Threshold | Measured | Limit |\n|---|---|---:|---:|\n")
	for _, v := range r.Verdicts {
		mark := "✅ pass"
		if !v.Pass {
			mark = "❌ fail"
		}
		limit := resultfile.FormatValue(v.Limit)
		if v.Threshold.Relative {
			limit += " (baseline " + resultfile.FormatValue(v.Baseline) + ")"
		}
		measured := resultfile.FormatValue(v.Measured)
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
// it): {"passed", "all_failed", "thresholds": [{"expression", "key", "op",
// "measured", "limit", "baseline", "pass", "problem", "note"}]},
// non-finite values as the strings "nan"/"inf" like gobench's result
// files.
func (r *Report) Object() *pyjson.Object {
	list := make([]*pyjson.Object, len(r.Verdicts))
	for i, v := range r.Verdicts {
		o := pyjson.NewObject()
		o.Set("expression", v.Threshold.Expr)
		o.Set("key", v.Threshold.Key)
		o.Set("op", v.Threshold.Op.String())
		o.Set("measured", v.Measured)
		o.Set("limit", v.Limit)
		if v.Threshold.Relative {
			o.Set("baseline", v.Baseline)
		} else {
			o.Set("baseline", nil)
		}
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
	o.Set("thresholds", list)
	return o
}
