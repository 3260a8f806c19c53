package runset

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/readlimit"
	"github.com/gobench/gobench/internal/resultfile"
)

// maxSetBytes bounds a set file: a list of file names and a few
// statistics per metric.
const maxSetBytes = 64 << 20

// Read reads the set file at path and the result files it lists, relative
// to the set file's folder; warn gets the warnings about their damaged
// lines. The statistics are recomputed from the runs' files, so a set file
// edited by hand (runs added or removed) is read as it now stands. It
// fails with ErrNotSet (wrapping why) when path cannot be read as a set:
// a result, a file of several, or no JSON at all, which resultfile then
// reads or explains.
func Read(path string, warn io.Writer) (*Set, error) {
	data, err := readlimit.JSONObject(path, maxSetBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotSet, err)
	}
	top, err := pyjson.DecodeFileObject(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, ErrNotSet, err)
	}
	v, _ := top.Get(Key)
	obj, ok := v.(*pyjson.Object)
	if !ok || top.Len() != 1 {
		return nil, fmt.Errorf("%s: %w", path, ErrNotSet)
	}
	return fromObject(path, obj, warn)
}

// fromObject reads the set object of the file at path.
func fromObject(path string, obj *pyjson.Object, warn io.Writer) (*Set, error) {
	s := &Set{Confidence: DefaultConfidence, EndReason: Completed}
	s.NumRuns, _ = intOf(obj, "num_runs")
	seed, _ := intOf(obj, "seed")
	s.Seed = int64(seed)
	if v, ok := obj.Get("same_seed"); ok {
		s.SameSeed, _ = v.(bool)
	}
	if v, ok := obj.Get("confidence"); ok {
		if c, ok := v.(float64); ok && c > 0 && c < 1 {
			s.Confidence = c
		}
	}
	if v, ok := obj.Get("end_reason"); ok {
		if e, ok := v.(string); ok {
			s.EndReason = e
		}
	}
	list, _ := obj.Get("runs")
	items, _ := list.([]any)
	dir := filepath.Dir(path)
	for i, it := range items {
		run, err := readRun(it, i, dir, path, warn)
		if err != nil {
			return nil, err
		}
		s.Runs = append(s.Runs, run)
	}
	if len(s.Complete()) == 0 {
		return nil, fmt.Errorf("%s: the set has no completed run", path)
	}
	s.Summarize()
	return s, nil
}

// readRun reads item i of a set file's runs and the result file it names.
func readRun(item any, i int, dir, name string, warn io.Writer) (Run, error) {
	o, ok := item.(*pyjson.Object)
	file := ""
	if ok {
		v, _ := o.Get("file")
		file, _ = v.(string)
	}
	if file == "" {
		return Run{}, fmt.Errorf("%s: runs[%d] names no file", name, i)
	}
	run := Run{Number: i + 1, File: file, EndReason: Completed}
	if n, ok := intOf(o, "run"); ok {
		run.Number = n
	}
	if n, ok := intOf(o, "schedule_seed"); ok {
		run.ScheduleSeed = int64(n)
	}
	if v, ok := o.Get("end_reason"); ok {
		if e, ok := v.(string); ok {
			run.EndReason = e
		}
	}
	path := file
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	runs, err := resultfile.ReadFile(path, warn)
	if err != nil {
		return Run{}, fmt.Errorf("%s, run %d: %w", name, run.Number, err)
	}
	if run.Result, err = resultfile.Select(runs, ""); err != nil {
		return Run{}, fmt.Errorf("%s, run %d: %w", name, run.Number, err)
	}
	run.File = path
	return run, nil
}

// intOf is the integer at key of o.
func intOf(o *pyjson.Object, key string) (int, bool) {
	v, ok := o.Get(key)
	if !ok {
		return 0, false
	}
	n, ok := v.(int)
	return n, ok
}
