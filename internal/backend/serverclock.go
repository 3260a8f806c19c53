package backend

import (
	"cmp"
	"net/http"
	"slices"
	"sync"
)

// ServerClock records what the server's Date response headers (RFC 9110
// §6.6.1, whole seconds) show of the server's clock against the run's.
// gobench merge bounds the clock offset between shards with it: whatever
// the server (Go's net/http formats the time per response, uvicorn under
// vLLM caches the value and refreshes it about once a second), the Date
// value is a non-decreasing function of the server's time, so each change
// to a value v happens at one instant of the server's. A response dated
// before v was made after it was sent and before that instant; a response
// dated v or later was made at or after it and before its headers
// arrived. So every shard bounds that instant on its own clock, and two
// shards that bound the same instant bound the offset of their clocks.
//
// Observe costs one clock read, one map lookup and a short critical
// section per response; the memory is one DateSpan per distinct Date
// value (one per second of the run). A nil *ServerClock records nothing.
type ServerClock struct {
	mu sync.Mutex
	// last is the last Date text parsed and lastValue its instant, so
	// that a value is parsed once however many responses carry it.
	last      string
	lastValue int64
	dates     ServerDates
}

// ServerDates is what a run saw of the server's Date headers.
type ServerDates struct {
	// Responses counts the responses observed; Undated those without one
	// parseable Date header.
	Responses, Undated int
	// Spans holds one entry per distinct Date value, by value.
	Spans []DateSpan
}

// DateSpan is what the responses carrying one Date value show.
type DateSpan struct {
	// Value is the Date header's instant in Unix seconds.
	Value int64
	// LastSend is the latest send, and FirstArrival the earliest arrival
	// of the headers, of the responses dated Value, on the run's clock
	// (Client.Now, seconds).
	LastSend, FirstArrival float64
	// Responses counts them.
	Responses int
}

// Observe records resp's Date header: the request was sent at the clock
// reading sent and its headers had arrived by now(). A nil resp (the
// request failed before any answer) records nothing.
func (c *ServerClock) Observe(resp *http.Response, sent float64, now func() float64) {
	if c == nil || resp == nil {
		return
	}
	arrived := now()
	raw := resp.Header["Date"]
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dates.Responses++
	if len(raw) != 1 {
		c.dates.Undated++
		return
	}
	if raw[0] != c.last || c.last == "" {
		t, err := http.ParseTime(raw[0])
		if err != nil {
			c.dates.Undated++
			return
		}
		c.last, c.lastValue = raw[0], t.Unix()
	}
	c.add(c.lastValue, sent, arrived)
}

// add takes one response dated v into its span.
func (c *ServerClock) add(v int64, sent, arrived float64) {
	spans := c.dates.Spans
	i := len(spans) - 1
	if i < 0 || spans[i].Value != v {
		// Not the latest value: a new second, or an older or repeated
		// value from a server whose dates are not monotone.
		var found bool
		i, found = slices.BinarySearchFunc(spans, v, func(s DateSpan, v int64) int { return cmp.Compare(s.Value, v) })
		if !found {
			c.dates.Spans = slices.Insert(spans, i, DateSpan{Value: v, LastSend: sent, FirstArrival: arrived})
			c.dates.Spans[i].Responses = 1
			return
		}
	}
	s := &c.dates.Spans[i]
	s.LastSend, s.FirstArrival = max(s.LastSend, sent), min(s.FirstArrival, arrived)
	s.Responses++
}

// Dates returns a copy of what was observed so far.
func (c *ServerClock) Dates() ServerDates {
	if c == nil {
		return ServerDates{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.dates
	d.Spans = slices.Clone(d.Spans)
	return d
}
