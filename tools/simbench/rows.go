package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
)

// cpuTarget is issue 15's target for the client's CPU per event, at
// targetStreams streams.
const (
	cpuTarget     = 7.0
	targetStreams = 512
)

// figure is one CPU-per-event measurement: gobench's (with its progress
// display) or a reader's.
type figure struct {
	who   string // "gobench" or a reader's name
	mode  string // gobench's progress display
	c     int
	value float64
}

// benchRow is one line of the bench table's rows file (the integrator's
// tools/benchtable joins every tool's rows).
type benchRow struct {
	Group  string  `json:"group"`
	Figure string  `json:"figure"`
	Value  float64 `json:"value"`
	Unit   string  `json:"unit"`
	Target string  `json:"target"`
	Met    *bool   `json:"met"`
	Note   string  `json:"note"`
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
			return nil, fmt.Errorf("-readers %q: not bare or nethttp", name)
		}
		out = append(out, name)
	}
	return out, nil
}

// rowsOf turns the figures into rows: gobench's with its progress off (or
// its first display when off was not measured) and every reader's. Only
// gobench at targetStreams is judged; the others are for comparison.
func rowsOf(figs []figure) []benchRow {
	mode := ""
	for _, f := range figs {
		if f.who == "gobench" && (mode == "" || f.mode == "off") {
			mode = f.mode
		}
	}
	shared := fmt.Sprintf("client and gobench sim share this %d-core machine", runtime.NumCPU())
	var rows []benchRow
	for _, f := range figs {
		if f.who == "gobench" && f.mode != mode {
			continue
		}
		r := benchRow{Group: "cpu", Value: math.Round(f.value*100) / 100, Unit: "µs/event", Target: "for comparison"}
		streams := fmt.Sprintf("%d streams", f.c)
		if f.c == 1 {
			streams = "1 stream"
		}
		switch f.who {
		case "gobench":
			r.Figure, r.Target = "gobench serve, "+streams, "for information"
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
	return rows
}

// appendRows appends the figures' rows to path, one JSON line each.
func appendRows(path string, figs []figure) error {
	var b []byte
	for _, r := range rowsOf(figs) {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		b = append(append(b, line...), '\n')
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("-rows: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("-rows %s: %w", path, err)
	}
	return f.Close()
}
