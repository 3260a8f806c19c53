package run

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// barColumns is the width the terminal bar keeps within: stderr's width is
// not known here, and a frame wider than the terminal wraps, which "\r"
// cannot redraw.
const barColumns = 79

// barCells bounds the bar itself, as tqdm's is when the line has room.
const barCells = 25

// progressSnapshot is what one line or frame shows.
type progressSnapshot struct {
	// Total is the number of requests of the run; Done have come back,
	// Failed of them failed; Running are being sent or streamed.
	Total, Done, Failed, Running int64
	// Tokens are the output tokens of the successful requests.
	Tokens int64
	// Elapsed is the time since the run started; Limit is --duration (0
	// when the run is not time-based).
	Elapsed, Limit time.Duration
}

// rates are the successful requests and their output tokens per second
// since the start, as the result's request and output token throughputs
// count them (failures take time but count nothing).
func (s progressSnapshot) rates() (reqs, toks float64) {
	secs := s.Elapsed.Seconds()
	if secs <= 0 {
		return 0, 0
	}
	return float64(s.Done-s.Failed) / secs, float64(s.Tokens) / secs
}

// progressLine is the line printed every --progress-interval when stderr
// is not a terminal. Its shape is stable, for grep and for log parsers:
//
//	progress: 120/1000 done, 0 failed, 14.2 req/s, 1830 output tok/s, 64 running, 8.4 s
//
// (a warm-up's reads "warmup progress: ...").
func progressLine(desc string, s progressSnapshot) string {
	prefix := "progress:"
	if desc != "" {
		prefix = desc + " progress:"
	}
	reqs, toks := s.rates()
	return fmt.Sprintf("%s %d/%d done, %d failed, %.1f req/s, %.0f output tok/s, %d running, %.1f s",
		prefix, s.Done, s.Total, s.Failed, reqs, toks, s.Running, s.Elapsed.Seconds())
}

// barLayout is the room of the terminal bar's frames.
type barLayout struct {
	// columns bounds a frame's width.
	columns int
	// cells is the bar's width: it narrows when the numbers need its room
	// (and goes below 4 cells), and never widens again, so that the frames
	// of a run do not jitter.
	cells int
}

// newBarLayout is the layout of a bar of at most barCells in columns.
func newBarLayout(columns int) barLayout { return barLayout{columns: columns, cells: barCells} }

// frame is one frame of the terminal bar, in tqdm's layout with the
// failures and the output token rate added, at most l.columns wide:
//
//	warmup:  12%|███         | 120/1000, 0 failed [00:08<01:02, 14.2 req/s, 1830 tok/s]
func (l *barLayout) frame(desc string, s progressSnapshot) string {
	var head string
	if desc != "" {
		head = desc + ": "
	}
	pct, eta, count := s.share()
	head += fmt.Sprintf("%3d%%", int(pct*100))
	reqs, toks := s.rates()
	tail := fmt.Sprintf(" %s, %d failed [%s<%s, %.1f req/s, %.0f tok/s]",
		count, s.Failed, tqdmClock(s.Elapsed), eta, reqs, toks)
	line := head + tail
	l.cells = min(l.cells, l.columns-utf8.RuneCountInString(line)-2)
	if l.cells >= 4 {
		line = head + "|" + barFill(pct, l.cells) + "|" + tail
	}
	if utf8.RuneCountInString(line) > l.columns {
		line = string([]rune(line)[:l.columns])
	}
	return line
}

// share is how far the run is (0 to 1), the time left, and its count of
// requests: of the requests planned, or, for a time-based run, of its
// --duration, with the requests done so far.
func (s progressSnapshot) share() (pct float64, eta, count string) {
	if s.Limit > 0 {
		left := max(s.Limit-s.Elapsed, 0)
		return min(float64(s.Elapsed)/float64(s.Limit), 1), tqdmClock(left), fmt.Sprintf("%d done", s.Done)
	}
	eta = "?"
	if s.Total > 0 {
		pct = float64(s.Done) / float64(s.Total)
	}
	if s.Done > 0 {
		eta = tqdmClock(time.Duration(float64(s.Elapsed) * float64(s.Total-s.Done) / float64(s.Done)))
	}
	return pct, eta, fmt.Sprintf("%d/%d", s.Done, s.Total)
}

// partials are the block characters by eighths of a cell, the first a
// blank.
const partials = " ▏▎▍▌▋▊▉"

// barFill draws the fraction pct of cells, in eighths of a cell.
func barFill(pct float64, cells int) string {
	n := int(min(max(pct, 0), 1) * float64(cells*8))
	full, part := n/8, n%8
	fill := strings.Repeat("█", full)
	if full < cells {
		fill += string([]rune(partials)[part]) + strings.Repeat(" ", cells-full-1)
	}
	return fill
}

// tqdmClock formats d as tqdm does: mm:ss, or h:mm:ss from an hour on.
func tqdmClock(d time.Duration) string {
	secs := int64(d / time.Second)
	h, m, sec := secs/3600, secs/60%60, secs%60
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%02d", h, m, sec)
	}
	return fmt.Sprintf("%02d:%02d", m, sec)
}
