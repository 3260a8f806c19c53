// Package liveview draws a run while it runs on a terminal (stderr), in
// place of the progress bar: the schedule's target beside the achieved
// rates, the requests in flight and queued at the client, rolling TTFT,
// ITL and E2EL percentiles over the last 10 s and since the start, the
// output token rate, the failures by kind, the schedule lag, the server's
// state when its /metrics is read, and, in a sweep or a set of runs, the
// points done.
//
// It is plain ANSI: a frame is redrawn in place (cursor up, erase down)
// at most four times a second, the cursor hidden meanwhile; the terminal's
// modes are never changed, so an exit however abrupt leaves it usable, and
// the end of a run erases the frame and leaves the run's tqdm-like bar
// line, after which vLLM's block prints as it does after tqdm's bar.
package liveview

import (
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gobench/gobench/internal/live"
)

// Refresh is the time between two frames: at most four a second.
const Refresh = 250 * time.Millisecond

// The ANSI sequences the view writes.
const (
	hideCursor = "\x1b[?25l"
	showCursor = "\x1b[?25h"
	eraseDown  = "\x1b[J"
)

// View draws each run of a command on w, a terminal; it is a
// live.Watcher. Its runs come one after the other.
type View struct {
	w io.Writer
	// mu guards what the runs' drawing goroutines and Close share.
	mu   sync.Mutex
	runs int
	// planned is the number of runs the command plans (0: one, or not
	// known).
	planned int
	done    []Summary
	hidden  bool
	// cur is the run being drawn (nil between runs).
	cur *viewRun
}

// New is the view of the runs drawn on w.
func New(w io.Writer) *View { return &View{w: w} }

// Plan tells the view how many runs the command plans.
func (v *View) Plan(runs int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.planned = runs
}

// Draws is true: the view takes the progress bar's place.
func (v *View) Draws() bool { return true }

// Watch starts drawing a run.
func (v *View) Watch(info live.Info) live.Run {
	v.mu.Lock()
	v.runs++
	r := &viewRun{Collector: live.NewCollector(info), v: v, n: v.runs, of: v.planned, done: append([]Summary(nil), v.done...),
		quit: make(chan struct{}), exited: make(chan struct{})}
	v.cur = r
	v.mu.Unlock()
	r.win = live.NewWindow(r.Collector)
	go r.loop()
	return r
}

// Close shows the cursor again if a run left it hidden (a command that
// ends without ending its run).
func (v *View) Close() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.hidden {
		_, _ = io.WriteString(v.w, showCursor)
		v.hidden = false
	}
}

// Others is a writer for what others write on the view's terminal while
// it draws (an interrupt's message, a warning): the frame is erased
// first, so the text stands where the frame stood instead of being drawn
// over, and the next frame comes below it. Writes to w go through it.
func (v *View) Others(w io.Writer) io.Writer { return others{v: v, w: w} }

// others is View.Others' writer.
type others struct {
	v *View
	w io.Writer
}

// Write erases the frame, if one is drawn, and writes p.
func (o others) Write(p []byte) (int, error) {
	o.v.mu.Lock()
	defer o.v.mu.Unlock()
	if r := o.v.cur; r != nil && r.lines > 0 {
		_, _ = io.WriteString(o.v.w, r.erase())
		r.lines, r.last = 0, ""
	}
	return o.w.Write(p)
}

// viewRun is one run being drawn: the collector the requests feed, and
// the goroutine that reads it and draws.
type viewRun struct {
	*live.Collector
	v            *View
	n, of        int
	done         []Summary
	win          *live.Window
	quit, exited chan struct{}
	once         sync.Once
	// lines is the height of the frame on the screen (0: none drawn) and
	// last the frame; View.mu guards them.
	lines int
	last  string
}

// loop draws a frame every Refresh until End, when a frame changed.
func (r *viewRun) loop() {
	defer close(r.exited)
	t := time.NewTicker(Refresh)
	defer t.Stop()
	for {
		select {
		case <-r.quit:
			return
		case <-t.C:
		}
		lines := Frame(r.win.Read(), Runs{Run: r.n, Of: r.of}, r.done)
		r.draw(strings.Join(lines, "\n")+"\n", len(lines))
	}
}

// erase is the sequence that takes the cursor back to the frame's first
// line and erases it and what is below.
func (r *viewRun) erase() string {
	if r.lines == 0 {
		return ""
	}
	return "\r\x1b[" + strconv.Itoa(r.lines) + "A" + eraseDown
}

// draw redraws the frame of n lines in place of the last one, with the
// cursor hidden; a frame like the last is not redrawn.
func (r *viewRun) draw(frame string, n int) {
	r.v.mu.Lock()
	defer r.v.mu.Unlock()
	if frame == r.last {
		return
	}
	s := r.erase() + frame
	if !r.v.hidden {
		s = hideCursor + s
		r.v.hidden = true
	}
	_, _ = io.WriteString(r.v.w, s)
	r.last, r.lines = frame, n
}

// End stops drawing, erases the frame, leaves the run's bar line and
// shows the cursor; the run joins the points done.
func (r *viewRun) End() {
	r.once.Do(func() {
		close(r.quit)
		<-r.exited
		f := r.win.Read()
		s := Summary{Run: r.n, Bar: barLine(f), Label: f.Info.Label, Rate: f.Info.RequestRate, MaxConcurrency: f.Info.MaxConcurrency,
			Done: f.Done, Failed: f.Failed, Reqs: f.All.Done, Tokens: f.All.Tokens, E2EL99: f.E2EL[1].P99}
		if secs := f.Elapsed.Seconds(); secs > 0 {
			s.Reqs = float64(f.Done-f.Failed) / secs
		}
		r.v.mu.Lock()
		defer r.v.mu.Unlock()
		_, _ = io.WriteString(r.v.w, r.erase()+s.Bar+"\n"+showCursor)
		r.lines, r.v.hidden, r.v.cur = 0, false, nil
		r.v.done = append(r.v.done, s)
	})
}
