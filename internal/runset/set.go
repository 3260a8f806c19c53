package runset

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"

	"github.com/gobench/gobench/internal/atomicfile"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
)

// Key is the set file's one top-level key. It is gobench's own: a set
// file is no result (vLLM has none), and its key says so to every reader.
const Key = "gobench_run_set"

// End reasons of a set, as a result's end_reason spells them.
const (
	// Completed: every run asked for ran to its end.
	Completed = "completed"
	// Interrupted: an interrupt ended the set early.
	Interrupted = "interrupted"
	// Failed: a run could not be carried out (the server unreachable, a
	// result that could not be saved), which ended the set early.
	Failed = "failed"
)

// Run is one run of a set.
type Run struct {
	// Number counts the runs from 1.
	Number int
	// File is the run's result file (as the run saved it; in the set
	// file, relative to the set file's folder).
	File string
	// ScheduleSeed is the seed of the run's arrivals: --seed for the
	// first run (vLLM's schedule) and with --same-seed, --seed + k − 1
	// (modulo 2**32) for run k otherwise.
	ScheduleSeed int64
	// EndReason is the run's: completed or interrupted. An interrupted
	// run is listed but left out of the statistics (fewer requests, an
	// early end: not the configuration the others measured).
	EndReason string
	// Result is the run's result as read (from memory after a run, from
	// File when a set file is read).
	Result *resultfile.Run
}

// Metric is one result key summarised across the set's completed runs.
type Metric struct {
	// Key is the result key (failed_ratio is derived from failed and
	// completed, as compare and check derive it).
	Key string
	Summary
}

// Set is a set of repeated runs of one configuration.
type Set struct {
	// NumRuns is the number of runs asked for (--num-runs).
	NumRuns int
	// Seed is --seed: every run's dataset seed.
	Seed int64
	// SameSeed is --same-seed: every run has the first run's arrivals.
	SameSeed bool
	// Confidence is the level of the intervals.
	Confidence float64
	// EndReason is Completed, Interrupted or Failed.
	EndReason string
	// Runs are the runs made, in order.
	Runs []Run
	// Metrics are the statistics across the completed runs: every numeric
	// measurement key they all have, in the first run's order.
	Metrics []Metric
}

// ScheduleSeed is the seed of run k's arrivals (k from 1): seed for the
// first run and with sameSeed, else seed + k − 1 wrapped into [0, 2**32).
func ScheduleSeed(seed int64, k int, sameSeed bool) int64 {
	if sameSeed || k == 1 {
		return seed
	}
	return (seed + int64(k) - 1) % (1 << 32)
}

// Complete returns the runs that ran to their end, which the statistics
// are over.
func (s *Set) Complete() []Run {
	var out []Run
	for _, r := range s.Runs {
		if r.EndReason == Completed && r.Result != nil {
			out = append(out, r)
		}
	}
	return out
}

// Summarize fills Metrics from the completed runs.
func (s *Set) Summarize() {
	runs := s.Complete()
	s.Metrics = nil
	if len(runs) == 0 {
		return
	}
	for _, k := range metricKeys(runs) {
		values := make([]float64, len(runs))
		for i, r := range runs {
			values[i], _ = r.Result.Number(k)
		}
		s.Metrics = append(s.Metrics, Metric{Key: k, Summary: Summarize(values, s.Confidence)})
	}
}

// Values returns key's value in each completed run.
func (s *Set) Values(key string) ([]float64, bool) {
	runs := s.Complete()
	out := make([]float64, len(runs))
	for i, r := range runs {
		v, ok := r.Result.Number(key)
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, len(out) > 0
}

// metricKeys are the numeric measurement keys (not settings, not lists)
// every run has, in the first run's order, with failed_ratio after failed.
func metricKeys(runs []Run) []string {
	var keys []string
	for _, k := range runs[0].Result.Keys() {
		if resultkey.IsSetting(k) || !everyNumeric(runs, k) {
			continue
		}
		keys = append(keys, k)
		if k == resultkey.Failed {
			keys = append(keys, resultkey.FailedRatio)
		}
	}
	return keys
}

func everyNumeric(runs []Run, key string) bool {
	for _, r := range runs {
		if !r.Result.IsNumeric(key) {
			return false
		}
	}
	return true
}

// Object is the set file's content, with the runs' files relative to dir
// (the set file's folder) where they are inside it.
func (s *Set) Object(dir string) *pyjson.Object {
	set := pyjson.NewObject()
	set.Set("num_runs", s.NumRuns)
	set.Set("completed_runs", len(s.Complete()))
	set.Set("end_reason", s.EndReason)
	set.Set("seed", s.Seed)
	set.Set("same_seed", s.SameSeed)
	set.Set("confidence", s.Confidence)
	var runs []any
	for _, r := range s.Runs {
		o := pyjson.NewObject()
		o.Set("run", r.Number)
		o.Set("file", relative(dir, r.File))
		o.Set("schedule_seed", r.ScheduleSeed)
		o.Set("end_reason", r.EndReason)
		runs = append(runs, o)
	}
	set.Set("runs", runs)
	metrics := pyjson.NewObject()
	for _, m := range s.Metrics {
		o := pyjson.NewObject()
		o.Set("n", m.N)
		for _, f := range []struct {
			name string
			v    float64
		}{{"mean", m.Mean}, {"std", m.Std}, {"min", m.Min}, {"max", m.Max}, {"cv", m.CV}, {"ci_low", m.Low}, {"ci_high", m.High}} {
			o.Set(f.name, finiteOrNil(f.v))
		}
		metrics.Set(m.Key, o)
	}
	set.Set("metrics", metrics)
	top := pyjson.NewObject()
	top.Set(Key, set)
	return top
}

// finiteOrNil is v, or nil (JSON null) when v is NaN or infinite: a set
// file is plain JSON.
func finiteOrNil(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

// relative is path relative to dir when it lies inside it, else path.
func relative(dir, path string) string {
	if filepath.IsAbs(path) != filepath.IsAbs(dir) {
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == ".." || len(rel) > 2 && rel[:3] == "../" {
		return path
	}
	return rel
}

// Save writes the set file at path, atomically (a temporary file in its
// folder, renamed over it).
func (s *Set) Save(path string) error {
	dir := filepath.Dir(path)
	p, err := atomicfile.Prepare(dir, "gobench-set")
	if err != nil {
		return fmt.Errorf("save the set of runs: %w", err)
	}
	body, err := pyjson.AppendPython(nil, s.Object(dir))
	if err != nil {
		p.Abort()
		return fmt.Errorf("encode the set of runs: %w", err)
	}
	if err := p.Replace(path, body); err != nil {
		return fmt.Errorf("save the set of runs: %w", err)
	}
	return nil
}

// ErrNotSet is returned by Read for a JSON file that is no set file.
var ErrNotSet = errors.New("not a set of runs (a file written by gobench serve --num-runs)")
