package main

import (
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/gobench/gobench/tools/internal/benchrow"
)

// watchModes are the progress displays that watch a run: the live view,
// the endpoint for Prometheus, both. Their rows say what watching costs
// against the progress off.
var watchModes = []string{"live", "metrics", "live+metrics"}

// watchMode sets up m when it names a watching display.
func watchMode(m *progressMode) bool {
	switch m.name {
	case "live":
		m.tty, m.size = true, true
	case "metrics":
		m.metrics, m.args = true, []string{"--disable-tqdm"}
	case "live+metrics":
		m.tty, m.size, m.metrics = true, true, true
	default:
		return false
	}
	return true
}

// repeated is modes n times over, in turn (off, live, off, live, ...), so
// that a machine whose load drifts weighs on every display alike.
func repeated(modes []progressMode, n int) []progressMode {
	var out []progressMode
	for range n {
		out = append(out, modes...)
	}
	return out
}

// scrapeInterval is how often the endpoint is scraped, a Prometheus
// scrape_interval that watches a run closely.
const scrapeInterval = time.Second

// scrapeDuring picks a free loopback port for --metrics-listen and scrapes
// it every scrapeInterval until stop: what the endpoint costs includes its
// scrapes.
func scrapeDuring() (args []string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, fmt.Errorf("pick a port for --metrics-listen: %w", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(scrapeInterval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			if resp, err := http.Get("http://" + addr + "/metrics"); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
	}()
	return []string{"--metrics-listen", addr}, func() { close(quit); <-done }, nil
}

// medians keeps one figure per (who, display, engine, concurrency): the
// median of its repeats.
func medians(figs []figure) []figure {
	type key struct {
		who, mode, engine string
		c                 int
	}
	var order []key
	vals := map[key][]float64{}
	for _, f := range figs {
		k := key{f.who, f.mode, f.engine, f.c}
		if _, ok := vals[k]; !ok {
			order = append(order, k)
		}
		vals[k] = append(vals[k], f.value)
	}
	out := make([]figure, len(order))
	for i, k := range order {
		v := vals[k]
		slices.Sort(v)
		m := v[len(v)/2]
		if len(v)%2 == 0 {
			m = (v[len(v)/2-1] + v[len(v)/2]) / 2
		}
		out[i] = figure{who: k.who, mode: k.mode, engine: k.engine, c: k.c, value: m}
	}
	return out
}

// watching tells that the figures measure a watching display.
func watching(figs []figure) bool {
	return slices.ContainsFunc(figs, func(f figure) bool { return slices.Contains(watchModes, f.mode) })
}

// watchRows are the client's CPU per event with each watching display
// beside the progress off, at each concurrency (the medians of repeat
// alternated runs).
func watchRows(figs []figure, repeat int) []benchrow.Row {
	var rows []benchrow.Row
	for _, f := range figs {
		if f.who != "gobench" || !slices.Contains(watchModes, f.mode) {
			continue
		}
		off := math.NaN()
		for _, o := range figs {
			if o.who == "gobench" && o.mode == "off" && o.engine == f.engine && o.c == f.c {
				off = o.value
			}
		}
		r := benchrow.Row{Group: "watching", Figure: fmt.Sprintf("%s, %s, %d streams", servedBy(f), watchName(f.mode), f.c),
			Value: math.Round(f.value*100) / 100, Unit: "µs/event", Target: "for information"}
		r.Note = fmt.Sprintf("serve CPU per token event; median of %d, alternated with the progress off", repeat)
		if !math.IsNaN(off) {
			r.Note = fmt.Sprintf("%+.2f µs/event against the progress off (%s); medians of %d alternated runs",
				f.value-off, strconv.FormatFloat(off, 'f', 2, 64), repeat)
		}
		rows = append(rows, r)
	}
	return rows
}

// watchName says what a watching display is, for a figure's name.
func watchName(mode string) string {
	switch mode {
	case "live":
		return "live view (pseudo-terminal 120×40)"
	case "metrics":
		return "--metrics-listen scraped every second"
	}
	return "live view and --metrics-listen"
}
