package run

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultkey"
	"github.com/gobench/gobench/internal/schedule"
)

// MaxStartAtWait bounds how far ahead --start-at may be: a typo in the
// date (a day or a year off) must fail at once, not hold a Kubernetes pod
// for a year.
const MaxStartAtWait = 24 * time.Hour

// Shard is this process's part of one benchmark spread over several
// clients (--num-shards, --shard-index, --start-at).
//
// Every shard plans the same global dataset and schedule from the same
// seed (NewPlan does so whatever the shard) and keeps request j when
// j mod Count == Index. Dealing the requests round-robin keeps each
// shard's load the same shape as the global one: every shard sees the
// whole time span, the same mix of early and late, long and short
// requests, and 1/Count of the rate, where contiguous blocks would give
// one shard the ramp-up and another the tail.
//
// --max-concurrency is per shard: a shard can only bound its own
// requests in flight without a coordinator, so the global bound is
// Count × --max-concurrency.
type Shard struct {
	// Count is --num-shards; 0 or 1 is an ordinary, unsharded run.
	Count int
	// Index is --shard-index, in [0, Count).
	Index int
	// StartAt is --start-at: the wall-clock instant the schedule starts
	// at, the same for every shard (zero: as soon as the run is ready).
	StartAt time.Time
}

// Sharded reports whether the run is one shard of several.
func (s Shard) Sharded() bool { return s.Count > 1 }

// validate checks the shard flags that need no clock (CheckStartAt needs
// one).
func (s Shard) validate(o *Options) error {
	switch {
	case s.Count < 0:
		return fmt.Errorf("argument --num-shards: must be at least 1, not %d", s.Count)
	case s.Count <= 1 && s.Index != 0:
		return fmt.Errorf("argument --shard-index: %d needs --num-shards greater than it", s.Index)
	case (s.Sharded() || !s.StartAt.IsZero()) && o.MultiTurn.Enabled:
		return fmt.Errorf("argument --num-shards/--start-at: not with --multi-turn (a conversation's turns wait for each other's answers, so its shares cannot be scheduled apart): %w", exitcode.ErrNotSupported)
	case !s.Sharded():
		return nil
	case s.Index < 0 || s.Index >= s.Count:
		return fmt.Errorf("argument --shard-index: %d is not in [0, %d) (--num-shards %d)", s.Index, s.Count, s.Count)
	case s.StartAt.IsZero() && !o.DryRun:
		return errors.New("argument --start-at: --num-shards needs a common start instant (e.g. --start-at 2026-12-01T06:00:00Z), so that the shards send together")
	}
	return nil
}

// CheckStartAt refuses a --start-at that is past at now, or more than
// MaxStartAtWait ahead. The command line calls it when it parses the flag;
// Execute calls it again before sending, since a long preparation (a
// tokenizer download) may have used up the time.
func (s Shard) CheckStartAt(now time.Time) error {
	if s.StartAt.IsZero() {
		return nil
	}
	at := s.StartAt.UTC().Format(time.RFC3339Nano)
	if d := s.StartAt.Sub(now); d <= 0 {
		return exitcode.Usage(fmt.Errorf("argument --start-at: %s is %s in the past: give an instant ahead of every shard's start-up (e.g. now + 1 minute)", at, (-d).Round(time.Millisecond)))
	} else if d > MaxStartAtWait {
		return exitcode.Usage(fmt.Errorf("argument --start-at: %s is %s ahead, more than the %s a run waits", at, d.Round(time.Second), MaxStartAtWait))
	}
	return nil
}

// takeShare keeps this shard's requests (j mod Count == Index) of the
// global plan, with their global offsets, and records their global
// indices for the result (gobench_shard.request_indices).
func (p *Plan) takeShare() error {
	s := p.Options.Shard
	if s.Sharded() || !s.StartAt.IsZero() {
		// The server's Date headers bound the clock skew between the
		// shards (gobench merge; backend.ServerClock).
		p.client.ServerClock = &backend.ServerClock{}
	}
	if !s.Sharded() {
		return nil
	}
	if len(p.jobs) < s.Count {
		return exitcode.Usage(fmt.Errorf("argument --num-shards: %d shards for %d requests leave a shard without any", s.Count, len(p.jobs)))
	}
	var (
		jobs     []job
		offsets  []float64
		arrivals []schedule.Arrival
		indices  []int
	)
	for j := s.Index; j < len(p.jobs); j += s.Count {
		jobs = append(jobs, p.jobs[j])
		offsets = append(offsets, p.Offsets[j])
		arrivals = append(arrivals, p.Arrivals[j])
		indices = append(indices, j)
	}
	if len(p.jobs)%s.Count != 0 {
		fmt.Fprintf(p.out, "WARNING: %d requests over %d shards: the shards send %d or %d requests each.\n",
			len(p.jobs), s.Count, len(p.jobs)/s.Count, len(p.jobs)/s.Count+1)
	}
	if mc := p.Options.MaxConcurrency; mc > 0 {
		fmt.Fprintf(p.out, "Shard %d of %d: --max-concurrency %d is per shard, so at most %d requests are in flight over all shards.\n",
			s.Index, s.Count, mc, mc*s.Count)
	}
	p.shareTotal = len(p.jobs)
	p.jobs, p.Offsets, p.Arrivals, p.shareIndices = jobs, offsets, arrivals, indices
	return nil
}

// globalIndex is the index in the global plan of request i of this
// shard's share.
func (p *Plan) globalIndex(i int) int {
	if p.shareIndices == nil {
		return i
	}
	return p.shareIndices[i]
}

// globalRequests is the number of requests of the global plan, which the
// shards share.
func (p *Plan) globalRequests() int {
	if p.shareIndices == nil {
		return len(p.jobs)
	}
	return p.shareTotal
}

// startLead is how long before --start-at a run stops waiting in Execute
// to scrape the server's counters and start its monitor and probes; the
// dispatcher waits the rest (waitStart), so the schedule starts at the
// instant while the run's window (CPU, probes, the server's counters, the
// progress) holds little of the wait.
const startLead = 200 * time.Millisecond

// awaitStart refuses a --start-at that the preparation overran, then
// waits until startLead before it (an interrupt ends the wait; the
// dispatcher then sends nothing).
func (x *execution) awaitStart(ctx context.Context) error {
	s := x.Options.Shard
	if s.StartAt.IsZero() {
		return nil
	}
	if err := s.CheckStartAt(x.env.Now()); err != nil {
		return fmt.Errorf("the start instant passed while the run was getting ready: %w", err)
	}
	fmt.Fprintf(x.out, "Shard %d of %d: waiting for --start-at %s (in %s).\n", s.Index, max(s.Count, 1),
		s.StartAt.UTC().Format(time.RFC3339Nano), s.StartAt.Sub(x.env.Now()).Round(time.Millisecond))
	waitStart(ctx, x.env.Stop, x.env.Now, s.StartAt.Add(-startLead))
	return nil
}

// waitStart waits until the wall clock now reads at (--start-at, when
// set); it returns early when the run is stopped or cancelled, and the
// dispatch loop then sends nothing.
func waitStart(ctx context.Context, stop <-chan struct{}, now func() time.Time, at time.Time) {
	if at.IsZero() {
		return
	}
	wait := at.Sub(now())
	if wait <= 0 {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-stop:
	case <-ctx.Done():
	}
}

// shardObject is the result's gobench_shard object (nil for an unsharded
// run without --start-at): the shard's identity and the anchors that put
// its requests on the wall clock: start_wall is the wall time at which the
// dispatcher started, start_clock the run's clock (start_times') reading
// at the same moment, so request k started at start_wall + start_times[k]
// − start_clock. The indices of its requests in the global plan are kept
// with --save-detailed.
func (x *execution) shardObject(res dispatchResult, sent []int) *pyjson.Object {
	s := x.Options.Shard
	if s.StartAt.IsZero() && !s.Sharded() {
		return nil
	}
	count := max(s.Count, 1)
	o := pyjson.NewObject()
	o.Set(resultkey.ShardCount, count)
	o.Set(resultkey.ShardIndex, s.Index)
	var at any
	if !s.StartAt.IsZero() {
		at = s.StartAt.UTC().Format(time.RFC3339Nano)
	}
	o.Set(resultkey.ShardStartAt, at)
	o.Set(resultkey.ShardStartWall, res.startWall.UTC().Format(time.RFC3339Nano))
	o.Set(resultkey.ShardStartClock, res.start)
	o.Set(resultkey.ShardEndClock, res.end)
	o.Set(resultkey.ShardGlobalRequests, x.globalRequests())
	if x.Options.SaveDetailed {
		o.Set(resultkey.ShardRequestIndices, sent)
	}
	o.Set(resultkey.ShardServerDates, serverDatesObject(x.client.ServerClock.Dates()))
	return o
}

// serverDatesObject is gobench_shard's server_dates: what the run saw of
// the server's Date headers, one entry per Date value in its lists, the
// times on the start_times' clock, so that gobench merge puts them on the
// merged timeline with the shard's anchors.
func serverDatesObject(d backend.ServerDates) *pyjson.Object {
	values, counts := make([]any, len(d.Spans)), make([]int, len(d.Spans))
	send, arrival := make([]float64, len(d.Spans)), make([]float64, len(d.Spans))
	for i, s := range d.Spans {
		values[i], send[i], arrival[i], counts[i] = s.Value, s.LastSend, s.FirstArrival, s.Responses
	}
	o := pyjson.NewObject()
	o.Set(resultkey.DatesResponses, d.Responses)
	o.Set(resultkey.DatesUndated, d.Undated)
	o.Set(resultkey.DatesValues, values)
	o.Set(resultkey.DatesLastSend, send)
	o.Set(resultkey.DatesFirstArrival, arrival)
	o.Set(resultkey.DatesCounts, counts)
	return o
}

// sentIndices are the global indices of the requests that were sent, in
// the order of the result's per-request lists.
func (x *execution) sentIndices(res dispatchResult) []int {
	var out []int
	for i, sent := range res.sent {
		if sent {
			out = append(out, x.globalIndex(i))
		}
	}
	return out
}
