package resultfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/readlimit"
	"github.com/gobench/gobench/internal/resultkey"
)

// ErrNotResult marks data that is not a result file (not a sequence of
// JSON objects), so that callers can tell a wrong file from a broken one.
var ErrNotResult = errors.New("not a gobench or vLLM result file")

// ErrSelector marks a run selector (the part after '#') that names no run
// or more than one. It is a command-line mistake, not a broken file.
var ErrSelector = errors.New("bad run selector")

// selectorError is an ErrSelector with its own message.
type selectorError struct{ msg string }

func (e *selectorError) Error() string        { return e.msg }
func (e *selectorError) Is(target error) bool { return target == ErrSelector }

func selectorErrorf(format string, a ...any) error {
	return &selectorError{msg: fmt.Sprintf(format, a...)}
}

// Run is one result: a whole --save-result file, or one line of an
// --append-result (JSON Lines) file.
type Run struct {
	// Path is the file the run was read from.
	Path string
	// Index is the run's position in the file, from 0.
	Index int
	// Count is the number of runs in the file.
	Count  int
	fields []field
	pos    map[string]int
}

func newRun(path string, index, count int, fields []field) *Run {
	r := &Run{Path: path, Index: index, Count: count, fields: fields, pos: make(map[string]int, len(fields))}
	for i, f := range fields {
		r.pos[f.key] = i
	}
	return r
}

// Name is how the run is referred to in messages and tables: the path, with
// "#index" when the file holds several runs.
func (r *Run) Name() string {
	if r.Count > 1 {
		return r.Path + "#" + strconv.Itoa(r.Index)
	}
	return r.Path
}

// Keys returns the result's keys in file order.
func (r *Run) Keys() []string {
	keys := make([]string, len(r.fields))
	for i, f := range r.fields {
		keys[i] = f.key
	}
	return keys
}

// Has reports whether the result has key (with any value, null included).
func (r *Run) Has(key string) bool {
	_, ok := r.pos[key]
	return ok
}

// Raw returns the undecoded JSON value of key.
func (r *Run) Raw(key string) (json.RawMessage, bool) {
	i, ok := r.pos[key]
	if !ok {
		return nil, false
	}
	return r.fields[i].raw, true
}

// Number returns the value of key when it is a number: a JSON number, or
// one of the spellings of infinity and NaN that gobench ("inf") and vLLM
// (bare Infinity, "inf") write. Booleans, strings, null and lists are not
// numbers. It also answers the derived keys (resultkey.FailedRatio:
// failed / (completed + failed), NaN when no request was sent) when the
// file does not have them itself, and a dotted path to a number inside an
// object ("server_view.ratios.preemptions", Lookup).
func (r *Run) Number(key string) (float64, bool) {
	raw, ok := r.Raw(key)
	if !ok {
		if v, ok := r.derived(key); ok {
			return v, true
		}
		return r.nestedNumber(key)
	}
	v, err := parseNumber(raw)
	if err != nil {
		return 0, false
	}
	return v, true
}

func (r *Run) derived(key string) (float64, bool) {
	if key != resultkey.FailedRatio {
		return 0, false
	}
	completed, ok1 := r.Number(resultkey.Completed)
	failed, ok2 := r.Number(resultkey.Failed)
	if !ok1 || !ok2 {
		return 0, false
	}
	if completed+failed == 0 {
		return math.NaN(), true
	}
	return failed / (completed + failed), true
}

// IsNumeric reports whether key holds a number (as Number decodes it) in
// the file itself, derived keys excluded.
func (r *Run) IsNumeric(key string) bool {
	raw, ok := r.Raw(key)
	if !ok {
		return false
	}
	_, err := parseNumber(raw)
	return err == nil
}

// String returns the value of key when it is a JSON string; key may be a
// dotted path into an object ("server_view.verdict", Lookup).
func (r *Run) String(key string) (string, bool) {
	raw, ok := r.Raw(key)
	if !ok {
		return r.nestedString(key)
	}
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// Object returns the value of key when it is a JSON object, decoded with
// its key order (pyjson.Decode), e.g. gobench_workload.
func (r *Run) Object(key string) (*pyjson.Object, bool) {
	raw, ok := r.Raw(key)
	if !ok || len(bytes.TrimSpace(raw)) == 0 || bytes.TrimSpace(raw)[0] != '{' {
		return nil, false
	}
	o, err := pyjson.DecodeObject(raw)
	if err != nil {
		return nil, false
	}
	return o, true
}

// Label is the run's --label ("" when none was given).
func (r *Run) Label() string {
	s, _ := r.String(resultkey.Label)
	return s
}

// Display returns the value of key as a short text for tables: strings as
// they are, integers as integers, other numbers as FormatFloat prints them,
// anything else as its JSON. Derived keys print as FormatValue does.
func (r *Run) Display(key string) string {
	raw, ok := r.Raw(key)
	if !ok {
		if v, ok := r.derived(key); ok {
			return FormatValue(v)
		}
		if v, ok := r.nestedNumber(key); ok {
			return FormatValue(v)
		}
		return ""
	}
	v, err := parseNumber(raw)
	switch {
	case err == nil && isIntText(raw):
		return string(bytes.TrimSpace(raw))
	case err == nil:
		return FormatFloat(v)
	}
	if s, ok := r.String(key); ok {
		return s
	}
	return string(bytes.TrimSpace(raw))
}

// isIntText reports whether a JSON number is written as an integer.
func isIntText(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] != '"' && !bytes.ContainsAny(raw, ".eE")
}

// Parse reads the runs held in data, which came from path: one JSON object
// (--save-result) or one per line (--append-result); bare NaN and Infinity
// as Python's json.dump writes them are accepted. A damaged line of a JSON
// Lines file (a record cut short by a failed append, garbage) is skipped
// with a warning on warn (nil discards it) that names the file and the
// line: the other runs stay readable, and run indices count the intact
// runs only.
func Parse(path string, data []byte, warn io.Writer) ([]*Run, error) {
	objs, damaged, err := splitRuns(data)
	if err != nil {
		return nil, fmt.Errorf("read result file %s: %w", path, err)
	}
	if len(objs) == 0 {
		return nil, fmt.Errorf("read result file %s: %w: it holds no JSON object", path, ErrNotResult)
	}
	if warn != nil {
		for _, d := range damaged {
			fmt.Fprintf(warn, "warning: %s:%d: skipped a damaged line, not a complete run (%v); run indices count the %d intact runs only\n",
				path, d.line, d.err, len(objs))
		}
	}
	runs := make([]*Run, len(objs))
	for i, fields := range objs {
		runs[i] = newRun(path, i, len(objs), fields)
		if !runs[i].Has(resultkey.Duration) && !runs[i].Has(resultkey.Completed) {
			return nil, fmt.Errorf("read result file %s: run %d: %w: it has neither %q nor %q",
				path, i, ErrNotResult, resultkey.Duration, resultkey.Completed)
		}
	}
	return runs, nil
}

// maxFileBytes bounds a result file, so that a path naming a device or a
// pipe that never ends fails instead of exhausting memory (a file that does
// not start with '{' fails at once). Result files are kilobytes; a detailed
// one (--save-detailed) is about 26 KB per request of 1,000 tokens, 260 MB
// for 10,000 such requests: 2 GiB is far above what runs write.
const maxFileBytes = 2 << 30

// ReadFile reads every run of the result file at path, warning on warn
// about damaged lines (Parse).
func ReadFile(path string, warn io.Writer) ([]*Run, error) {
	data, err := readlimit.JSONObject(path, maxFileBytes)
	var notObject *readlimit.NotObjectError
	if errors.As(err, &notObject) {
		return nil, fmt.Errorf("read result file: %w (%w)", err, ErrNotResult)
	}
	if err != nil {
		return nil, fmt.Errorf("read result file: %w", err)
	}
	return Parse(path, data, warn)
}

// FromObject reads a result built in memory (report.ResultObject) exactly
// as a file holding it would be read, so that `gobench serve --threshold`
// judges the very values `gobench check` would read from the saved file.
// name stands for the path in messages.
func FromObject(name string, o *pyjson.Object) (*Run, error) {
	data, err := pyjson.AppendPython(nil, o)
	if err != nil {
		return nil, fmt.Errorf("encode result %s: %w", name, err)
	}
	runs, err := Parse(name, data, nil)
	if err != nil {
		return nil, err
	}
	return runs[0], nil
}

// SplitSpec splits a command-line run reference "PATH#SELECTOR" into the
// path and the selector. A spec naming an existing file is a path without
// selector (so a file name may contain '#'); otherwise the text after the
// last '#' is the selector.
func SplitSpec(spec string) (path, selector string) {
	if _, err := os.Stat(spec); err == nil {
		return spec, ""
	}
	if i := strings.LastIndexByte(spec, '#'); i >= 0 {
		return spec[:i], spec[i+1:]
	}
	return spec, ""
}

// Open reads the run that spec names: "PATH" for a file holding one run,
// "PATH#INDEX" (from 0 over the intact runs; negative counts from the end,
// -1 is the last) or "PATH#LABEL" (the run whose label is LABEL) for any
// file. Damaged lines are skipped with a warning on warn (Parse).
func Open(spec string, warn io.Writer) (*Run, error) {
	path, sel := SplitSpec(spec)
	runs, err := ReadFile(path, warn)
	if err != nil {
		return nil, err
	}
	return Select(runs, sel)
}

// Select picks the run named by selector among runs read from one file: ""
// when there is exactly one, an index (negative from the end), or a label.
func Select(runs []*Run, selector string) (*Run, error) {
	if len(runs) == 0 {
		return nil, selectorErrorf("no run to select")
	}
	path := runs[0].Path
	if selector == "" {
		if len(runs) == 1 {
			return runs[0], nil
		}
		return nil, selectorErrorf("%s holds %d runs (--append-result); choose one with %s#INDEX (0 to %d, -1 for the last) or %s#LABEL:\n%s",
			path, len(runs), path, len(runs)-1, path, listRuns(runs))
	}
	if i, err := strconv.Atoi(selector); err == nil {
		if i < 0 {
			i += len(runs)
		}
		if i < 0 || i >= len(runs) {
			return nil, selectorErrorf("%s#%s: the file holds %d run(s), indexes 0 to %d (or -1 for the last)",
				path, selector, len(runs), len(runs)-1)
		}
		return runs[i], nil
	}
	var found []*Run
	for _, r := range runs {
		if r.Label() == selector {
			found = append(found, r)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return nil, selectorErrorf("%s#%s: no run has the label %q; the runs are:\n%s", path, selector, selector, listRuns(runs))
	}
	idx := make([]string, len(found))
	for i, r := range found {
		idx[i] = strconv.Itoa(r.Index)
	}
	return nil, selectorErrorf("%s#%s: runs %s all have the label %q; choose one by index",
		path, selector, strings.Join(idx, ", "), selector)
}

// listRuns describes the runs of a file, one per line, for error messages.
func listRuns(runs []*Run) string {
	var b strings.Builder
	for _, r := range runs {
		date, _ := r.String(resultkey.Date)
		label := r.Label()
		if label == "" {
			label = "(no label)"
		}
		fmt.Fprintf(&b, "  #%d  %s  %s\n", r.Index, label, date)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
