package live

import (
	"math"
	"time"
)

// WindowSpan is the span of the view's rolling figures.
const WindowSpan = 10 * time.Second

// Figures is what the live view shows of a run at one moment.
type Figures struct {
	Info Info
	// Elapsed is the time since the run started.
	Elapsed time.Duration
	// The counters since the start; InFlight are sent and not back,
	// Queued released and waiting for a concurrency slot.
	Released, Sent, Done, Failed, Tokens, InFlight, Queued int64
	// Rates per second over the last WindowSpan (Recent) and since the
	// start (All). Target is the schedule's (NaN when not known ahead).
	Recent, All Rates
	// The latencies and the schedule lag over the last WindowSpan and
	// since the start.
	TTFT, ITL, E2EL, Lag [2]Quantiles
	// Failures are the failures by kind, the most frequent first.
	Failures []Failure
	// Server is the server's state at the last scrape of its /metrics.
	Server Server
}

// Rates are the request and token rates over a span.
type Rates struct {
	Target, Sent, Done, Tokens float64
}

// Server is the server's state gauges; Known is false until a scrape.
type Server struct {
	Known                     bool
	Running, Waiting, KVUsage float64
	// Age is the time since the scrape.
	Age time.Duration
}

// mark is the collector's counters and histograms at one second of the run.
type mark struct {
	second                     int64
	target, sent, done, tokens int64
	ttft, itl, e2el, lag       Counts
}

// Window reads a Collector for the live view: the figures since the start,
// and those of the last WindowSpan as the difference between now and a
// copy taken a span ago. It belongs to one reader goroutine.
type Window struct {
	c *Collector
	// marks holds a copy per second of the last WindowSpan, by second
	// modulo its length.
	marks [WindowSpan/time.Second + 1]mark
	now   mark
}

// NewWindow is the reader of c.
func NewWindow(c *Collector) *Window {
	w := &Window{c: c}
	for i := range w.marks {
		w.marks[i].second = -1
	}
	return w
}

// Read returns the figures now. It copies the histograms (a few thousand
// atomic loads), meant for a few reads a second.
func (w *Window) Read() Figures {
	c := w.c
	elapsed := time.Since(c.start)
	f := Figures{Info: c.info, Elapsed: elapsed, Failures: c.failureList(), Server: c.server(elapsed)}
	// done before sent, released last, so that in flight and queued are
	// never negative.
	n := &w.now
	n.done, f.Failed = c.done.Load(), c.failed.Load()
	n.sent = c.sent.Load()
	f.Released = c.released.Load()
	n.tokens = c.tokens.Load()
	n.target = c.targetAt(elapsed.Seconds())
	f.Done, f.Sent, f.Tokens = n.done, n.sent, n.tokens
	f.InFlight, f.Queued = n.sent-n.done, max(0, f.Released-n.sent)
	c.ttft.Read(&n.ttft)
	c.itl.Read(&n.itl)
	c.e2el.Read(&n.e2el)
	c.lag.Read(&n.lag)
	n.second = int64(elapsed / time.Second)
	base := w.base(n.second)
	f.All = rates(n, nil, elapsed.Seconds())
	span := elapsed.Seconds()
	if base != nil {
		span = elapsed.Seconds() - float64(base.second)
	}
	f.Recent = rates(n, base, span)
	f.TTFT = [2]Quantiles{quantiles(&n.ttft, base, func(m *mark) *Counts { return &m.ttft }), QuantilesOf(&n.ttft, nil)}
	f.ITL = [2]Quantiles{quantiles(&n.itl, base, func(m *mark) *Counts { return &m.itl }), QuantilesOf(&n.itl, nil)}
	f.E2EL = [2]Quantiles{quantiles(&n.e2el, base, func(m *mark) *Counts { return &m.e2el }), QuantilesOf(&n.e2el, nil)}
	f.Lag = [2]Quantiles{quantiles(&n.lag, base, func(m *mark) *Counts { return &m.lag }), QuantilesOf(&n.lag, nil)}
	w.keep(n)
	return f
}

// base is the copy a WindowSpan before second (nil before the span has
// passed: the recent figures are then those since the start).
func (w *Window) base(second int64) *mark {
	back := int64(WindowSpan / time.Second)
	if second < back {
		return nil
	}
	m := &w.marks[(second-back)%int64(len(w.marks))]
	if m.second != second-back {
		return nil // not read that second: the figures since the start
	}
	return m
}

// keep stores n as the copy of its second, once per second.
func (w *Window) keep(n *mark) {
	m := &w.marks[n.second%int64(len(w.marks))]
	if m.second != n.second {
		*m = *n
	}
}

// quantiles reads the quantiles of now since base (all when base is nil).
func quantiles(now *Counts, base *mark, of func(*mark) *Counts) Quantiles {
	if base == nil {
		return QuantilesOf(now, nil)
	}
	return QuantilesOf(now, of(base))
}

// rates divides the counts of now since base (nil: since the start) by
// secs.
func rates(now, base *mark, secs float64) Rates {
	var b mark
	if base != nil {
		b.target, b.sent, b.done, b.tokens = base.target, base.sent, base.done, base.tokens
	}
	if secs <= 0 {
		return Rates{Target: math.NaN()}
	}
	r := Rates{Sent: float64(now.sent-b.sent) / secs, Done: float64(now.done-b.done) / secs, Tokens: float64(now.tokens-b.tokens) / secs}
	r.Target = math.NaN()
	if now.target >= 0 {
		r.Target = float64(now.target-b.target) / secs
	}
	return r
}

// server reads the server's gauges.
func (c *Collector) server(elapsed time.Duration) Server {
	at := c.serverAt.Load()
	if at == 0 {
		return Server{}
	}
	return Server{Known: true, Running: math.Float64frombits(c.running.Load()), Waiting: math.Float64frombits(c.waiting.Load()),
		KVUsage: math.Float64frombits(c.kv.Load()), Age: max(0, elapsed-time.Duration(at))}
}
