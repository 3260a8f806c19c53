package merge

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// startAt is the shards' --start-at in these tests.
var startAt = time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)

// shardRun builds shard index's result: its requests start at starts
// (seconds on its own clock, whose reading at the dispatcher's start is
// clock0) and last 1 s; its dispatcher started late after startAt.
func shardRun(t *testing.T, index int, clock0 float64, late time.Duration, starts []float64, indices []int) *resultfile.Run {
	t.Helper()
	return datedShardRun(t, index, clock0, late, starts, indices, nil)
}

// datedShardRun is shardRun with what the shard saw of the server's Date
// headers (gobench_shard.server_dates; nil: none saved).
func datedShardRun(t *testing.T, index int, clock0 float64, late time.Duration, starts []float64, indices []int, dates *pyjson.Object) *resultfile.Run {
	t.Helper()
	outs := make([]metrics.Output, len(starts))
	for i, s := range starts {
		outs[i] = metrics.Output{Success: true, StartTime: s, Latency: 1, TTFT: 0.1, ITL: []float64{0.9}, OutputTokens: 2, PromptLen: 5}
	}
	end := clock0
	for _, s := range starts {
		end = max(end, s+1)
	}
	m := metrics.Calculate(outs, end-clock0, metrics.Config{RequestRate: math.Inf(1), PercentileMetrics: []string{"ttft", "e2el"},
		Percentiles: []float64{99}, CountTokens: func(string) int { return 0 }})
	sh := pyjson.NewObject()
	sh.Set(resultkey.ShardCount, 2)
	sh.Set(resultkey.ShardIndex, index)
	sh.Set(resultkey.ShardStartAt, startAt.Format(time.RFC3339Nano))
	sh.Set(resultkey.ShardStartWall, startAt.Add(late).Format(time.RFC3339Nano))
	sh.Set(resultkey.ShardStartClock, clock0)
	sh.Set(resultkey.ShardEndClock, end)
	sh.Set(resultkey.ShardGlobalRequests, 4)
	sh.Set(resultkey.ShardRequestIndices, indices)
	if dates != nil {
		sh.Set(resultkey.ShardServerDates, dates)
	}
	w := pyjson.NewObject()
	w.Set(resultkey.WorkloadSeed, 1)
	w.Set(resultkey.WorkloadCommand, "gobench serve --shard-index "+string(rune('0'+index)))
	obj := report.ResultObject(&m, &report.Run{Backend: "openai", ModelID: "m", NumPrompts: 4, SaveDetailed: true,
		ScheduledOffsets: make([]float64, len(starts)), EndReason: report.EndCompleted, Workload: w, Shard: sh})
	r, err := resultfile.FromObject("shard", obj)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestTimeline: each shard's clock has its own origin; the anchors put
// the requests on one timeline from the earliest start, in global order,
// and the duration runs to the last end. The requests overlap only on the
// merged timeline (each shard alone has one at a time).
func TestTimeline(t *testing.T) {
	t.Parallel()
	// Shard 0 started 10 ms late, its clock reading 100 then; shard 1 on
	// time, its clock reading 5.
	a := shardRun(t, 0, 100, 10*time.Millisecond, []float64{100.5, 102}, []int{0, 2})
	b := shardRun(t, 1, 5, 0, []float64{5.6, 7.2}, []int{1, 3})
	res, err := Merge([]*resultfile.Run{b, a}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	starts := startTimes(t, res)
	run, err := resultfile.FromObject("merged", res.Object)
	if err != nil {
		t.Fatal(err)
	}
	approx := cmpopts.EquateApprox(0, 1e-9)
	if diff := cmp.Diff([]float64{0.51, 0.6, 2.01, 2.2}, starts, approx); diff != "" {
		t.Errorf("merged start_times (-want +got):\n%s", diff)
	}
	if got, _ := run.Number(resultkey.Duration); !cmp.Equal(got, 3.2, approx) {
		t.Errorf("duration %v, want 3.2 (start to the last end)", got)
	}
	if got := res.Recomputed.Metrics.MaxConcurrentRequests; got != 2 {
		t.Errorf("peak concurrency %d, want 2", got)
	}
	if res.Skew.Spread != 10*time.Millisecond || res.Skew.MaxLateness != 10*time.Millisecond {
		t.Errorf("skew %+v, want a 10 ms spread", res.Skew)
	}
	if run.Has(resultkey.GobenchShard) || !run.Has(resultkey.GobenchMerge) {
		t.Errorf("keys %v: want gobench_merge and no gobench_shard", run.Keys())
	}
}

// TestMismatch: shards of another count, a request index outside the
// shard's share, and no shard at all are refused.
func TestMismatch(t *testing.T) {
	t.Parallel()
	a := shardRun(t, 0, 0, 0, []float64{0.5, 2}, []int{0, 2})
	wrongShare := shardRun(t, 1, 0, 0, []float64{0.5, 2}, []int{1, 2})
	for name, runs := range map[string][]*resultfile.Run{
		"alone":       {a},
		"wrong share": {a, wrongShare},
		"none":        nil,
	} {
		if _, err := Merge(runs, Options{}); !errors.Is(err, ErrMismatch) {
			t.Errorf("%s: %v, want ErrMismatch", name, err)
		}
	}
}
