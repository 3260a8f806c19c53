package run

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/atomicfile"
	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/schedule"
)

// save builds the result object and writes it when asked (--save-result,
// --append-result), with the PyTorch benchmark records when
// SAVE_TO_PYTORCH_BENCHMARK_FORMAT is set.
func (x *execution) save(m *metrics.Result, spec *report.SpecDecode, res dispatchResult, rampStart string, offsets []float64,
	view *pyjson.Object) (*Result, error) {
	o := &x.Options
	endReason := report.EndCompleted
	if res.interrupted {
		endReason = report.EndInterrupted
	}
	// vLLM stamps the result (and its file name) when the run is over.
	run := &report.Run{
		Date: report.DateString(x.env.Now()), Backend: o.Backend, Label: o.Label, ModelID: x.ModelID,
		TokenizerID: x.TokenizerID, NumPrompts: o.NumPrompts, Metadata: o.Metadata, Burstiness: o.Schedule.Burstiness,
		SpecDecode: spec, NumWarmups: o.NumWarmups, SaveDetailed: o.SaveDetailed,
		ScheduledOffsets: offsets, Version: x.env.Version, EndReason: endReason, Workload: x.workload(),
		ServerView: view, MultiTurn: x.turns, Steady: x.steady, Client: x.load, Shard: x.shardObject(res, x.sentIndices(res)),
	}
	fo := fileOptions(o)
	if ru := o.Schedule.RampUp; ru != nil {
		run.RampUp = fo.RampUp
		run.RPSChangeEvents = rpsEvents(x.Arrivals, ru.StartRPS, rampStart, res.released)
	}
	obj := x.resultObject(m, run)
	result := &Result{Metrics: m, Object: obj, EndReason: endReason, Spec: spec}
	if !o.SaveResult && !o.AppendResult {
		return result, nil
	}
	fo.ModelID, fo.Date = x.ModelID, run.Date
	path := report.Filename(fo)
	s := x.pending
	if s == nil { // a Plan not made by NewPlan
		var err error
		if s, err = prepareSave(o, x.env); err != nil {
			return result, err
		}
	}
	defer s.abort()
	if err := report.Save(s.result, path, obj, o.AppendResult); err != nil {
		return result, x.keepCopy(result, path, obj, fmt.Errorf("save result: %w", err))
	}
	result.File = path
	if s.pytorch != nil {
		args := o.Args
		if args == nil {
			args = pyjson.NewObject()
		}
		if err := report.SavePyTorch(s.pytorch, report.PyTorchPath(path), report.PyTorchRecords(obj, args, o.Model)); err != nil {
			return result, err
		}
	}
	return result, nil
}

// resultObject is report.ResultObject; a panic while it writes the
// optional parts is recovered by building the object again without them,
// with a warning, so that they cannot cost the result.
func (x *execution) resultObject(m *metrics.Result, run *report.Run) *pyjson.Object {
	var obj *pyjson.Object
	err := x.guard(stageParts, func() error { obj = report.ResultObject(m, run); return nil })
	if err == nil {
		return obj
	}
	fmt.Fprintf(x.env.Stderr, "WARNING: %s are left out of the result: %v\n", stageParts, err)
	run.ServerView, run.Steady, run.Client, run.MultiTurn, run.SpecDecode = nil, nil, nil, nil, nil
	return report.ResultObject(m, run)
}

// keepCopy writes the result that could not be saved at path to the
// temporary directory (os.TempDir), so that a disk that filled up during
// the run costs the file, not what was measured. It returns err saying
// where the copy is (result.File is then the copy), or why there is none.
func (x *execution) keepCopy(result *Result, path string, obj *pyjson.Object, err error) error {
	dir := os.TempDir()
	copyPath, cerr := freeName(dir, filepath.Base(path))
	if cerr == nil && filepath.Clean(filepath.Dir(path)) == filepath.Clean(dir) {
		cerr = errors.New("it is the directory that failed")
	}
	var p *atomicfile.Pending
	if cerr == nil {
		p, cerr = atomicfile.Prepare(dir, "gobench-result")
	}
	if cerr == nil {
		cerr = report.Save(p, copyPath, obj, false)
	}
	if cerr != nil {
		return fmt.Errorf("%w (and no copy could be kept in %s: %w)", err, dir, cerr)
	}
	result.File = copyPath
	return fmt.Errorf("%w; the result was saved to %s instead", err, copyPath)
}

// freeName is a path in dir named name, or name-1, name-2... before its
// extension when name is taken: the copy never replaces another file.
func freeName(dir, name string) (string, error) {
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := range 100 {
		candidate := name
		if i > 0 {
			candidate = fmt.Sprintf("%s-%d%s", stem, i, ext)
		}
		path := filepath.Join(dir, candidate)
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			return path, nil
		}
	}
	return "", fmt.Errorf("%s and 99 other names are taken", name)
}

// pendingSave is the save of a run's result, made ready before the run
// (prepareSave): the result directory exists and is writable, and the
// descriptors the save needs are held, so that a run whose file cannot be
// written fails before the first request, and one that used up its
// open-file limit still saves.
type pendingSave struct {
	result *atomicfile.Pending
	// pytorch is the .pytorch.json's, nil without
	// SAVE_TO_PYTORCH_BENCHMARK_FORMAT.
	pytorch *atomicfile.Pending
	// free and freeErr are the free space of the result's directory, read
	// when the save was made ready (checkSpace compares it with the
	// result's size once the plan knows its requests).
	free    uint64
	freeErr error
}

// prepareSave readies the save that --save-result or --append-result ask
// for (nil when none is asked, and for a dry run, which writes nothing). The
// file's name holds the run's end date, so only its directory is known now,
// unless --result-filename names it: then it is checked too (not a
// directory; opened now when appended to). A failure is a command-line
// error naming the flag and the path.
func prepareSave(o *Options, env Env) (*pendingSave, error) {
	if o.DryRun || !o.SaveResult && !o.AppendResult {
		return nil, nil
	}
	dirFlag := "--result-dir"
	if strings.Contains(o.ResultFilename, "/") {
		dirFlag = "--result-filename"
	}
	s := &pendingSave{}
	fail := func(flag string, err error) (*pendingSave, error) {
		s.abort()
		return nil, exitcode.Usage(fmt.Errorf("argument %s: the result cannot be saved: %w", flag, err))
	}
	fo := fileOptions(o)
	dir := report.FileDir(fo)
	var err error
	if s.result, err = report.PrepareSave(dir); err != nil {
		return fail(dirFlag, err)
	}
	if o.ResultFilename != "" {
		if err := s.result.Target(report.Filename(fo), o.AppendResult); err != nil {
			return fail("--result-filename", err)
		}
	}
	s.free, s.freeErr = s.result.Available()
	if env.Getenv("SAVE_TO_PYTORCH_BENCHMARK_FORMAT") != "" {
		if s.pytorch, err = report.PrepareSave(dir); err != nil {
			return fail(dirFlag, err)
		}
	}
	return s, nil
}

// ResultPath is the path vLLM's compute_result_filename gives the result
// of a run of o that ended with this model id and date, saved or not
// (--plot-timeline writes beside it either way, as vLLM does).
func (o *Options) ResultPath(modelID, date string) string {
	fo := fileOptions(o)
	fo.ModelID, fo.Date = modelID, date
	return report.Filename(fo)
}

// fileOptions are the parts of the result file's name the options fix.
func fileOptions(o *Options) report.FileOptions {
	fo := report.FileOptions{
		Label: o.Label, Backend: o.Backend, RequestRate: o.Schedule.RequestRate,
		MaxConcurrency: o.MaxConcurrency, ResultDir: o.ResultDir, ResultFilename: o.ResultFilename,
	}
	if ru := o.Schedule.RampUp; ru != nil {
		fo.RampUp = &report.RampUp{Strategy: ru.Strategy, StartRPS: int(ru.StartRPS), EndRPS: int(ru.EndRPS)}
	}
	return fo
}

// abort gives up what was not saved: temporary files removed, descriptors
// closed. It does nothing on nil or after the save, so it can be deferred.
func (s *pendingSave) abort() {
	if s == nil {
		return
	}
	s.result.Abort()
	s.pytorch.Abort()
}

// rpsEvents builds rps_change_events: the start rate at the run's start,
// then one event per integer rate reached, stamped with the wall time its
// request was released.
func rpsEvents(arrivals []schedule.Arrival, startRPS float64, start string, released []time.Time) []report.RPSChangeEvent {
	evs := []report.RPSChangeEvent{{RPS: int(startRPS), Timestamp: start}}
	for _, e := range schedule.RPSChangeEvents(arrivals, startRPS) {
		if e.Request < 0 {
			continue
		}
		if e.Request >= len(released) || released[e.Request].IsZero() {
			break // not released before an interrupt
		}
		evs = append(evs, report.RPSChangeEvent{RPS: e.RPS, Timestamp: isoformat(released[e.Request])})
	}
	return evs
}

// clock reads seconds on the monotonic clock since the run began, as
// vLLM's time.perf_counter() does (arbitrary epoch, one per run).
type clock struct{ epoch time.Time }

func newClock() *clock { return &clock{epoch: time.Now()} }

// Seconds returns the seconds elapsed since the clock was made.
func (c *clock) Seconds() float64 { return time.Since(c.epoch).Seconds() }

// isoformat is Python's datetime.isoformat() of a naive local time:
// microseconds only when non-zero.
func isoformat(t time.Time) string {
	s := t.Format("2006-01-02T15:04:05")
	if us := t.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	return s
}
