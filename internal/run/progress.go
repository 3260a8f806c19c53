package run

import (
	"io"
	"sync/atomic"
	"time"

	"github.com/gobench/gobench/internal/metrics"
)

// DefaultProgressInterval is the time between two progress lines when
// stderr is not a terminal (--progress-interval): often enough that a CI
// log shows a run is alive, seldom enough that an hour adds 720 lines.
const DefaultProgressInterval = 5 * time.Second

// firstProgressLine is when the first progress line comes (or after the
// interval, when shorter): early enough to show that requests come back,
// while a run shorter than that prints none.
const firstProgressLine = time.Second

// barRefresh is how often the terminal bar is redrawn while requests come
// back (tqdm's mininterval; vllm/benchmarks/serve.py@11dfa3169 keeps
// tqdm's defaults). When none came back since the last frame, only the
// clock moves, so the next frame waits for its second to turn: waking a
// mostly idle process costs about 250 µs of CPU on a small VM, 2.5 ms a
// second at 10 frames a second, while a slow run finishes a request or
// two a second.
const barRefresh = 100 * time.Millisecond

// progress shows how a run advances on stderr: vLLM's tqdm bar when stderr
// is a terminal, else a line every interval (progressLine) for CI logs.
// Neither is drawn with --disable-tqdm.
//
// It never slows the requests: the request goroutines only add to atomic
// counters (no lock, no allocation, no write), and one goroutine of its own
// reads them and draws. A nil *progress is valid and does nothing.
type progress struct {
	// The counters the request goroutines add to: requests sent, come
	// back, failed, and the output tokens of the successful ones.
	started, done, failed, tokens atomic.Int64

	// What the drawing goroutine owns.
	w     io.Writer
	total int64
	// limit is --duration for a time-based run: its bar fills with the
	// time, since the requests it will send are not known ahead.
	limit    time.Duration
	desc     string
	terminal bool
	interval time.Duration
	start    time.Time
	quit     chan struct{}
	exited   chan struct{}
	// bar is the terminal bar's layout.
	bar barLayout
	// ticks counts the goroutine's wake-ups to draw.
	ticks int
}

// newProgress starts showing the progress of total requests ("warmup" or
// "" as desc), over the time limit when positive (--duration), or returns
// nil when nothing is to be shown: --disable-tqdm, or stderr not a
// terminal and --progress-interval 0.
func newProgress(env Env, opts Options, total int, limit time.Duration, desc string) *progress {
	if opts.DisableProgress || total <= 0 || (!env.Progress && opts.ProgressInterval <= 0) {
		return nil
	}
	p := &progress{w: env.Stderr, total: int64(total), limit: limit, desc: desc, terminal: env.Progress,
		interval: opts.ProgressInterval, bar: newBarLayout(barColumns), start: time.Now(), quit: make(chan struct{}), exited: make(chan struct{})}
	go p.loop()
	return p
}

// sent counts a request that is being sent (its concurrency slot taken).
func (p *progress) sent() {
	if p != nil {
		p.started.Add(1)
	}
}

// finished counts a request that came back, with its output tokens:
// usage.completion_tokens, or its token events when the server sent no
// usage (the result counts those with the tokenizer afterwards, which is
// too costly here).
func (p *progress) finished(out *metrics.Output) {
	if p == nil {
		return
	}
	if out.Success {
		n := out.OutputTokens
		if n <= 0 {
			n = 1 + len(out.ITL)
		}
		p.tokens.Add(int64(n))
	} else {
		p.failed.Add(1)
	}
	p.done.Add(1)
}

// finish stops drawing and draws the end: the bar's last frame, or a last
// line when the run lasted long enough to print lines (an interrupted run
// shows where it stopped).
func (p *progress) finish() {
	if p == nil {
		return
	}
	close(p.quit)
	<-p.exited
	s := p.snapshot()
	switch {
	case p.terminal:
		_, _ = io.WriteString(p.w, "\r"+p.bar.frame(p.desc, s)+"\x1b[K\n")
	case s.Elapsed >= p.firstLine():
		_, _ = io.WriteString(p.w, progressLine(p.desc, s)+"\n")
	}
}

// loop draws until finish: the bar every barRefresh (or each second when
// nothing came back), or a line at firstLine and then at every multiple of
// the interval since the start.
func (p *progress) loop() {
	defer close(p.exited)
	t := time.NewTimer(p.next(0, true))
	defer t.Stop()
	var last string
	var done int64 // at the last wake-up
	for {
		select {
		case <-p.quit:
			return
		case <-t.C:
		}
		s := p.snapshot()
		if p.terminal {
			// A frame like the last one is not redrawn.
			if f := p.bar.frame(p.desc, s); f != last {
				_, _ = io.WriteString(p.w, "\r"+f+"\x1b[K")
				last = f
			}
		} else {
			_, _ = io.WriteString(p.w, progressLine(p.desc, s)+"\n")
		}
		p.ticks++
		t.Reset(p.next(s.Elapsed, s.Done != done))
		done = s.Done
	}
}

// next is the wait, elapsed into the run, until the next frame or line;
// busy tells that requests came back since the last one.
func (p *progress) next(elapsed time.Duration, busy bool) time.Duration {
	switch {
	case p.terminal && busy:
		return barRefresh
	case p.terminal:
		return max(barRefresh, time.Second-elapsed%time.Second)
	}
	if p.ticks == 0 {
		return p.firstLine() - elapsed
	}
	return (elapsed/p.interval+1)*p.interval - elapsed
}

// firstLine is when the first line is due.
func (p *progress) firstLine() time.Duration { return min(firstProgressLine, p.interval) }

// snapshot reads the counters. They are read one at a time, so a request
// finishing meanwhile may be missed by one of them until the next read;
// done is read before sent, so that running is never negative.
func (p *progress) snapshot() progressSnapshot {
	done := p.done.Load()
	return progressSnapshot{Total: p.total, Limit: p.limit, Done: done, Failed: p.failed.Load(),
		Running: p.started.Load() - done, Tokens: p.tokens.Load(), Elapsed: time.Since(p.start)}
}
