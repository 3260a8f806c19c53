package main

import (
	"fmt"
	"math"
	"runtime"
	"strings"

	"github.com/gobench/gobench/tools/internal/benchrow"
)

// cpuTarget is the target for the client's CPU per event, at
// targetStreams streams. It was set against a bare epoll loop measured
// at bareAssumed µs on the same kind of machine, so it also asks
// for gobench within cpuTarget/bareAssumed (1.4) times that loop; the
// ratio rows show that half of the target, which a day's machine speed
// does not move.
const (
	cpuTarget     = 7.0
	bareAssumed   = 5.0
	targetStreams = 512
)

// figure is one CPU-per-event measurement: gobench's (with its progress
// display) or a reader's.
type figure struct {
	who  string // "gobench" or a reader's name
	mode string // gobench's progress display
	// engine is gobench's --client-engine.
	engine string
	c      int
	value  float64
}

// parseReaders reads -readers.
func parseReaders(s string) ([]string, error) {
	var out []string
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if _, ok := readerNames[name]; !ok {
			return nil, fmt.Errorf("-readers %q: not bare, uring or nethttp", name)
		}
		out = append(out, name)
	}
	return out, nil
}

// rowsOf turns the figures into rows: gobench's with its progress off (or
// its first display when off was not measured) and every reader's. Only
// gobench at targetStreams is judged; the others are for comparison.
func rowsOf(figs []figure) []benchrow.Row {
	mode := ""
	for _, f := range figs {
		if f.who == "gobench" && (mode == "" || f.mode == "off") {
			mode = f.mode
		}
	}
	shared := fmt.Sprintf("client and gobench sim share this %d-core machine", runtime.NumCPU())
	var rows []benchrow.Row
	for _, f := range figs {
		if f.who == "gobench" && f.mode != mode {
			continue
		}
		r := benchrow.Row{Group: "cpu", Value: math.Round(f.value*100) / 100, Unit: "µs/event", Target: "for comparison"}
		streams := fmt.Sprintf("%d streams", f.c)
		if f.c == 1 {
			streams = "1 stream"
		}
		switch f.who {
		case "gobench":
			r.Figure, r.Target = servedBy(f)+", "+streams, "for information"
			r.Note = fmt.Sprintf("serve CPU (minus a --dry-run) per token event, progress %s; %s", f.mode, shared)
			if f.c == targetStreams {
				met := f.value <= cpuTarget
				r.Target, r.Met = fmt.Sprintf("<= %g µs/event", cpuTarget), &met
			}
		default:
			r.Figure = readerNames[f.who] + ", " + streams
			r.Note = "the same streams in the same run, read and discarded, CPU measured as gobench's; " + shared
		}
		rows = append(rows, r)
	}
	return append(rows, ratioRows(figs, mode)...)
}

// ratioRows are gobench's figures at targetStreams over the bare epoll
// loop's in the same run, for information: what the client adds to the
// least a reader of the same streams spends on this machine.
func ratioRows(figs []figure, mode string) []benchrow.Row {
	bare := 0.0
	for _, f := range figs {
		if f.who == "bare" && f.c == targetStreams {
			bare = f.value
		}
	}
	if bare <= 0 {
		return nil
	}
	var rows []benchrow.Row
	for _, f := range figs {
		if f.who != "gobench" || f.mode != mode || f.c != targetStreams {
			continue
		}
		rows = append(rows, benchrow.Row{Group: "cpu", Figure: fmt.Sprintf("%s / bare epoll loop, %d streams", servedBy(f), targetStreams),
			Value: math.Round(f.value/bare*100) / 100, Unit: "×",
			Target: fmt.Sprintf("for information (target %g / %g = %.1f×)", cpuTarget, bareAssumed, cpuTarget/bareAssumed),
			Note:   "gobench's figure over the bare epoll loop's, both from this run"})
	}
	return rows
}

// appendRows appends the figures' rows to path (each figure the median
// of its repeats): those of the watching displays when they were measured,
// else the progress display's and the readers'.
func appendRows(path string, figs []figure, repeat int) error {
	figs = medians(figs)
	if watching(figs) {
		return benchrow.Append(path, watchRows(figs, repeat))
	}
	return benchrow.Append(path, rowsOf(figs))
}

// servedBy names gobench's command line of a figure: its engine flag
// unless the engine is the default.
func servedBy(f figure) string {
	if f.engine != "" && f.engine != "net/http" {
		return "gobench serve --client-engine " + f.engine
	}
	return "gobench serve"
}
