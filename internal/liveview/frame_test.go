package liveview

import (
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gobench/gobench/internal/golden"
	"github.com/gobench/gobench/internal/live"
)

// q is a row of quantiles: last 10 s, since the start.
func q(p50, p99, allP50, allP99 float64) [2]live.Quantiles {
	return [2]live.Quantiles{{N: 10, P50: p50, P99: p99}, {N: 100, P50: allP50, P99: allP99}}
}

// busy are the figures of a run halfway through, with failures and the
// server's state.
func busy() live.Figures {
	return live.Figures{
		Info:     live.Info{Label: "soak", Model: "Qwen/Qwen3-8B", Backend: "openai-chat", Total: 1000, Offsets: []float64{0}, RequestRate: 10, MaxConcurrency: 64},
		Elapsed:  42 * time.Second,
		Released: 462, Sent: 450, Done: 410, Failed: 3, Tokens: 76530, InFlight: 40, Queued: 12,
		Recent: live.Rates{Target: 10, Sent: 9.9, Done: 9.7, Tokens: 1830},
		All:    live.Rates{Target: 10, Sent: 10.7, Done: 9.8, Tokens: 1822.1},
		TTFT:   q(0.1204, 0.4802, 0.118, 0.5103), ITL: q(0.0121, 0.04, 0.012, 0.0412),
		E2EL: q(2.31, 4.8, 2.3, 5.02), Lag: q(0.0001, 0.0023, 0.0001, 0.0031),
		Failures: []live.Failure{{Kind: "HTTP 503", Count: 2}, {Kind: "read timeout (--read-timeout)", Count: 1}},
		Server:   live.Server{Known: true, Running: 38, Waiting: 2, KVUsage: 0.832, Age: 1200 * time.Millisecond},
	}
}

// TestFrameGolden renders frames at fixed inputs: a busy run, a run's
// first moment (nothing back yet), a sweep's third point with two done,
// and a label too long for the line.
func TestFrameGolden(t *testing.T) {
	nan := math.NaN()
	start := live.Figures{Info: live.Info{Model: "m", Backend: "openai", Total: 200, RequestRate: math.Inf(1), Offsets: make([]float64, 200)},
		Recent: live.Rates{Target: nan}, All: live.Rates{Target: nan},
		TTFT: q(nan, nan, nan, nan), ITL: q(nan, nan, nan, nan), E2EL: q(nan, nan, nan, nan), Lag: q(nan, nan, nan, nan)}
	timed := busy() // --duration 2m: the bar is the time, 42 s of 120
	timed.Info.Duration = 2 * time.Minute
	long := busy()
	long.Info.Label = strings.Repeat("a-very-long-label-", 8)
	done := []Summary{
		{Run: 1, Rate: 1, Done: 100, Reqs: 1, Tokens: 128, E2EL99: 1.2},
		{Run: 2, Rate: 4, Done: 400, Failed: 1, Reqs: 3.98, Tokens: 509.4, E2EL99: 1.9},
	}
	for _, tc := range []struct {
		name string
		f    live.Figures
		run  Runs
		done []Summary
	}{
		{"busy", busy(), Runs{Run: 1}, nil},
		{"start", start, Runs{Run: 1}, nil},
		{"sweep", busy(), Runs{Run: 3, Of: 5}, done},
		{"long_label", long, Runs{Run: 1}, nil},
		{"time_based", timed, Runs{Run: 1}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines := Frame(tc.f, tc.run, tc.done)
			for i, l := range lines {
				if n := utf8.RuneCountInString(l); n > Columns {
					t.Errorf("line %d is %d columns wide, more than %d: %q", i, n, Columns, l)
				}
			}
			golden.Check(t, []byte(strings.Join(lines, "\n")+"\n"))
		})
	}
}
