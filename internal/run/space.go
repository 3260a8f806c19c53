package run

import (
	"fmt"
	"math"
	"strings"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/report"
)

// What a result file may take, on the generous side. Measured with the
// built-in tokenizer against the simulator: 13 KB without --save-detailed
// whatever the count (the figures, the arguments, the server view), and
// with it 3.4 MB for 1,000 requests of 128 output tokens, that is 26 bytes
// per output token (its gap and its text) and 90 per request besides.
// The margins cover texts that escape to \uXXXX, long errors, the
// server's own per-request times and the server view's timeline.
const (
	// resultBase is a result without its per-request lists.
	resultBase = 64 << 10
	// perRequest is what every request adds even without
	// --save-detailed (the server's prompt and decode times, when it
	// reports them).
	perRequest = 64
	// detailedPerRequest and detailedPerToken are what --save-detailed
	// adds per request and per output token.
	detailedPerRequest = 1 << 10
	detailedPerToken   = 64
	// unknownOutputLen stands for a request whose output length the plan
	// does not know (the server decides where it stops).
	unknownOutputLen = 2048
	// timelineRow is one sample of the server view's gauge timeline.
	timelineRow = 128
)

// resultSize estimates the result file's size, generously, from what the
// plan knows: the requests and their output lengths, --save-detailed, and
// the scheduled span, which bounds the server view's timeline from below.
func (p *Plan) resultSize() uint64 {
	o := &p.Options
	size := uint64(resultBase) + uint64(len(p.jobs))*perRequest
	if o.SaveDetailed {
		for _, j := range p.jobs {
			out := uint64(unknownOutputLen)
			if j.req.OutputLen > 0 {
				out = uint64(j.req.OutputLen)
			}
			size += detailedPerRequest + out*detailedPerToken
		}
	}
	if n := len(p.Offsets); n > 0 && o.MetricsInterval > 0 && !o.NoServerMetrics {
		span := p.Offsets[n-1] / o.MetricsInterval.Seconds()
		if span > 0 && span < math.MaxInt32 {
			size += uint64(span+1) * timelineRow
		}
	}
	return size
}

// checkSpace refuses, before anything is sent, a run whose result may not
// fit in the free space of its directory: the run would be measured and
// then lost to a full disk.
func (p *Plan) checkSpace() error {
	s := p.pending
	if s == nil {
		return nil
	}
	need := p.resultSize()
	if s.pytorch != nil {
		need += resultBase // its records are a few per metric
	}
	dirFlag := "--result-dir"
	if strings.Contains(p.Options.ResultFilename, "/") {
		dirFlag = "--result-filename"
	}
	what := fmt.Sprintf("the result of %d requests", len(p.jobs))
	if p.Options.SaveDetailed {
		what += " with --save-detailed"
	}
	return spaceFor(need, what, report.FileDir(fileOptions(&p.Options)), dirFlag, func() (uint64, error) { return s.free, s.freeErr })
}

// spaceFor is checkSpace's decision: nil when free says there is room for
// need bytes, or cannot tell (the save's own errors and its fallback copy
// remain); else an error naming the directory, the flag that chose it,
// both sizes and what to do.
func spaceFor(need uint64, what, dir, flag string, free func() (uint64, error)) error {
	avail, err := free()
	if err != nil || avail >= need {
		return nil //nolint:nilerr // an unknown free space is no reason to refuse
	}
	if dir == "" {
		dir = "."
	}
	return exitcode.Usage(fmt.Errorf("argument %s: the result cannot be saved: %s has %s free, and %s may take up to %s; "+
		"free some space there or choose another %s", flag, dir, sizeText(avail), what, sizeText(need), flag))
}

// sizeText is a size in bytes as people read it: 512 B, 60 KiB, 3.2 MiB.
func sizeText(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/unit, 0
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	suffix := []string{"KiB", "MiB", "GiB", "TiB", "PiB"}[i]
	if v < 10 {
		return fmt.Sprintf("%.1f %s", v, suffix)
	}
	return fmt.Sprintf("%.0f %s", v, suffix)
}
