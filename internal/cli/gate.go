package cli

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/analyze"
	"github.com/gobench/gobench/internal/argparse"
	"github.com/gobench/gobench/internal/atomicfile"
	"github.com/gobench/gobench/internal/compare"
	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/gate"
	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
	"github.com/gobench/gobench/internal/run"
)

// thresholdHelp is the --threshold help text shared by serve, check and
// analyze.
const thresholdHelp = `Fail (exit status 4) unless KEY OP LIMIT holds, e.g. 'p99_ttft_ms<500', 'failed_ratio<0.01', 'request_throughput>=baseline*0.95', 'server_view.verdict==healthy'. KEY is any numeric result key (or failed_ratio) or a dotted path into server_view (server_view.ratios.preemptions), OP one of < <= > >= == !=, LIMIT a number or baseline, baseline*F, baseline+D, baseline-D, or text for == and != (healthy, "quoted text"). A latency statistic the result lacks (p95_ttft_ms) is computed from the per-request data. Repeatable.`

// gateExitDoc documents the exit statuses of the commands that gate.
const gateExitDoc = `Exit status: 0 every threshold passed, 1 error (unreadable file, ...), 2 bad
command line (bad threshold, a key the result does not have, no such run),
3 every request of the run failed (a run that sent nothing good never
passes), 4 a threshold failed.`

// thresholdError reports failed thresholds (exit status 4).
type thresholdError struct{ failed, total int }

func (e *thresholdError) Error() string {
	return fmt.Sprintf("%d of %d threshold(s) failed", e.failed, e.total)
}

// ExitCode is exitcode.ThresholdFailed.
func (e *thresholdError) ExitCode() exitcode.Code { return exitcode.ThresholdFailed }

// formatFlag is the --format flag of the file commands.
func formatFlag(choices ...string) *argparse.Choice {
	return argparse.NewChoice("format", choices[0], choices...)
}

// parseThresholds parses --threshold values; a bad one is a command-line
// error naming the expression.
func parseThresholds(exprs []string) ([]gate.Threshold, error) {
	ths, err := gate.ParseAll(exprs)
	if err != nil {
		return nil, argErrorf("argument --threshold: %v", err)
	}
	return ths, nil
}

// openRun opens the result named by spec (PATH, PATH#INDEX or
// PATH#LABEL), warning on warn about the damaged lines it skips. A
// selector naming no run is a command-line error; an unreadable file is
// not.
func openRun(spec string, warn io.Writer) (*resultfile.Run, error) {
	if path, _ := resultfile.SplitSpec(spec); path == "" {
		return nil, argErrorf("a result file needs a path (got %s)", pyfmt.StrRepr(spec))
	}
	r, err := resultfile.Open(spec, warn)
	if errors.Is(err, resultfile.ErrSelector) {
		return nil, exitcode.Usage(err)
	}
	return r, err
}

// openBaseline opens --baseline when given (openRun), and refuses relative
// thresholds without one.
func openBaseline(flag, spec string, ths []gate.Threshold, warn io.Writer) (*resultfile.Run, error) {
	if spec == "" {
		if gate.AnyRelative(ths) {
			return nil, argErrorf("a threshold is relative to a baseline: give %s FILE", flag)
		}
		return nil, nil
	}
	base, err := openRun(spec, warn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return base, nil
}

// judge evaluates the thresholds on values and, for the relative ones,
// base; the statistics either lacks come from its per-request data
// (values': data's), as thresholdValues says. The report warns of a base
// of another workload (baselineWarnings).
func judge(ths []gate.Threshold, values, data, base *resultfile.Run) (*gate.Report, error) {
	judged, err := thresholdValues(values, data, ths, false)
	if err != nil {
		return nil, err
	}
	baseValues, err := thresholdValues(base, base, ths, true)
	if err != nil {
		return nil, err
	}
	rep := gate.Evaluate(ths, judged, baseValues)
	rep.Warnings = baselineWarnings(base, values)
	return rep, nil
}

// thresholdValues are the values thresholds are judged on: those of
// values, and the latency statistics it lacks computed from the
// per-request data of data (the run values was read from, or the same run
// with its per-request lists) exactly as gobench analyze computes them
// (analyze.Supplement). Only the keys of relative thresholds are computed
// when relativeOnly (a baseline). A nil values (no baseline) gives a nil
// interface, as gate.Evaluate needs, not a typed nil.
func thresholdValues(values, data *resultfile.Run, ths []gate.Threshold, relativeOnly bool) (gate.Values, error) {
	if values == nil {
		return nil, nil
	}
	var keys []string
	for _, t := range ths {
		if t.Relative || !relativeOnly {
			keys = append(keys, t.Key)
		}
	}
	file := overflowValues{values}
	sup, err := analyze.Supplement(file, data, keys)
	if err != nil {
		return nil, fmt.Errorf("thresholds: %w", err)
	}
	return notedValues{sup, file}, nil
}

// overflowValues reads a result as Python's json module does: a number
// too large for a float64 (1e999) is infinite, where resultfile.Run
// finds no number and a threshold would call the key missing.
type overflowValues struct{ *resultfile.Run }

// Number returns the run's value of key, ±Inf for a number that
// overflows.
func (v overflowValues) Number(key string) (float64, bool) {
	if x, ok := v.Run.Number(key); ok {
		return x, true
	}
	x, _, ok := overflowing(v.Run, key)
	return x, ok
}

// Note says that a value is infinite because the file's number overflows
// ("" for any other).
func (v overflowValues) Note(key string) string {
	if _, text, ok := overflowing(v.Run, key); ok {
		return "the file holds " + text + ", beyond the largest float64: infinite"
	}
	return ""
}

// overflowing is ±Inf and the file's text when key holds a JSON number
// too large for a float64.
func overflowing(r *resultfile.Run, key string) (float64, string, bool) {
	raw, ok := r.Raw(key)
	if !ok {
		return 0, "", false
	}
	text := strings.TrimSpace(string(raw))
	if text == "" || text[0] != '-' && (text[0] < '0' || text[0] > '9') {
		return 0, "", false
	}
	x, err := strconv.ParseFloat(text, 64)
	if !errors.Is(err, strconv.ErrRange) || !math.IsInf(x, 0) {
		return 0, "", false
	}
	return x, text, true
}

// notedValues are the supplemented values with the notes of both: an
// infinite value's (overflowValues) and a computed one's.
type notedValues struct {
	*analyze.Supplemented
	file overflowValues
}

// Note is the file's note of key, else the computation's.
func (v notedValues) Note(key string) string {
	if n := v.file.Note(key); n != "" {
		return n
	}
	return v.Supplemented.Note(key)
}

// baselineWarnings name the workload settings (compare.WorkloadDiff) in
// which the judged result differs from the baseline of its relative
// thresholds: a limit taken from another rate, concurrency or seed is no
// like-for-like gate, so the report says so before any verdict. None
// without a baseline.
func baselineWarnings(base, result *resultfile.Run) []string {
	if base == nil || result == nil {
		return nil
	}
	s := compare.FormatWorkloadDiff(compare.WorkloadDiff(base, result), "baseline", "result")
	if s == "" {
		return nil
	}
	return []string{s}
}

// writeVerdicts prints the threshold report in the chosen format.
func writeVerdicts(w io.Writer, rep *gate.Report, format string) error {
	return formats{text: rep.WriteText, markdown: rep.WriteMarkdown, object: rep.Object}.write(w, format)
}

// formats are the renderings of one output for --format: text, markdown
// (for a pull request or a CI summary) and json (an object on one line).
// A nil rendering falls back to text.
type formats struct {
	text, markdown func(io.Writer) error
	object         func() *pyjson.Object
}

// write prints the rendering format names.
func (f formats) write(w io.Writer, format string) error {
	switch {
	case format == "markdown" && f.markdown != nil:
		return f.markdown(w)
	case format == "json" && f.object != nil:
		if err := pyjson.WritePython(w, f.object()); err != nil {
			return err
		}
		_, err := io.WriteString(w, "\n")
		return err
	}
	return f.text(w)
}

// gateError turns a threshold report into the command's outcome: every
// request failed (exit 3), a key the result or baseline lacks or holds as
// another kind of value (exit 2), a failed threshold (exit 4), or nil. data
// is the run whose per-request data could have given a missing statistic
// of result.
func gateError(rep *gate.Report, result, data, baseline *resultfile.Run) error {
	if rep.AllFailed {
		return run.ErrAllFailed
	}
	for _, v := range rep.Verdicts {
		t := v.Threshold
		switch v.Problem {
		case gate.ProblemNoKey:
			return argErrorf("argument --threshold: %q: %s", t.Expr, missingKey(result, data, t.Key))
		case gate.ProblemNoBaselineKey:
			return argErrorf("argument --threshold: %q: the baseline %s", t.Expr, missingKey(baseline, baseline, t.Key))
		case gate.ProblemText:
			s, _ := result.String(t.Key)
			return argErrorf("argument --threshold: %q: %s holds text under %q (%q), which compares only with == or != and text, e.g. '%s==%s'",
				t.Expr, describe(result), t.Key, s, t.Key, s)
		case gate.ProblemNumber:
			return argErrorf("argument --threshold: %q: %s holds a number under %q; compare it with a number", t.Expr, describe(result), t.Key)
		}
	}
	if !rep.Passed() {
		return &thresholdError{failed: rep.Failed(), total: len(rep.Verdicts)}
	}
	return nil
}

// missingKey says that r lacks key, and what it has instead: for a path
// into server_view when r has none, why; for another dotted path, what
// the object on the way holds; else the numeric keys (with, for a latency
// statistic, why data could not give it).
func missingKey(r, data *resultfile.Run, key string) string {
	if r != nil && isServerViewKey(key) && !r.Has(resultkey.ServerView) {
		return describe(r) + " has no " + resultkey.ServerView + noServerViewWhy
	}
	if hint, ok := pathHint(r, key); ok {
		return hint
	}
	if r == nil {
		return describe(r) + " has no numeric key " + strconv.Quote(key)
	}
	if raw, ok := r.Raw(key); ok {
		return fmt.Sprintf("%s holds %s under %q, not a number", describe(r), strings.TrimSpace(string(raw)), key)
	}
	hint := statHint(data, key)
	if near := gate.Suggest(key, numericKeys(r)); near != "" && hint == "" {
		return fmt.Sprintf("%s has no numeric key %q: did you mean %s?", describe(r), key, near)
	}
	return fmt.Sprintf("%s has no numeric key %q%s (it has: %s)", describe(r), key, hint, strings.Join(numericKeys(r), ", "))
}

// isServerViewKey reports whether a threshold's key names server_view or
// a value inside it.
func isServerViewKey(key string) bool {
	return key == resultkey.ServerView || strings.HasPrefix(key, resultkey.ServerView+".")
}

// noServerViewWhy explains a result without server_view.
const noServerViewWhy = ": gobench serve saves it when the server publishes Prometheus /metrics " +
	"and --no-server-metrics is not given (vLLM's result files and older gobench's have none)"

// pathHint describes what r holds on the way to a dotted key it lacks:
// the names inside the deepest object (or list of rows named by metric)
// the key reaches, or that the key names an object rather than a value.
func pathHint(r *resultfile.Run, key string) (string, bool) {
	if r == nil {
		return "", false
	}
	if v, ok := r.Lookup(key); ok {
		if names, ok := memberNames(v); ok {
			return fmt.Sprintf("%q in %s holds no single value but: %s (name one with %s.NAME)", key, describe(r), strings.Join(names, ", "), key), true
		}
		return "", false
	}
	for i := strings.LastIndexByte(key, '.'); i > 0; i = strings.LastIndexByte(key[:i], '.') {
		v, ok := r.Lookup(key[:i])
		if !ok {
			continue
		}
		if names, ok := memberNames(v); ok {
			return fmt.Sprintf("%s has nothing at %q: %s holds %s%s", describe(r), key, key[:i], strings.Join(names, ", "),
				didYouMean(key, i, names)), true
		}
		return "", false
	}
	return "", false
}

// didYouMean suggests, for a dotted key whose name after key[:i] is not
// among names, the nearest name with the rest of the key kept:
// "; did you mean server_view.ratios.preemptions?" ("" for none).
func didYouMean(key string, i int, names []string) string {
	name, rest, dotted := strings.Cut(key[i+1:], ".")
	near := gate.Suggest(name, names)
	if near == "" {
		return ""
	}
	near = key[:i] + "." + near
	if dotted {
		near += "." + rest
	}
	return "; did you mean " + near + "?"
}

// memberNames are the names inside an object, or the metrics naming the
// rows of a list of objects (resultfile.Run.Lookup); ok is false for any
// other value.
func memberNames(v any) (names []string, ok bool) {
	switch v := v.(type) {
	case *pyjson.Object:
		return v.Keys(), true
	case []any:
		for _, e := range v {
			o, isObj := e.(*pyjson.Object)
			if !isObj {
				return nil, false
			}
			if m, isText := o.Get("metric"); isText {
				names = append(names, fmt.Sprint(m))
			}
		}
		return names, len(names) > 0
	}
	return nil, false
}

// statHint says, for a latency statistic a result lacks, why it could not
// be computed and what to do: a run saved without per-request data needs
// another run that selects it or saves that data; a run with per-request
// data did not measure the metric.
func statHint(r *resultfile.Run, key string) string {
	metric, _, ok := resultkey.ParseStatKey(key)
	switch {
	case !ok || r == nil:
		return ""
	case !r.Has(resultkey.TTFTs):
		return ", and no per-request data to compute it from: run again with --percentile-metrics and --metric-percentiles selecting it, or with --save-detailed so that it can be computed"
	}
	return fmt.Sprintf(", and its per-request data cannot give it: the run did not measure %s (TTFT, TPOT and ITL need a tokenizer, the client queue --max-concurrency)", metric)
}

func describe(r *resultfile.Run) string {
	if r == nil {
		return "the result"
	}
	return r.Name()
}

// numericKeys lists the keys a threshold may name.
func numericKeys(r *resultfile.Run) []string {
	if r == nil {
		return nil
	}
	var keys []string
	for _, k := range r.Keys() {
		if _, _, inf := overflowing(r, k); r.IsNumeric(k) || inf {
			keys = append(keys, k)
		}
	}
	if _, ok := r.Number(resultkey.FailedRatio); ok && !slices.Contains(keys, resultkey.FailedRatio) {
		keys = append(keys, resultkey.FailedRatio)
	}
	return keys
}

// appendFile appends text to the file at path, creating it: the way CI
// job summaries ($GITHUB_STEP_SUMMARY) are written, so that several steps
// or runs can add to one file. The text goes in one write on an O_APPEND
// descriptor, synced, and is cut off again if that write fails part way
// (atomicfile.AppendFile): the file is shared, so it is not rewritten
// through a temporary copy, which would lose what another run appended
// meanwhile and could not write to a pipe or /dev/stdout.
func appendFile(path, text string) error {
	return atomicfile.AppendFile(path, []byte(text))
}
