package merge

import (
	"fmt"
	"io"
	"time"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultkey"
)

// SkewNote says what the anchors cannot show. Each shard reads its own
// wall clock: the spread of their starts is how far apart they began by
// those clocks (timer lateness, a busy core), and an offset between the
// machines' clocks adds to it unseen, since every shard measures its
// requests on its own clock alone.
const SkewNote = "Each shard's anchor is read on its own wall clock: the spread of the starts bounds how far apart the shards began by their clocks; " +
	"an offset between the machines' clocks adds to it unseen (keep them synchronised with NTP or chrony, typically within a millisecond on one network)."

// Skew is what the shards' start anchors tell of their clocks.
type Skew struct {
	// StartAt is the shards' --start-at (zero when they had none).
	StartAt time.Time
	// Start is the earliest anchor: the merged run's start.
	Start time.Time
	// Starts and Lateness are each shard's anchor and its lateness after
	// StartAt (by its own clock), in shard order.
	Starts   []time.Time
	Lateness []time.Duration
	// Spread is the latest anchor minus the earliest; MaxLateness the
	// largest lateness.
	Spread, MaxLateness time.Duration
}

// measureSkew reads the anchors of shards (in index order).
func measureSkew(shards []*shard) Skew {
	var s Skew
	if shards[0].startAt != "" {
		s.StartAt, _ = time.Parse(time.RFC3339Nano, shards[0].startAt)
	}
	latest := shards[0].startWall
	s.Start = latest
	for _, sh := range shards {
		s.Starts = append(s.Starts, sh.startWall)
		if sh.startWall.Before(s.Start) {
			s.Start = sh.startWall
		}
		if sh.startWall.After(latest) {
			latest = sh.startWall
		}
		var late time.Duration
		if !s.StartAt.IsZero() {
			late = sh.startWall.Sub(s.StartAt)
		}
		s.Lateness = append(s.Lateness, late)
		s.MaxLateness = max(s.MaxLateness, late)
	}
	s.Spread = latest.Sub(s.Start)
	return s
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// object is the result's gobench_merge object.
func (s Skew) object(shards []*shard) *pyjson.Object {
	o := pyjson.NewObject()
	o.Set(resultkey.MergeShards, len(shards))
	var at any
	if !s.StartAt.IsZero() {
		at = s.StartAt.UTC().Format(time.RFC3339Nano)
	}
	o.Set(resultkey.MergeStartAt, at)
	o.Set(resultkey.MergeStartWall, s.Start.UTC().Format(time.RFC3339Nano))
	o.Set(resultkey.MergeStartSpreadMS, ms(s.Spread))
	o.Set(resultkey.MergeMaxLatenessMS, ms(s.MaxLateness))
	o.Set(resultkey.MergeSkewNote, SkewNote)
	var per []*pyjson.Object
	for i, sh := range shards {
		p := pyjson.NewObject()
		p.Set(resultkey.MergeShardFile, sh.run.Name())
		p.Set(resultkey.ShardIndex, sh.index)
		p.Set(resultkey.ShardStartWall, s.Starts[i].UTC().Format(time.RFC3339Nano))
		p.Set(resultkey.MergeShardLatenessMS, ms(s.Lateness[i]))
		p.Set(resultkey.MergeShardRequests, len(sh.indices))
		per = append(per, p)
	}
	o.Set(resultkey.MergePerShard, per)
	return o
}

// Write prints the skew: one line per shard, then the spread and what it
// cannot show.
func (s Skew) Write(w io.Writer) error {
	for i, t := range s.Starts {
		if _, err := fmt.Fprintf(w, "shard %d started %s (%.3f ms after --start-at by its clock)\n", i, t.UTC().Format(time.RFC3339Nano), ms(s.Lateness[i])); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "Clock skew: the shards' starts spread over %.3f ms (latest %.3f ms after --start-at). %s\n", ms(s.Spread), ms(s.MaxLateness), SkewNote)
	return err
}
