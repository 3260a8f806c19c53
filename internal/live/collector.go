package live

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gobench/gobench/internal/metrics"
)

// Collector keeps one run's figures for the live view: counters and
// histograms that the request goroutines add to with atomic operations
// only, read by one reader (Window) a few times a second.
type Collector struct {
	info  Info
	start time.Time
	// The counters: requests released by the schedule, sent, come back,
	// failed; the output tokens of the successful ones.
	released, sent, done, failed, tokens atomic.Int64
	// The histograms of the successful requests' TTFT, ITLs and E2EL, and
	// of the requests' schedule lags.
	ttft, itl, e2el, lag Hist
	// failures counts the failures by kind (string → *atomic.Int64): a new
	// kind allocates once, the failures of a known kind do not.
	failures sync.Map
	// The server's state gauges as float64 bits, and the time of their
	// scrape in nanoseconds since start (0: none yet).
	running, waiting, kv, serverAt atomic.Uint64
}

// NewCollector starts the collector of a run that starts now.
func NewCollector(info Info) *Collector {
	return &Collector{info: info, start: time.Now()}
}

// Info is what the run told of itself.
func (c *Collector) Info() Info { return c.info }

// Released counts a released request and its schedule lag.
func (c *Collector) Released(lag float64) {
	c.released.Add(1)
	c.lag.Add(lag)
}

// Sent counts a request being sent.
func (c *Collector) Sent() { c.sent.Add(1) }

// Finished counts a request that came back: a success's latencies and
// tokens, a failure's kind.
func (c *Collector) Finished(out *metrics.Output, failure string) {
	if out.Success {
		c.tokens.Add(int64(OutputTokens(out)))
		c.ttft.Add(out.TTFT)
		c.e2el.Add(out.Latency)
		for _, v := range out.ITL {
			c.itl.Add(v)
		}
	} else {
		c.failed.Add(1)
		n, ok := c.failures.Load(failure)
		if !ok {
			n, _ = c.failures.LoadOrStore(failure, new(atomic.Int64))
		}
		n.(*atomic.Int64).Add(1)
	}
	c.done.Add(1)
}

// Server keeps the server's state gauges of the last scrape.
func (c *Collector) Server(running, waiting, kvUsage float64) {
	c.running.Store(math.Float64bits(running))
	c.waiting.Store(math.Float64bits(waiting))
	c.kv.Store(math.Float64bits(kvUsage))
	c.serverAt.Store(uint64(max(1, time.Since(c.start))))
}

// End does nothing: the reader stops reading.
func (c *Collector) End() {}

// Failure is one kind of failure and how many requests failed so.
type Failure struct {
	Kind  string
	Count int64
}

// failureList is the failures by kind, the most frequent first (ties by
// name, so that a frame does not flicker).
func (c *Collector) failureList() []Failure {
	var out []Failure
	c.failures.Range(func(k, v any) bool {
		out = append(out, Failure{Kind: k.(string), Count: v.(*atomic.Int64).Load()})
		return true
	})
	slices.SortFunc(out, func(a, b Failure) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Kind, b.Kind))
	})
	return out
}

// targetAt is how many requests the schedule released by elapsed seconds
// (-1 when the run has no schedule known ahead).
func (c *Collector) targetAt(elapsed float64) int64 {
	if c.info.Offsets == nil {
		return -1
	}
	return int64(sort.SearchFloat64s(c.info.Offsets, math.Nextafter(elapsed, math.Inf(1))))
}
