package merge

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"
)

// SkewBoundNote says how the skew bound is made and what it assumes.
const SkewBoundNote = "Each change of the server's Date header (whole seconds, never decreasing) happens at one instant of the server's: " +
	"a shard places it after the latest request it sent that was answered with an older value and no later than the first arrival of an answer " +
	"with that value or a newer one, on its own clock. Two shards that saw the same change bound the offset of their timelines; the bounds of " +
	"every change both saw intersect. The bound holds when every answer's Date comes from one clock (one server process, or a proxy that sets it); " +
	"answers that contradict that are reported instead of a bound."

// dates is what one shard saw of the server's Date headers: per distinct
// value (ascending) the latest send of a request answered with it and
// the earliest arrival of such an answer, in seconds on a timeline common
// to the shards (the shard's anchors applied).
type dates struct {
	// usable: the shard saved its observations (server_dates) and they
	// are one clock's.
	usable        bool
	values        []int64
	send, arrival []float64
	// lo[k] is the latest of send[:k+1], hi[k] the earliest of
	// arrival[k:].
	lo, hi []float64
}

// newDates makes a shard's dates from its lists (values ascending),
// every time moved by shift seconds onto the common timeline.
func newDates(values []int64, send, arrival []float64, shift float64) dates {
	n := len(values)
	d := dates{usable: true, values: values, send: make([]float64, n), arrival: make([]float64, n), lo: make([]float64, n), hi: make([]float64, n)}
	for i := range n {
		d.send[i], d.arrival[i] = send[i]+shift, arrival[i]+shift
		d.lo[i] = d.send[i]
		if i > 0 {
			d.lo[i] = max(d.lo[i-1], d.send[i])
		}
	}
	for i := n - 1; i >= 0; i-- {
		d.hi[i] = d.arrival[i]
		if i < n-1 {
			d.hi[i] = min(d.hi[i+1], d.arrival[i])
		}
	}
	return d
}

// interval bounds the first instant the server's Date value was at least
// v: after lo (the latest send answered with an older value), no later
// than hi (the earliest arrival of an answer dated v or later). ok is
// false when the shard saw no value below v or none from v on.
func (d dates) interval(v int64) (lo, hi float64, ok bool) {
	k := sort.Search(len(d.values), func(i int) bool { return d.values[i] >= v })
	if k == 0 || k == len(d.values) {
		return 0, 0, false
	}
	return d.lo[k-1], d.hi[k], true
}

// check counts the changes of the Date value the shard saw, and fails
// when its own answers contradict one clock: a request answered with an
// older value sent after an answer with a newer one arrived.
func (d dates) check() (int, error) {
	for k := 1; k < len(d.values); k++ {
		lo, hi, _ := d.interval(d.values[k])
		if lo >= hi {
			i := slices.Index(d.send, lo)
			j := k + slices.Index(d.arrival[k:], hi)
			return 0, fmt.Errorf("a request sent at %.3f s was answered with Date %s after an answer dated %s had arrived at %.3f s: "+
				"the Date values are not one clock's (several server processes or replicas with their own?)",
				lo, httpDate(d.values[i]), httpDate(d.values[j]), hi)
		}
	}
	return max(len(d.values)-1, 0), nil
}

// httpDate is Unix seconds v as a Date header writes it.
func httpDate(v int64) string { return time.Unix(v, 0).UTC().Format(http1123) }

const http1123 = "Mon, 02 Jan 2006 15:04:05 GMT"

// offsetBound bounds a's timeline minus b's (the same instant's reading
// on each) from every change of the Date value both saw: the change
// happened in (lo_a, hi_a] on a's timeline and (lo_b, hi_b] on b's, so
// the offset lies in (lo_a − hi_b, hi_a − lo_b); the bounds of all the
// changes intersect. It returns the bound (exclusive ends, seconds) and
// the number of changes, or an error saying why there is none.
func offsetBound(a, b dates) (low, high float64, n int, err error) {
	union := slices.Concat(a.values, b.values)
	slices.Sort(union)
	union = slices.Compact(union)
	low, high = math.Inf(-1), math.Inf(1)
	for _, v := range union {
		loA, hiA, okA := a.interval(v)
		loB, hiB, okB := b.interval(v)
		if !okA || !okB {
			continue
		}
		low, high, n = max(low, loA-hiB), min(high, hiA-loB), n+1
	}
	switch {
	case n == 0:
		return 0, 0, 0, fmt.Errorf("no change of the Date value was seen by both (a run shorter than a second, or too few requests)")
	case low >= high:
		return 0, 0, n, fmt.Errorf("the %d Date changes both saw give offsets that exclude each other: the Date values are not one clock's "+
			"(several server processes or replicas with their own?), or the clocks ran at different rates", n)
	}
	return low, high, n, nil
}

// Bound is what the server's Date headers bound of one shard's timeline
// against shard 0's.
type Bound struct {
	// OK tells that Low and High bound the shard's timeline minus shard
	// 0's (the same instant's reading on each; exclusive ends). Why says
	// why not otherwise.
	OK        bool
	Low, High time.Duration
	Why       string
	// Seen counts the changes of the Date value the shard saw; Shared
	// those that shard 0 saw too, which made the bound.
	Seen, Shared int
	// Correction is how far the shard's timeline was moved back (the
	// middle of the bound, with merge --correct-skew).
	Correction time.Duration
}

// Middle is the middle of the bound.
func (b Bound) Middle() time.Duration { return b.Low + (b.High-b.Low)/2 }

// Widest is the largest offset the bound allows, in magnitude.
func (b Bound) Widest() time.Duration { return max(b.Low.Abs(), b.High.Abs()) }

// boundOffsets bounds every shard's timeline against shard 0's from their
// Date observations (shards in index order, their anchors as read).
func boundOffsets(shards []*shard) []Bound {
	ref := shards[0].startWall
	obs := make([]dates, len(shards))
	bounds := make([]Bound, len(shards))
	for i, s := range shards {
		b := &bounds[i]
		d := s.dates
		switch {
		case d == nil:
			b.Why = fmt.Sprintf("shard %d's result has no %s (written by an older gobench)", s.index, "server_dates")
		case len(d.LastSend) != len(d.Values) || len(d.FirstArrival) != len(d.Values) || !ascending(d.Values):
			b.Why = fmt.Sprintf("shard %d's server_dates lists do not match", s.index)
		case d.Responses == 0:
			b.Why = fmt.Sprintf("shard %d got no answer", s.index)
		case d.Undated == d.Responses:
			b.Why = fmt.Sprintf("the server sent shard %d no Date header", s.index)
		default:
			obs[i] = newDates(d.Values, d.LastSend, d.FirstArrival, s.startWall.Sub(ref).Seconds()-s.startClock)
			var err error
			if b.Seen, err = obs[i].check(); err != nil {
				obs[i].usable = false
				b.Why = fmt.Sprintf("shard %d: %v", s.index, err)
			}
		}
	}
	for i := range bounds {
		b := &bounds[i]
		switch {
		case b.Why != "":
		case i == 0:
			b.OK = true
		case !obs[0].usable:
			b.Why = "shard 0, the reference, has no usable Date observations: " + bounds[0].Why
		default:
			low, high, n, err := offsetBound(obs[i], obs[0])
			b.Shared = n
			if err != nil {
				b.Why = err.Error()
				continue
			}
			b.OK, b.Low, b.High = true, seconds(low), seconds(high)
		}
	}
	return bounds
}

// ascending reports whether every value is above the one before.
func ascending(v []int64) bool {
	for i := 1; i < len(v); i++ {
		if v[i] <= v[i-1] {
			return false
		}
	}
	return true
}

// seconds is s seconds as a Duration.
func seconds(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }
