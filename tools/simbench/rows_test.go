package main

import (
	"testing"

	"github.com/gobench/gobench/tools/internal/benchrow"
)

// TestRatioRows checks the rows of gobench's figures over the bare epoll
// loop's: one per engine at the target's streams, in the progress display
// the table shows, and none without a bare figure at those streams.
func TestRatioRows(t *testing.T) {
	figs := []figure{
		{who: "gobench", mode: "off", engine: "net/http", c: 512, value: 15.7},
		{who: "gobench", mode: "bar", engine: "net/http", c: 512, value: 16.9},
		{who: "gobench", mode: "off", engine: "epoll", c: 512, value: 9.45},
		{who: "gobench", mode: "off", engine: "epoll", c: 64, value: 20.1},
		{who: "bare", c: 64, value: 14.0},
		{who: "bare", c: 512, value: 7.62},
		{who: "uring", c: 512, value: 7.09},
	}
	byFigure := map[string]benchrow.Row{}
	for _, r := range rowsOf(figs) {
		byFigure[r.Figure] = r
	}
	tests := []struct {
		figure string
		want   float64 // 15.7/7.62 = 2.0604, 9.45/7.62 = 1.2402, to two decimals
	}{
		{"gobench serve / bare epoll loop, 512 streams", 2.06},
		{"gobench serve --client-engine epoll / bare epoll loop, 512 streams", 1.24},
	}
	for _, tt := range tests {
		r, ok := byFigure[tt.figure]
		if !ok {
			t.Errorf("no row %q", tt.figure)
			continue
		}
		if r.Value != tt.want || r.Unit != "×" || r.Met != nil {
			t.Errorf("%s: %v %s, met %v; want %v ×, not judged", tt.figure, r.Value, r.Unit, r.Met, tt.want)
		}
	}
	for _, name := range []string{"gobench serve, 512 streams", "gobench serve --client-engine epoll, 512 streams",
		"gobench serve --client-engine epoll, 64 streams", "bare epoll loop, 512 streams"} {
		if _, ok := byFigure[name]; !ok {
			t.Errorf("no row %q", name)
		}
	}
	ratios := 0
	for _, r := range byFigure {
		if r.Unit == "×" {
			ratios++
		}
	}
	if ratios != len(tests) {
		t.Errorf("%d ratio rows, want %d", ratios, len(tests))
	}
	if rows := ratioRows(figs[:4], "off"); rows != nil {
		t.Errorf("without a bare figure at 512 streams: %d ratio rows, want none", len(rows))
	}
}
