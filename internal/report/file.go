package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/pyjson"
)

// FileOptions are the flags compute_result_filename reads.
type FileOptions struct {
	// Label is --label; "" falls back to Backend.
	Label string
	// Backend is --backend.
	Backend string
	// ModelID is the model id; only its part after the last "/" is used.
	ModelID string
	// RequestRate is --request-rate (+Inf when unlimited).
	RequestRate float64
	// MaxConcurrency is --max-concurrency; 0 means unset.
	MaxConcurrency int
	// RampUp selects the ramp-up name form when non-nil.
	RampUp *RampUp
	// Date is the run's DateString.
	Date string
	// ResultDir is --result-dir; "" means the current directory.
	ResultDir string
	// ResultFilename is --result-filename; when non-empty it replaces the
	// generated name (and is still joined to ResultDir).
	ResultFilename string
}

// Filename reproduces vLLM's compute_result_filename (serve.py) for a run
// that saves its result:
//
//	{label}-{rate}qps{-concurrency{N}}-{model base}-{date}.json
//	{label}-ramp-up-{strategy}-{start}qps-{end}qps{-concurrency{N}}-{model base}-{date}.json
//
// where label is Label or else Backend, rate is Python's str(float) ("inf",
// "10.0", "0.5", "1e-05"), model base is ModelID after its last "/", and
// date is Date. ResultFilename replaces the name. ResultDir is joined as
// Python's os.path.join: no cleaning of the path, a "/" added unless the
// directory already ends with one, and an absolute file name replaces the
// directory. Filename does not touch the disk; WriteFile creates the
// directory.
func Filename(o FileOptions) string {
	label := o.Label
	if label == "" {
		label = o.Backend
	}
	base := o.ModelID[strings.LastIndex(o.ModelID, "/")+1:]
	conc := ""
	if o.MaxConcurrency > 0 {
		conc = "-concurrency" + strconv.Itoa(o.MaxConcurrency)
	}
	var name string
	if o.RampUp != nil {
		name = fmt.Sprintf("%s-ramp-up-%s-%dqps-%dqps%s-%s-%s.json", label, o.RampUp.Strategy,
			o.RampUp.StartRPS, o.RampUp.EndRPS, conc, base, o.Date)
	} else {
		name = fmt.Sprintf("%s-%sqps%s-%s-%s.json", label, pyfmt.Float(o.RequestRate), conc, base, o.Date)
	}
	if o.ResultFilename != "" {
		name = o.ResultFilename
	}
	if o.ResultDir != "" {
		name = pyJoin(o.ResultDir, name)
	}
	return name
}

// pyJoin is Python's os.path.join(dir, name) on POSIX.
func pyJoin(dir, name string) string {
	switch {
	case strings.HasPrefix(name, "/"):
		return name
	case strings.HasSuffix(dir, "/"):
		return dir + name
	default:
		return dir + "/" + name
	}
}

// WriteFile saves a result object at path as vLLM's main_async does with
// --save-result / --append-result, creating the parent directories first
// (vLLM creates --result-dir; test_result_jsonl.py@89a73c7a expects nested
// parents):
//
//   - appendRecord false: the file is truncated and holds json.dump's one
//     line, without a trailing newline;
//   - appendRecord true: the object is appended, preceded by "\n" when the
//     file is non-empty and does not already end with a newline, so the
//     file is JSON Lines (append_jsonl_record's rule; baseline vLLM wrote
//     "\n" before every append to a non-empty file, even after a newline).
func WriteFile(path string, obj *pyjson.Object, appendRecord bool) error {
	body, err := pyjson.AppendPython(nil, obj)
	if err != nil {
		return fmt.Errorf("encode result for %s: %w", path, err)
	}
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create result directory: %w", err)
		}
	}
	flags := os.O_RDWR | os.O_CREATE | os.O_TRUNC
	if appendRecord {
		flags = os.O_RDWR | os.O_CREATE | os.O_APPEND
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return fmt.Errorf("open result file: %w", err)
	}
	if appendRecord {
		needsNewline, err := lacksFinalNewline(f)
		if err != nil {
			f.Close()
			return fmt.Errorf("read result file %s: %w", path, err)
		}
		if needsNewline {
			body = append([]byte{'\n'}, body...)
		}
	}
	if _, err := f.Write(body); err != nil {
		f.Close()
		return fmt.Errorf("write result file %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close result file %s: %w", path, err)
	}
	return nil
}

// lacksFinalNewline reports whether f is non-empty and its last byte is not
// '\n'.
func lacksFinalNewline(f *os.File) (bool, error) {
	st, err := f.Stat()
	if err != nil {
		return false, err
	}
	if st.Size() == 0 {
		return false, nil
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], st.Size()-1); err != nil {
		return false, err
	}
	return last[0] != '\n', nil
}
