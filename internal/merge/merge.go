// Package merge joins the detailed results of the shards of one benchmark
// (serve --num-shards N --shard-index I --start-at T, one client each)
// into the result one client would have written: `gobench merge`.
//
// The shards planned the same global requests from the same seed and each
// sent request j with j mod N == I; each saved, beside its per-request
// lists, its wall-clock anchors (gobench_shard): the wall time at which
// its dispatcher started and its own clock's reading then. The merge puts
// every request on one timeline, from the earliest shard's start, in
// global request order, and computes every metric again with
// metrics.Calculate over the merged records and the duration from that
// start to the last shard's end (through analyze.Recompute, so the merged
// file's figures are exactly what gobench analyze reads back from it):
// peak concurrency from the merged intervals, goodput, percentiles all
// follow. The anchors are only as good as the machines' clocks; Skew says
// what the data shows of that: the spread of the anchors, and each
// shard's offset against shard 0 bounded from the server's Date headers
// (datebound.go), by which Options.CorrectSkew moves the shards.
package merge

import (
	"fmt"
	"slices"
	"time"

	"github.com/gobench/gobench/internal/analyze"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
)

// Result is the merged benchmark.
type Result struct {
	// Object is the merged result, an ordinary detailed result with
	// gobench_merge.
	Object *pyjson.Object
	// Recomputed is the merged run's metrics and gobench sections, as
	// analyze.Recompute computed them from the merged records.
	Recomputed *analyze.Result
	// Skew is what the shards' anchors tell of their clocks.
	Skew Skew
}

// dropped are keys of a shard's result that describe that shard alone
// and have no merged value: the server's window and counters as one
// shard saw them, its ramp-up events, its probes, its identity.
var dropped = []string{resultkey.GobenchShard, resultkey.ServerView, resultkey.RPSChangeEvents,
	resultkey.SpecDecodeAcceptanceRate, resultkey.SpecDecodeAcceptanceLength, resultkey.SpecDecodeNumDrafts,
	resultkey.SpecDecodeDraftTokens, resultkey.SpecDecodeAcceptedTokens, resultkey.SpecDecodePerPositionAcceptanceRates,
	resultkey.ProbeCompleted, resultkey.ProbeFailed, resultkey.ProbeMedianE2ELMS, resultkey.ProbeP99E2ELMS, resultkey.ProbeMaxE2ELMS}

// Options are gobench merge's choices.
type Options struct {
	// CorrectSkew moves each shard's timeline back by the middle of its
	// bound against shard 0 from the server's Date headers (Skew.Bounds),
	// where it has one: the remaining offset is then at most half the
	// bound's width. Off, the anchors are taken as read, and the merged
	// metrics are the same as without the bound.
	CorrectSkew bool
}

// Merge joins runs, the results of every shard of one benchmark (in any
// order). A run that is not a shard's, lacks its per-request lists, or
// does not belong with the others (another seed or workload, another
// shard count or start instant, an index twice or missing) is an error
// wrapping ErrMismatch or resultfile.ErrNotDetailed.
func Merge(runs []*resultfile.Run, o Options) (*Result, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("%w: no shard given", ErrMismatch)
	}
	var shards []*shard
	for _, r := range runs {
		s, err := readShard(r)
		if err != nil {
			return nil, err
		}
		shards = append(shards, s)
	}
	shards, err := checkTogether(shards)
	if err != nil {
		return nil, err
	}
	if err := checkIndices(shards); err != nil {
		return nil, err
	}
	skew := measureSkew(shards)
	skew.Bounds = boundOffsets(shards)
	if o.CorrectSkew {
		skew.correct(shards)
	}
	base, offsets, err := mergedObject(shards, skew.Start)
	if err != nil {
		return nil, err
	}
	run, err := resultfile.FromObject("merged", base)
	if err != nil {
		return nil, err
	}
	rec, err := analyze.Recompute(run, analyze.Options{})
	if err != nil {
		return nil, fmt.Errorf("merged result: %w", err)
	}
	if rec.Client != nil {
		// The shards' CPU times were spent on several machines: no one
		// process's share of one core.
		rec.Client.CPUSeconds, rec.Client.CPUKnown = 0, false
		rec.Client.WallSeconds = rec.Metrics.Duration
	}
	obj := reportObject(run, rec, offsets, skew.object(shards))
	return &Result{Object: obj, Recomputed: rec, Skew: skew}, nil
}

// mergedObject is shard 0's result with the per-request lists of every
// shard in global request order, start_times on the merged timeline (in
// seconds from start), the merged duration, the global --max-concurrency
// (N × the per-shard one) and the per-shard keys dropped. It returns the
// merged scheduled offsets too.
func mergedObject(shards []*shard, start time.Time) (*pyjson.Object, []any, error) {
	first := shards[0].run
	base := pyjson.NewObject()
	for _, k := range first.Keys() {
		raw, _ := first.Raw(k)
		v, err := pyjson.Decode(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %s: %w", first.Name(), k, err)
		}
		base.Set(k, v)
	}
	for _, k := range dropped {
		base.Delete(k)
	}
	order := globalOrder(shards)
	keys := append(resultkey.RequestLists(), resultkey.ScheduleLags, resultkey.ScheduledOffsets)
	var offsets []any
	for _, k := range keys {
		list, ok, err := mergeList(shards, order, k)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			base.Set(k, list)
		}
		if k == resultkey.ScheduledOffsets {
			offsets = list
		}
	}
	starts, end, err := timeline(shards, order, start)
	if err != nil {
		return nil, nil, err
	}
	base.Set(resultkey.StartTimes, starts)
	base.Set(resultkey.Duration, end)
	if mc, ok := first.Number(resultkey.MaxConcurrency); ok && mc > 0 {
		base.Set(resultkey.MaxConcurrency, int(mc)*len(shards))
	}
	return base, offsets, nil
}

// ref is one request: its shard and its position in that shard's lists.
type ref struct{ shard, pos int }

// globalOrder lists every sent request in global request order.
func globalOrder(shards []*shard) []ref {
	type item struct {
		j int
		r ref
	}
	var items []item
	for si, s := range shards {
		for k, j := range s.indices {
			items = append(items, item{j, ref{si, k}})
		}
	}
	slices.SortFunc(items, func(a, b item) int { return a.j - b.j })
	out := make([]ref, len(items))
	for i, it := range items {
		out[i] = it.r
	}
	return out
}

// mergeList merges the per-request list key of every shard in order; ok
// is false when no shard has it. A list some shards have and others not,
// or of the wrong length, is an error.
func mergeList(shards []*shard, order []ref, key string) ([]any, bool, error) {
	lists := make([][]any, len(shards))
	have := 0
	for i, s := range shards {
		raw, ok := s.run.Raw(key)
		if !ok || string(raw) == "null" {
			continue
		}
		v, err := pyjson.Decode(raw)
		l, isList := v.([]any)
		if err != nil || !isList || len(l) != len(s.indices) {
			return nil, false, fmt.Errorf("%s: %q is not a list of %d entries (one per request)", s.run.Name(), key, len(s.indices))
		}
		lists[i], have = l, have+1
	}
	if have == 0 {
		return nil, false, nil
	}
	if have != len(shards) {
		return nil, false, fmt.Errorf("%w: some shards have the per-request list %q and others not", ErrMismatch, key)
	}
	out := make([]any, len(order))
	for i, r := range order {
		out[i] = lists[r.shard][r.pos]
	}
	return out, true, nil
}

// timeline puts every request's start on the merged timeline, seconds
// from start (the earliest shard's anchor): request k of a shard started
// at its start_wall + start_times[k] − start_clock. It returns the starts
// in order and the merged duration, from start to the last shard's end.
func timeline(shards []*shard, order []ref, start time.Time) ([]float64, float64, error) {
	outs := make([][]metrics.Output, len(shards))
	var end float64
	for i, s := range shards {
		d, err := s.run.Detailed()
		if err != nil {
			return nil, 0, err
		}
		if len(d.Outputs) != len(s.indices) || !d.HasStartTimes {
			return nil, 0, fmt.Errorf("%s: %d per-request entries with start_times for %d requests", s.run.Name(), len(d.Outputs), len(s.indices))
		}
		outs[i] = d.Outputs
		end = max(end, s.offset(start)+s.endClock-s.startClock)
	}
	starts := make([]float64, len(order))
	for i, r := range order {
		s := shards[r.shard]
		starts[i] = s.offset(start) + (outs[r.shard][r.pos].StartTime - s.startClock)
	}
	return starts, end, nil
}

// offset is the shard's start anchor in seconds after start.
func (s *shard) offset(start time.Time) float64 { return s.startWall.Sub(start).Seconds() }
