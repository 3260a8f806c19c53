package merge

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultkey"
)

// SkewNote says what the anchors cannot show. Each shard reads its own
// wall clock: the spread of their starts is how far apart they began by
// those clocks (timer lateness, a busy core), and an offset between the
// machines' clocks adds to it, unseen by the anchors, since every shard
// measures its requests on its own clock alone. The server's Date
// headers bound that offset where they can (Skew.Bounds).
const SkewNote = "Each shard's anchor is read on its own wall clock: the spread of the starts bounds how far apart the shards began by their clocks; " +
	"an offset between the machines' clocks adds to it, unseen by the anchors (keep them synchronised with NTP or chrony, typically within a millisecond on one network); " +
	"the server's Date headers bound it where they can (skew_bound_ms)."

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
	// Bounds holds, per shard in index order, what the server's Date
	// headers bound of its timeline against shard 0's.
	Bounds []Bound
	// Corrected tells that each bounded shard's timeline was moved back
	// by the middle of its bound (Options.CorrectSkew): Start is then the
	// earliest corrected anchor, Starts still the anchors as read.
	Corrected bool
}

// Bounded returns the largest offset against shard 0 that every shard's
// bound allows, and false when some shard has no bound.
func (s Skew) Bounded() (time.Duration, bool) {
	var widest time.Duration
	for _, b := range s.Bounds {
		if !b.OK {
			return 0, false
		}
		widest = max(widest, b.Widest())
	}
	return widest, len(s.Bounds) > 0
}

// correct moves each bounded shard's anchor back by the middle of its
// bound, which leaves it at most half the bound's width from shard 0's
// timeline, and starts the merged timeline at the earliest anchor then.
func (s *Skew) correct(shards []*shard) {
	s.Corrected = true
	for i, sh := range shards {
		b := &s.Bounds[i]
		if !b.OK || i == 0 {
			continue
		}
		b.Correction = b.Middle()
		sh.startWall = sh.startWall.Add(-b.Correction)
	}
	s.Start = shards[0].startWall
	for _, sh := range shards {
		if sh.startWall.Before(s.Start) {
			s.Start = sh.startWall
		}
	}
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
	var bound any
	if w, ok := s.Bounded(); ok {
		bound = ms(w)
	}
	o.Set(resultkey.MergeSkewBoundMS, bound)
	o.Set(resultkey.MergeSkewBoundNote, SkewBoundNote)
	o.Set(resultkey.MergeSkewCorrected, s.Corrected)
	var per []*pyjson.Object
	for i, sh := range shards {
		p := pyjson.NewObject()
		p.Set(resultkey.MergeShardFile, sh.run.Name())
		p.Set(resultkey.ShardIndex, sh.index)
		p.Set(resultkey.ShardStartWall, s.Starts[i].UTC().Format(time.RFC3339Nano))
		p.Set(resultkey.MergeShardLatenessMS, ms(s.Lateness[i]))
		p.Set(resultkey.MergeShardRequests, len(sh.indices))
		s.Bounds[i].set(p)
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
	if _, err := fmt.Fprintf(w, "Clock skew: the shards' starts spread over %.3f ms (latest %.3f ms after --start-at). %s\n", ms(s.Spread), ms(s.MaxLateness), SkewNote); err != nil {
		return err
	}
	return s.writeBounds(w)
}

// set writes the bound into the shard's entry of gobench_merge.shards.
func (b Bound) set(p *pyjson.Object) {
	p.Set(resultkey.MergeShardDateChanges, b.Seen)
	var offset, why any
	if b.OK {
		offset = []float64{ms(b.Low), ms(b.High)}
	} else {
		why = b.Why
	}
	p.Set(resultkey.MergeShardOffsetMS, offset)
	p.Set(resultkey.MergeShardOffsetChanges, b.Shared)
	p.Set(resultkey.MergeShardOffsetNote, why)
	p.Set(resultkey.MergeShardCorrectionMS, ms(b.Correction))
}

// writeBounds prints each shard's bound against shard 0, the largest
// offset they allow, and the correction (or the hint to make one when a
// bound excludes zero).
func (s Skew) writeBounds(w io.Writer) error {
	var b strings.Builder
	b.WriteString("Clock skew bound from the server's Date headers (each change of the value is one instant of the server's, which every shard saw on its own clock):\n")
	var off []string
	for i, bd := range s.Bounds[1:] {
		i++
		switch {
		case !bd.OK:
			fmt.Fprintf(&b, "  shard %d − shard 0: no bound: %s\n", i, bd.Why)
		default:
			fmt.Fprintf(&b, "  shard %d − shard 0: between %+.3f and %+.3f ms (%d Date changes both saw)\n", i, ms(bd.Low), ms(bd.High), bd.Shared)
			if bd.Low > 0 || bd.High < 0 {
				off = append(off, fmt.Sprint(i))
			}
		}
	}
	if len(s.Bounds) == 1 {
		b.WriteString("  one shard: nothing to bound\n")
	}
	if widest, ok := s.Bounded(); ok {
		fmt.Fprintf(&b, "Every shard's timeline is within %.3f ms of shard 0's.\n", ms(widest))
	} else if len(s.Bounds) > 1 {
		b.WriteString("The server's Date headers do not bound the skew of every shard: the anchors are taken as they are.\n")
	}
	switch {
	case s.Corrected:
		for i, bd := range s.Bounds[1:] {
			if bd.OK {
				fmt.Fprintf(&b, "Corrected: shard %d's timeline moved by %+.3f ms (the middle of its bound).\n", i+1, -ms(bd.Correction))
			}
		}
	case len(off) > 0:
		fmt.Fprintf(&b, "The bound of shard %s excludes zero: its clock is off; gobench merge --correct-skew moves each shard by the middle of its bound.\n", strings.Join(off, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
