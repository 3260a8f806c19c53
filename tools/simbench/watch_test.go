package main

import (
	"strings"
	"testing"
)

// TestWatchModes: the watching displays parse, and their rows are the
// medians of the repeats beside the progress off's.
func TestWatchModes(t *testing.T) {
	modes, err := parseModes("off,live,metrics,live+metrics")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		i                  int
		tty, size, metrics bool
	}{{0, false, false, false}, {1, true, true, false}, {2, false, false, true}, {3, true, true, true}} {
		m := modes[tc.i]
		if m.tty != tc.tty || m.size != tc.size || m.metrics != tc.metrics {
			t.Errorf("%s: tty %v size %v metrics %v", m.name, m.tty, m.size, m.metrics)
		}
	}
	if got := len(repeated(modes, 3)); got != 12 {
		t.Errorf("3 repeats of 4 displays = %d runs", got)
	}
	figs := []figure{
		{who: "gobench", mode: "off", c: 512, value: 5}, {who: "gobench", mode: "live", c: 512, value: 6},
		{who: "gobench", mode: "off", c: 512, value: 7}, {who: "gobench", mode: "live", c: 512, value: 5.5},
		{who: "gobench", mode: "off", c: 512, value: 6}, {who: "gobench", mode: "live", c: 512, value: 9},
	}
	rows := watchRows(medians(figs), 3)
	if len(rows) != 1 || rows[0].Value != 6 || !strings.HasPrefix(rows[0].Note, "+0.00 µs/event against the progress off (6.00)") {
		t.Errorf("rows = %+v", rows)
	}
	if !watching(figs) || watching(figs[:1]) {
		t.Error("watching should tell the watching displays")
	}
}
