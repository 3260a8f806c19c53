package cli

import (
	"fmt"
	"net"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/gobench/gobench/internal/live"
	"github.com/gobench/gobench/internal/livemetrics"
	"github.com/gobench/gobench/internal/liveview"
	"github.com/gobench/gobench/internal/run"
)

// ServeLive is what watches serve's runs while they run: the live view
// on a terminal, and --metrics-listen's endpoint.
type ServeLive struct {
	// MetricsListen is --metrics-listen's address ("": no endpoint).
	MetricsListen string
	// watcher is what runServe started (nil: nothing watches).
	watcher live.Watcher
}

// liveFlags are the flags of ServeLive.
type liveFlags struct{ listen string }

// register defines --metrics-listen.
func (f *liveFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.listen, "metrics-listen", "", "Serve the client's live metrics for Prometheus at http://`ADDR`/metrics while the command runs "+
		"(host:port, e.g. 127.0.0.1:9464 or :9464; port 0 picks one, printed on stderr): TTFT, ITL, TPOT, E2EL histograms, request, failure and token counters, in-flight and queued gauges.")
}

// options checks the address's form; whether it can be listened on is
// known when the command starts.
func (f *liveFlags) options() (ServeLive, error) {
	if f.listen == "" {
		return ServeLive{}, nil
	}
	if _, port, err := net.SplitHostPort(f.listen); err != nil || port == "" {
		return ServeLive{}, argErrorf("argument --metrics-listen: %q is not host:port (e.g. 127.0.0.1:9464 or :9464)", f.listen)
	}
	return ServeLive{MetricsListen: f.listen}, nil
}

// The live view needs this room on the terminal: its frame is at most
// liveview.Columns wide and liveRows high (with the points done); a
// smaller terminal would wrap or scroll it, which redrawing in place
// cannot undo, so the progress bar is drawn instead.
const liveRows = 18

// start starts the watchers of serve's runs: the view when stderr is a
// terminal with room for it and --disable-tqdm is not given, the endpoint
// with --metrics-listen. stop ends them.
func (l *ServeLive) start(deps *Deps, disableProgress bool) (stop func(), err error) {
	var ws live.Watchers
	stops := []func(){}
	stop = func() {
		for _, s := range stops {
			s()
		}
	}
	if l.MetricsListen != "" {
		e := livemetrics.New()
		srv, err := livemetrics.Listen(l.MetricsListen, e)
		if err != nil {
			return nil, argErrorf("%v", err)
		}
		fmt.Fprintf(deps.Stderr, "Live metrics for Prometheus at %s\n", srv.URL())
		ws = append(ws, e)
		stops = append(stops, func() { _ = srv.Close() })
	}
	if l, ok := deps.Stderr.(*lockedWriter); ok && deps.IsTerminal && !disableProgress && roomForView(deps) {
		v := liveview.New(l.w)
		ws = append(ws, v)
		l.mu.Lock()
		tty := l.w
		l.w = v.Others(tty) // an interrupt's message or a warning is not drawn over
		l.mu.Unlock()
		stops = append(stops, func() {
			v.Close()
			l.mu.Lock()
			l.w = tty
			l.mu.Unlock()
		})
	}
	if len(ws) > 0 {
		l.watcher = ws
	}
	return stop, nil
}

// roomForView tells that stderr is a terminal of at least the view's
// columns and rows.
func roomForView(deps *Deps) bool {
	w := deps.Stderr
	if l, ok := w.(*lockedWriter); ok {
		l.mu.Lock()
		w = l.w
		l.mu.Unlock()
	}
	f, ok := w.(interface{ Fd() uintptr })
	if !ok {
		return false
	}
	cols, rows, err := term.GetSize(int(f.Fd()))
	return err == nil && cols >= liveview.Columns && rows >= liveRows
}

// plan tells the watchers how many runs the command plans.
func (l *ServeLive) plan(runs int) {
	if p, ok := l.watcher.(live.Planner); ok {
		p.Plan(runs)
	}
}

// env is env with the watchers of the runs.
func (l *ServeLive) env(env run.Env) run.Env {
	env.Live = l.watcher
	return env
}
