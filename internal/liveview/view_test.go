package liveview

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gobench/gobench/internal/live"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/testserver"
)

// success is a request that came back with 4 tokens.
var success = metrics.Output{Success: true, TTFT: 0.05, Latency: 0.2, OutputTokens: 4, ITL: []float64{0.05, 0.05, 0.05}}

// feedFor sends and finishes a request every gap for d, in the bubble's
// virtual time.
func feedFor(r live.Run, d, gap time.Duration) {
	for range d / gap {
		r.Released(0)
		r.Sent()
		r.Finished(&success, "")
		time.Sleep(gap)
	}
}

// TestRefreshAtMostFourTimesASecond runs a view for 10 virtual seconds of
// requests coming back every 50 ms: it draws at most 4 frames a second,
// and the end leaves the bar line and the cursor shown.
func TestRefreshAtMostFourTimesASecond(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf testserver.LockedBuffer
		v := New(&buf)
		r := v.Watch(live.Info{Total: 200, Model: "m", Backend: "openai"})
		feedFor(r, 10*time.Second, 50*time.Millisecond)
		r.End()
		out := buf.String()
		frames := strings.Count(out, "gobench serve · run 1")
		if frames > 40 || frames < 30 {
			t.Errorf("%d frames in 10 s, want at most 4 a second (and a frame per refresh when the figures change)", frames)
		}
		if !strings.HasSuffix(out, "100%|"+strings.Repeat("█", barCells)+"| 200/200, 0 failed [00:10<00:00, 20.0 req/s]\n"+showCursor) {
			t.Errorf("the end is not the bar line and the cursor shown: %q", out[max(0, len(out)-200):])
		}
		if h, s := strings.Count(out, hideCursor), strings.Count(out, showCursor); h != 1 || s != 1 {
			t.Errorf("cursor hidden %d times, shown %d times; want once each", h, s)
		}
	})
}

// TestPointsDone: the second run of a view lists the first as done.
func TestPointsDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf testserver.LockedBuffer
		v := New(&buf)
		v.Plan(2)
		r := v.Watch(live.Info{Total: 10, RequestRate: 2})
		feedFor(r, time.Second, 100*time.Millisecond)
		r.End()
		r = v.Watch(live.Info{Total: 10, RequestRate: 4})
		feedFor(r, time.Second, 100*time.Millisecond)
		r.End()
		out := buf.String()
		for _, want := range []string{"gobench serve · run 2 of 2 (4.0 req/s)", "· 1 done", "done       run 1 (2.0 req/s): 10 ok, 0 failed"} {
			if !strings.Contains(out, want) {
				t.Errorf("the second run's frames do not show %q", want)
			}
		}
	})
}

// TestOthersWriteAboveTheFrame: a message written on the terminal while
// the view draws (an interrupt's) stays on the screen, above the frames
// that follow and the run's bar line.
func TestOthersWriteAboveTheFrame(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf testserver.LockedBuffer
		v := New(&buf)
		stderr := v.Others(&buf)
		r := v.Watch(live.Info{Total: 40, Model: "m", Backend: "openai"})
		feedFor(r, time.Second, 50*time.Millisecond)
		_, _ = stderr.Write([]byte("\nInterrupted: no new requests are sent.\n"))
		feedFor(r, time.Second, 50*time.Millisecond)
		r.End()
		var sc screen
		sc.write(buf.String())
		want := "\nInterrupted: no new requests are sent.\n100%|"
		if got := sc.text(); !strings.HasPrefix(got, want) || len(sc.unknown) > 0 {
			t.Errorf("the screen after the run:\n%s\nwant the message, then the bar line alone", got)
		}
	})
}
