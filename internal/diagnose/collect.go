package diagnose

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	sm "github.com/gobench/gobench/internal/servermetrics"
)

// Defaults of a live collection.
const (
	// DefaultWindow is the time between the two scrapes: long enough
	// for a few hundred requests on a busy server, short enough to wait.
	DefaultWindow = 60 * time.Second
	// DefaultInterval is how often the state gauges are sampled inside
	// the window. Each sample is one GET /metrics, which vLLM's API server
	// renders in a few milliseconds: every 5 s costs it well under 1 %.
	DefaultInterval = 5 * time.Second
	// DefaultScrapeTimeout bounds each scrape, as vLLM's own scrape
	// around a benchmark is bounded (fetch_spec_decode_metrics).
	DefaultScrapeTimeout = 10 * time.Second
)

// Source is one /metrics page: its name for messages (a URL without
// credentials) and the call that fetches it (serverapi.Client.Metrics).
type Source struct {
	Name   string
	Scrape func(ctx context.Context) ([]byte, error)
}

// ScrapeError is a source that did not answer a scrape.
type ScrapeError struct {
	Source string
	Err    error
}

// Error names the source and why its scrape failed.
func (e *ScrapeError) Error() string { return fmt.Sprintf("scrape %s: %v", e.Source, e.Err) }

// Unwrap returns the scrape's error.
func (e *ScrapeError) Unwrap() error { return e.Err }

// Collector scrapes every source, waits the window while sampling the
// state gauges (with one progress line per sample), and scrapes again.
// Its clock, sleep and output are injected, so that tests run it in
// milliseconds.
type Collector struct {
	Sources []Source
	// Window is the time between the two scrapes (0: DefaultWindow).
	Window time.Duration
	// Interval is how often the gauges are sampled inside the window
	// (0: DefaultInterval).
	Interval time.Duration
	// Timeout bounds each scrape (0: DefaultScrapeTimeout).
	Timeout time.Duration
	// Model narrows the state samples to one model ("" reads the only
	// one, or all when the server serves several).
	Model string
	// Now is the clock (nil: time.Now); Sleep waits d or until ctx ends
	// (nil: a timer).
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// Progress receives the progress lines (nil: none).
	Progress io.Writer
	// Stop, when closed, ends the window early: the second scrape is
	// taken at once and the window is what it was (an interrupt).
	Stop <-chan struct{}
}

// Collection is a collected window: the Input to diagnose and when its
// two scrapes were taken.
type Collection struct {
	Input
	StartedAt, EndedAt time.Time
}

// Collect scrapes the window. A source that fails the first or the last
// scrape is a *ScrapeError; a failed sample inside the window only loses
// that sample.
func (c *Collector) Collect(ctx context.Context) (*Collection, error) {
	c.defaults()
	col := &Collection{Input: Input{Sources: make([]string, len(c.Sources))}}
	for i, s := range c.Sources {
		col.Sources[i] = s.Name
	}
	col.StartedAt = c.Now()
	var err error
	if col.Start, err = c.scrapeAll(ctx); err != nil {
		return nil, err
	}
	c.progressf("Scraped %s; sampling the gauges every %v for %v (Ctrl-C ends the window early).\n",
		plural(len(c.Sources), "source"), c.Interval, c.Window)
	stopped, err := c.wait(ctx, col)
	if err != nil {
		return nil, err
	}
	col.EndedAt = c.Now()
	if col.End, err = c.scrapeAll(ctx); err != nil {
		return nil, err
	}
	col.Seconds = col.EndedAt.Sub(col.StartedAt).Seconds()
	if stopped {
		col.Notes = append(col.Notes, fmt.Sprintf("the window was ended early, after %.1f s of %v", col.Seconds, c.Window))
	}
	return col, nil
}

func (c *Collector) defaults() {
	if c.Window <= 0 {
		c.Window = DefaultWindow
	}
	if c.Interval <= 0 {
		c.Interval = DefaultInterval
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultScrapeTimeout
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Sleep == nil {
		c.Sleep = sleep
	}
}

// wait sleeps through the window, sampling the gauges every Interval; it
// reports whether Stop ended it early. Only the caller's context ending
// is an error.
func (c *Collector) wait(ctx context.Context, col *Collection) (bool, error) {
	waitCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if c.Stop != nil {
		go func() {
			select {
			case <-c.Stop:
				cancel()
			case <-waitCtx.Done():
			}
		}()
	}
	for {
		elapsed := c.Now().Sub(col.StartedAt)
		if elapsed >= c.Window {
			return false, nil
		}
		err := c.Sleep(waitCtx, min(c.Interval, c.Window-elapsed))
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		if err != nil || waitCtx.Err() != nil {
			return true, nil
		}
		if c.Now().Sub(col.StartedAt) >= c.Window {
			return false, nil // the last scrape is the window's end
		}
		c.sample(waitCtx, col)
	}
}

// sample scrapes the gauges once and prints a progress line.
func (c *Collector) sample(ctx context.Context, col *Collection) {
	at := c.Now().Sub(col.StartedAt).Seconds()
	pages, err := c.scrapeAll(ctx)
	if err != nil {
		c.progressf("  %5.0f s  sample skipped: %v\n", at, err)
		return
	}
	st, err := StateOf(pages, c.Model, at)
	if err != nil {
		c.progressf("  %5.0f s  sample skipped: %v\n", at, err)
		return
	}
	col.States = append(col.States, st)
	c.progressf("  %5.0f s / %.0f s  running %s  waiting %s  KV cache %s\n", at, c.Window.Seconds(),
		count(st.Running), count(st.Waiting), pct(st.KVMax))
}

// StateOf reads the state gauges of one page per source, taken at
// seconds from the window's start, narrowed to model ("" reads the only
// model, or all when there are several). gobench serve samples its gauge
// timeline with it.
func StateOf(pages [][]byte, model string, at float64) (State, error) {
	scrapes := make([]*sm.Scrape, len(pages))
	for i, p := range pages {
		s, err := sm.Parse(p)
		if err != nil {
			return State{}, err
		}
		scrapes[i] = s
	}
	if m, err := ResolveModel(scrapes, model); err == nil {
		scrapes = narrow(scrapes, m)
	}
	return ReadState(sm.Sum(scrapes...), at), nil
}

// scrapeAll scrapes every source once, each bounded by Timeout.
func (c *Collector) scrapeAll(ctx context.Context) ([][]byte, error) {
	out := make([][]byte, len(c.Sources))
	for i, s := range c.Sources {
		sctx, cancel := context.WithTimeout(ctx, c.Timeout)
		data, err := s.Scrape(sctx)
		cancel()
		if err != nil {
			return nil, &ScrapeError{Source: s.Name, Err: c.timedOut(ctx, err)}
		}
		out[i] = data
	}
	return out, nil
}

// timedOut says "timed out after 10s" for a scrape that ran out of its
// own Timeout, as serve says of its calls, where the HTTP client's text
// is "context deadline exceeded"; other errors stay as they are.
func (c *Collector) timedOut(ctx context.Context, err error) error {
	if !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil || strings.Contains(err.Error(), "timed out after") {
		return err // not its Timeout, or already said (serverapi's TimeoutError)
	}
	return &timeoutError{after: c.Timeout, err: err}
}

// timeoutError is a scrape that ran out of --scrape-timeout.
type timeoutError struct {
	after time.Duration
	err   error
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("timed out after %v (--scrape-timeout)", e.after)
}
func (e *timeoutError) Unwrap() error { return e.err }

func (c *Collector) progressf(format string, a ...any) {
	if c.Progress != nil {
		fmt.Fprintf(c.Progress, format, a...)
	}
}

// sleep waits d, or until ctx ends (time.After's timer is collected
// once it is unreachable, since Go 1.23).
func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// savedPrefix starts the line gobench puts before a saved page: the
// source and the time of the scrape, so that two saved pages give their
// window's length. The Prometheus text format ignores such comments; it is
// removed before parsing, since OpenMetrics would not.
const savedPrefix = "# gobench-scrape:"

// Saved is a page as --save-scrapes writes it: one comment line with its
// source and time, then the page byte for byte.
func Saved(page []byte, source string, at time.Time) []byte {
	head := fmt.Sprintf("%s source=%s time=%s\n", savedPrefix, strings.ReplaceAll(source, " ", "%20"), at.UTC().Format(time.RFC3339Nano))
	return append([]byte(head), page...)
}

// ReadSaved splits a saved page into the page and its time; a page
// without gobench's line is returned as is, with ok false.
func ReadSaved(data []byte) (page []byte, at time.Time, ok bool) {
	line, rest, found := bytes.Cut(data, []byte("\n"))
	if !found || !bytes.HasPrefix(line, []byte(savedPrefix)) {
		return data, time.Time{}, false
	}
	for _, field := range strings.Fields(string(line[len(savedPrefix):])) {
		if v, ok := strings.CutPrefix(field, "time="); ok {
			if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
				return rest, t, true
			}
		}
	}
	return rest, time.Time{}, false
}

// WindowBetween is the length of the window between two saved pages'
// times, or 0 when either lacks one or they are not in order.
func WindowBetween(a, b time.Time) float64 {
	if a.IsZero() || b.IsZero() {
		return 0
	}
	return math.Max(0, b.Sub(a).Seconds())
}
