package tqdm

import (
	"testing"
	"time"
)

// TestFill: tqdm's fill in eighths of a cell (tqdm's Bar: full blocks,
// then the partial block of the remainder, then blanks).
func TestFill(t *testing.T) {
	for _, tc := range []struct {
		pct   float64
		cells int
		want  string
	}{
		{0, 4, "    "},
		{0.5, 5, "██▌  "},
		{0.12, 25, "███                      "},
		{1, 3, "███"},
		{1.7, 3, "███"},
		{-1, 2, "  "},
	} {
		if got := Fill(tc.pct, tc.cells); got != tc.want {
			t.Errorf("Fill(%v, %d) = %q, want %q", tc.pct, tc.cells, got, tc.want)
		}
	}
}

// TestClock: tqdm's format_interval.
func TestClock(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "00:00", 59900 * time.Millisecond: "00:59",
		8 * time.Minute: "08:00", 3723 * time.Second: "1:02:03"} {
		if got := Clock(d); got != want {
			t.Errorf("Clock(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestShare: by count, by time, and the edges.
func TestShare(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		name           string
		done, total    int64
		elapsed, limit time.Duration
		pct            float64
		eta, count     string
	}{
		// 8 s for 120, so 58.7 s for the 880 left.
		{"by count", 120, 1000, 8 * s, 0, 0.12, "00:58", "120/1000"},
		{"nothing back", 0, 3, s, 0, 0, "?", "0/3"},
		{"past the plan", 5, 4, s, 0, 1, "?", "5/4"},
		{"by time", 12, 10, 8 * s, 40 * s, 0.2, "00:32", "12 done"},
		{"past its time", 12, 10, 8 * s, 4 * s, 1, "00:00", "12 done"},
	} {
		pct, eta, count := Share(tc.done, tc.total, tc.elapsed, tc.limit)
		if pct != tc.pct || eta != tc.eta || count != tc.count {
			t.Errorf("%s: %v %q %q, want %v %q %q", tc.name, pct, eta, count, tc.pct, tc.eta, tc.count)
		}
	}
}
