package run

import (
	"context"
	"fmt"
	"io"
	"sync"
)

// planUnlessStopped is NewPlan, given up at the first interrupt
// (env.Stop). Building a dataset, loading a tokenizer or opening a file
// that never answers (a FIFO, a hung network mount) does not look at a
// context, so the plan is built on a goroutine of its own; when Stop
// closes first, the save made ready is given up at once and the goroutine
// left to end alone, its output silenced and its plan dropped, while the
// run ends as interrupted with nothing sent.
func planUnlessStopped(ctx context.Context, opts Options, env Env) (*Plan, error) {
	if env.Stop == nil {
		return NewPlan(ctx, opts, env)
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	pending, err := prepareSave(&opts, env)
	if err != nil {
		return nil, err
	}
	planCtx, cancelPlan := untilClosed(ctx, env.Stop)
	defer cancelPlan()
	quiet := &silencer{w: env.Stderr}
	planEnv := env
	planEnv.Stderr = quiet
	type built struct {
		p   *Plan
		err error
	}
	done := make(chan built, 1)
	go func() {
		p, err := buildPlan(planCtx, opts, planEnv, pending)
		done <- built{p, err}
	}()
	select {
	case b := <-done:
		if b.err == nil {
			return b.p, nil
		}
		pending.abort()
		if isClosed(env.Stop) {
			return nil, errPlanInterrupted
		}
		return nil, b.err
	case <-env.Stop:
		quiet.silence()
		pending.abort()
		return nil, errPlanInterrupted
	}
}

// errPlanInterrupted ends a run interrupted while it was being planned.
var errPlanInterrupted = fmt.Errorf("interrupted while preparing the run (nothing was sent): %w", ErrInterrupted)

// silencer passes writes on to w until silence is called, then drops
// them: a plan left to end alone must not write after the run's last
// words.
type silencer struct {
	mu    sync.Mutex
	w     io.Writer
	quiet bool
}

func (s *silencer) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.quiet {
		return len(b), nil
	}
	return s.w.Write(b)
}

// silence drops every later write.
func (s *silencer) silence() {
	s.mu.Lock()
	s.quiet = true
	s.mu.Unlock()
}
