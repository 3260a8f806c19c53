// Package tqdm draws the pieces of tqdm's progress bar that vLLM's users
// know (the fill, the mm:ss clock, how far a run is), for serve's bar and
// the live view alike.
package tqdm

import (
	"fmt"
	"strings"
	"time"
)

// eighths are the block characters by eighths of a cell, blank first.
var eighths = []string{" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉", "█"}

// Fill draws the fraction pct (clamped to 0..1) of cells, in eighths of a
// cell.
func Fill(pct float64, cells int) string {
	n := int(min(max(pct, 0), 1) * float64(cells*8))
	var b strings.Builder
	for c := range cells {
		b.WriteString(eighths[min(max(n-8*c, 0), 8)])
	}
	return b.String()
}

// Clock is tqdm's clock: mm:ss, or h:mm:ss from an hour on.
func Clock(d time.Duration) string {
	secs := int64(d / time.Second)
	h, m, sec := secs/3600, secs/60%60, secs%60
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%02d", h, m, sec)
	}
	return fmt.Sprintf("%02d:%02d", m, sec)
}

// Share is how far a run is (0 to 1), the time left ("?" before anything
// came back) and its count ("done/total"). A time-based run (limit > 0,
// --duration) is measured by its time, and counts only what is done
// ("12 done"): how many requests it will send is not known ahead.
func Share(done, total int64, elapsed, limit time.Duration) (pct float64, eta, count string) {
	if limit > 0 {
		return min(float64(elapsed)/float64(limit), 1), Clock(max(limit-elapsed, 0)), fmt.Sprintf("%d done", done)
	}
	if total > 0 {
		pct = min(float64(done)/float64(total), 1)
	}
	eta = "?"
	if done > 0 && total >= done {
		eta = Clock(time.Duration(float64(elapsed) * float64(total-done) / float64(done)))
	}
	return pct, eta, fmt.Sprintf("%d/%d", done, total)
}
