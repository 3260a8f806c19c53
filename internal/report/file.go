package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/atomicfile"
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
// directory. Filename does not touch the disk; PrepareSave creates the
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

// FileDir is the directory of the path Filename gives for o. It does not
// depend on Date or ModelID (neither puts a "/" in the name: the model's base
// is what follows its last "/"), so it is known before the run, when the
// save is prepared.
func FileDir(o FileOptions) string {
	o.Date, o.ModelID = "date", "model"
	return filepath.Dir(Filename(o))
}

// PrepareSave creates dir, as vLLM creates --result-dir (with nested
// parents: test_result_jsonl.py@89a73c7a), and readies an atomic save into
// it (atomicfile.Prepare): a directory that cannot be created or written
// fails here, before the run.
func PrepareSave(dir string) (*atomicfile.Pending, error) {
	if dir != "" && dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create result directory %s: %w", dir, err)
		}
	}
	return atomicfile.Prepare(dir, "gobench-result")
}

// Save writes a result object at path, in p's directory, as vLLM's
// main_async does with --save-result / --append-result:
//
//   - appendRecord false: the file holds json.dump's one line, without a
//     trailing newline; it replaces the previous file atomically (written
//     aside, synced, renamed over it), so a failure or kill -9 leaves the
//     previous file whole;
//   - appendRecord true: the object is appended as one line in one write,
//     preceded by "\n" when the file is non-empty and does not already end
//     with a newline, so the file is JSON Lines (append_jsonl_record's rule;
//     baseline vLLM wrote "\n" before every append to a non-empty file, even
//     after a newline). The file is not rewritten (other runs may append to
//     it at the same time); a damaged line (a partial record) is skipped by
//     the readers (package resultfile).
func Save(p *atomicfile.Pending, path string, obj *pyjson.Object, appendRecord bool) error {
	body, err := pyjson.AppendPython(nil, obj)
	if err != nil {
		p.Abort()
		return fmt.Errorf("encode result for %s: %w", path, err)
	}
	if appendRecord {
		return p.Append(path, body)
	}
	return p.Replace(path, body)
}
