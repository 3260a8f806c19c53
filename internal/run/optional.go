package run

import (
	"fmt"

	"github.com/gobench/gobench/internal/pyjson"
)

// The optional stages at the end of a run (execution.finish): each adds a
// part to the result or prints it, and none may cost the result itself.
// The names are what the warning says was dropped.
const (
	stageCounters = "the server's counters after the run"
	stageFigures  = "gobench's figures (steady state, client load)"
	stageTurns    = "the per-turn figures"
	stageSpec     = "the speculative-decoding figures"
	stageView     = "the server view"
	stageBlock    = "the printed result block"
	stageProfile  = "the profiler's stop"
	// stageParts is the result object's writing of all the optional
	// parts above (execution.resultObject).
	stageParts = "the optional parts (server view, gobench's, per-turn and speculative-decoding figures)"
)

// optional runs one optional stage: a panic in it is recovered and, like
// an error, costs only what the stage adds, with one warning that names
// it and says why. It reports whether the stage succeeded; the caller
// then drops what a failed stage may have left half done.
func (x *execution) optional(stage string, f func() error) bool {
	err := x.guard(stage, f)
	if err != nil {
		fmt.Fprintf(x.env.Stderr, "WARNING: %s failed and is left out: %v\n", stage, err)
	}
	return err == nil
}

// guard runs stage f and returns its error, or its panic as one. The
// plan's failAt (tests only) runs first.
func (x *execution) guard(stage string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	if x.failAt != nil {
		x.failAt(stage)
	}
	return f()
}

// encodes checks that part can be written into the result file, so that
// a value the writer refuses costs that part, not the save.
func encodes(part *pyjson.Object) error {
	if part == nil {
		return nil
	}
	if _, err := pyjson.AppendPython(nil, part); err != nil {
		return fmt.Errorf("it cannot be written: %w", err)
	}
	return nil
}
