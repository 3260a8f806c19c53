package merge

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
)

// ErrMismatch marks shards that do not belong to one benchmark (another
// seed, workload, shard count or start instant; a shard twice or missing).
var ErrMismatch = errors.New("the shards do not belong together")

// shard is one shard's result with its identity and anchors read.
type shard struct {
	run *resultfile.Run
	// count, index, total: num_shards, shard_index, global_requests.
	count, index, total int
	// startAt is --start-at ("" when absent, never for a sharded run);
	// startWall the dispatcher's start on the shard's wall clock.
	startAt   string
	startWall time.Time
	// startClock and endClock are the run's clock at the start and the
	// end (start_times' clock).
	startClock, endClock float64
	// indices are the global indices of the per-request lists' entries.
	indices []int
	// dates is what the shard saw of the server's Date headers, on its
	// start_times' clock (nil: not recorded).
	dates *savedDates
}

// savedDates is gobench_shard's server_dates.
type savedDates struct {
	Responses    int       `json:"responses"`
	Undated      int       `json:"undated_responses"`
	Values       []int64   `json:"values"`
	LastSend     []float64 `json:"last_send"`
	FirstArrival []float64 `json:"first_arrival"`
}

// readShard reads run's gobench_shard object.
func readShard(run *resultfile.Run) (*shard, error) {
	o, ok := run.Object(resultkey.GobenchShard)
	if !ok {
		return nil, exitcode.Usage(fmt.Errorf("%s: not a shard's result (no %q: run serve with --num-shards, --shard-index and --start-at)", run.Name(), resultkey.GobenchShard))
	}
	raw, err := json.Marshal(o)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", run.Name(), resultkey.GobenchShard, err)
	}
	var v struct {
		Count      *int        `json:"num_shards"`
		Index      *int        `json:"shard_index"`
		Total      *int        `json:"global_requests"`
		StartAt    *string     `json:"start_at"`
		StartWall  string      `json:"start_wall"`
		StartClock *float64    `json:"start_clock"`
		EndClock   *float64    `json:"end_clock"`
		Indices    []int       `json:"request_indices"`
		Dates      *savedDates `json:"server_dates"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", run.Name(), resultkey.GobenchShard, err)
	}
	if v.Count == nil || v.Index == nil || v.Total == nil || v.StartClock == nil || v.EndClock == nil {
		return nil, fmt.Errorf("%s: %s lacks num_shards, shard_index, global_requests, start_clock or end_clock", run.Name(), resultkey.GobenchShard)
	}
	if v.Indices == nil {
		return nil, exitcode.Usage(fmt.Errorf("%s: %w: each shard needs --save-detailed to be merged", run.Name(), resultfile.ErrNotDetailed))
	}
	wall, err := time.Parse(time.RFC3339Nano, v.StartWall)
	if err != nil {
		return nil, fmt.Errorf("%s: %s.%s: %w", run.Name(), resultkey.GobenchShard, resultkey.ShardStartWall, err)
	}
	s := &shard{run: run, count: *v.Count, index: *v.Index, total: *v.Total, startWall: wall,
		startClock: *v.StartClock, endClock: *v.EndClock, indices: v.Indices, dates: v.Dates}
	if v.StartAt != nil {
		s.startAt = *v.StartAt
	}
	return s, nil
}

// sameKeys are the top-level settings every shard of one benchmark shares.
var sameKeys = []string{resultkey.Backend, resultkey.ModelID, resultkey.TokenizerID, resultkey.NumPrompts,
	resultkey.RequestRate, resultkey.Burstiness, resultkey.MaxConcurrency, resultkey.RampUpStrategy,
	resultkey.RampUpStartRPS, resultkey.RampUpEndRPS}

// checkTogether checks that the shards are the N shards of one benchmark:
// the same shard count, start instant, plan size, settings and workload
// (the command line aside, which differs by --shard-index), each index
// once, none missing. It returns them in index order.
func checkTogether(shards []*shard) ([]*shard, error) {
	first := shards[0]
	mismatch := func(s *shard, what string, a, b any) error {
		return exitcode.Usage(fmt.Errorf("%w: %s has %s %v, %s has %v", ErrMismatch, s.run.Name(), what, b, first.run.Name(), a))
	}
	w0 := workload(first.run)
	for _, s := range shards[1:] {
		switch {
		case s.count != first.count:
			return nil, mismatch(s, "num_shards", first.count, s.count)
		case s.startAt != first.startAt:
			return nil, mismatch(s, "start_at", first.startAt, s.startAt)
		case s.total != first.total:
			return nil, mismatch(s, "global_requests", first.total, s.total)
		}
		for _, k := range sameKeys {
			a, _ := first.run.Raw(k)
			b, _ := s.run.Raw(k)
			if string(a) != string(b) {
				return nil, mismatch(s, k, string(a), string(b))
			}
		}
		if w := workload(s.run); w != w0 {
			return nil, exitcode.Usage(fmt.Errorf("%w: %s and %s have different %s (seed, dataset, lengths or sampling)", ErrMismatch, s.run.Name(), first.run.Name(), resultkey.GobenchWorkload))
		}
	}
	byIndex := make([]*shard, first.count)
	for _, s := range shards {
		if s.index < 0 || s.index >= first.count {
			return nil, exitcode.Usage(fmt.Errorf("%w: %s is shard %d of %d", ErrMismatch, s.run.Name(), s.index, first.count))
		}
		if prev := byIndex[s.index]; prev != nil {
			return nil, exitcode.Usage(fmt.Errorf("%w: %s and %s are both shard %d", ErrMismatch, prev.run.Name(), s.run.Name(), s.index))
		}
		byIndex[s.index] = s
	}
	var missing []int
	for i, s := range byIndex {
		if s == nil {
			missing = append(missing, i)
		}
	}
	if missing != nil {
		return nil, exitcode.Usage(fmt.Errorf("%w: shards %v of %d are missing", ErrMismatch, missing, first.count))
	}
	return byIndex, nil
}

// workload is run's gobench_workload without its command line, as text.
func workload(run *resultfile.Run) string {
	w, ok := run.Object(resultkey.GobenchWorkload)
	if !ok {
		return ""
	}
	w.Delete(resultkey.WorkloadCommand)
	b, _ := pyjson.AppendCompact(nil, w)
	return string(b)
}

// checkIndices checks that every request index is in the global plan and
// belongs to its shard (j mod N), and that none appears twice.
func checkIndices(shards []*shard) error {
	seen := map[int]bool{}
	for _, s := range shards {
		for _, j := range s.indices {
			if j < 0 || j >= s.total || j%s.count != s.index {
				return exitcode.Usage(fmt.Errorf("%w: %s holds request %d, which is not shard %d's of %d", ErrMismatch, s.run.Name(), j, s.index, s.total))
			}
			if seen[j] {
				return exitcode.Usage(fmt.Errorf("%w: request %d appears twice", ErrMismatch, j))
			}
			seen[j] = true
		}
		if !slices.IsSorted(s.indices) {
			return fmt.Errorf("%s: %s.%s is not in request order", s.run.Name(), resultkey.GobenchShard, resultkey.ShardRequestIndices)
		}
	}
	return nil
}
