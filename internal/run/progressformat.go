package run

import (
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/gobench/gobench/internal/tqdm"
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
	pct, eta, count := tqdm.Share(s.Done, s.Total, s.Elapsed, s.Limit)
	head += fmt.Sprintf("%3d%%", int(pct*100))
	reqs, toks := s.rates()
	tail := fmt.Sprintf(" %s, %d failed [%s<%s, %.1f req/s, %.0f tok/s]",
		count, s.Failed, tqdm.Clock(s.Elapsed), eta, reqs, toks)
	line := head + tail
	l.cells = min(l.cells, l.columns-utf8.RuneCountInString(line)-2)
	if l.cells >= 4 {
		line = head + "|" + tqdm.Fill(pct, l.cells) + "|" + tail
	}
	if utf8.RuneCountInString(line) > l.columns {
		line = string([]rune(line)[:l.columns])
	}
	return line
}
