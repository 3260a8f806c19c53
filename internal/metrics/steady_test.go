package metrics

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// iv builds [start, end) intervals.
func iv(pairs ...float64) [][2]float64 {
	var out [][2]float64
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, [2]float64{pairs[i], pairs[i+1]})
	}
	return out
}

// TestFindSteadyWindow checks the rule on intervals whose concurrency is
// worked out by hand in each case's comment.
func TestFindSteadyWindow(t *testing.T) {
	t.Parallel()
	trapezoid := iv(0, 30, 1, 31, 2, 32, 3, 33, 4, 34, 5, 35, 6, 36, 7, 37, 8, 38, 9, 39, 15, 20)
	for _, c := range []struct {
		name      string
		intervals [][2]float64
		maxConc   int
		want      SteadyWindow
		reason    string
	}{
		// vLLM's Rust client's trapezoid: ten requests start at 0..9 and
		// last 30 s, one more lives in [15, 20). Level ceil(0.95*10) = 10
		// is reached at 9 (9 -> 10); the spike to 11 at 15 ends at 20 at
		// 10, not below; the first end at 30 takes it to 9.
		{"closed loop trapezoid", trapezoid, 10, SteadyWindow{Start: 9, End: 30, Target: 10, FromLimit: true, Level: 10}, ""},
		// --max-concurrency 5 is never approached by serial requests: the
		// open-loop target applies. Level 1 is held 3 s of the 5 s span,
		// so the target is 1; the window runs from the first start to the
		// last end (the down-crossings at 1 and 3 are followed by others).
		{"limit never reached", iv(0, 1, 2, 3, 4, 5), 5, SteadyWindow{Start: 0, End: 5, Target: 1, Level: 1}, ""},
		// Open loop: starts at 0, 1, 2, 3, all end at 10, and a spike of
		// two requests in [5, 5.5). Span 10 s; level 6 is held 0.5 s
		// (< 10 % of 10 s), levels 6 and 4 together 7 s, so the target is
		// 4 and Level ceil(3.8) = 4: the ramp [0, 3) and the spike are not
		// the plateau; the window is [3, 10).
		{"open loop ramp and spike", iv(0, 10, 1, 10, 2, 10, 3, 10, 5, 5.5, 5, 5.5), 0,
			SteadyWindow{Start: 3, End: 10, Target: 4, Level: 4}, ""},
		// A dip inside the plateau: level 2 on [0, 2), 1 on [2, 2.5), 2 on
		// [2.5, 5). The window is one interval: first rise to the last fall.
		{"dip kept", iv(0, 5, 0, 2, 2.5, 5), 2, SteadyWindow{Start: 0, End: 5, Target: 2, FromLimit: true, Level: 2}, ""},
		// An end and a start at one instant are one step (1 -> 1): no
		// crossing at 1.
		{"tie is one step", iv(0, 1, 1, 2), 1, SteadyWindow{Start: 0, End: 2, Target: 1, FromLimit: true, Level: 1}, ""},
		// A 20-request limit: Level is 19, not 20 by 0.95*20's last bit.
		{"level 19 of 20", iv(0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4,
			0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 1, 3), 20,
			SteadyWindow{Start: 1, End: 3, Target: 20, FromLimit: true, Level: 19}, ""},
		{"no interval", nil, 4, SteadyWindow{}, "no request succeeded"},
		{"zero-length only", iv(1, 1, 2, 2), 0, SteadyWindow{}, "no request succeeded"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w, reason, ok := FindSteadyWindow(c.intervals, c.maxConc)
			if ok != (c.reason == "") || reason != c.reason {
				t.Fatalf("ok %v reason %q, want reason %q", ok, reason, c.reason)
			}
			if !ok {
				return
			}
			if diff := cmp.Diff(c.want, w); diff != "" {
				t.Errorf("window (-want +got):\n%s", diff)
			}
		})
	}
}

// TestThresholdLevel pins ceil(0.95 × target) at the values where the
// product's last bit matters.
func TestThresholdLevel(t *testing.T) {
	t.Parallel()
	for target, want := range map[int]int{0: 1, 1: 1, 2: 2, 3: 3, 10: 10, 20: 19, 40: 38, 100: 95, 256: 244} {
		if got := thresholdLevel(target); got != want {
			t.Errorf("thresholdLevel(%d) = %d, want %d", target, got, want)
		}
	}
}

// TestSteady computes the figures of a window worked out by hand. With
// --max-concurrency 2 (Level 2):
//
//	a: [0, 4), events at 1 2 3 4, 4 tokens, prompt 10
//	b: [1, 5), events at 2 3 4 5, 4 tokens, prompt 20
//	c: [4, 6), events at 5 6,     2 tokens, prompt 30
//
// The concurrency is 1 on [0, 1), 2 on [1, 5) (a's end and c's start at 4
// are one step), 1 on [5, 6): the window is [1, 5), 4 s. Started in it: b
// and c (50 prompt tokens: 12.5/s); completed: a (0.25/s); token events in
// it: a's 4 and b's 3 (7 tokens: 1.75/s); inside it: b alone (TTFT 1 s,
// TPOT (4-1)/3 = 1 s, ITL 1 s, E2EL 4 s).
func TestSteady(t *testing.T) {
	t.Parallel()
	outs := []Output{
		{Success: true, StartTime: 0, Latency: 4, TTFT: 1, ITL: []float64{1, 1, 1}, OutputTokens: 4, PromptLen: 10},
		{Success: true, StartTime: 1, Latency: 4, TTFT: 1, ITL: []float64{1, 1, 1}, OutputTokens: 4, PromptLen: 20},
		{Success: true, StartTime: 4, Latency: 2, TTFT: 1, ITL: []float64{1}, OutputTokens: 2, PromptLen: 30},
		{Success: false, StartTime: 2, Error: "boom"},
	}
	r := Calculate(outs, 6, Config{MaxConcurrency: 2, Percentiles: []float64{50}, CountTokens: func(string) int { return 0 }})
	s := Steady(&r)
	second := Stats{Mean: 1000, Median: 1000, Percentiles: []PercentileValue{{50, 1000}}}
	want := &SteadyState{
		Found: true, Window: SteadyWindow{Start: 1, End: 5, Target: 2, FromLimit: true, Level: 2},
		Started: 2, Completed: 1, Inside: 1,
		RequestThroughput: 0.25, InputThroughput: 12.5, OutputThroughput: 1.75, TotalTokenThroughput: 14.25,
		TTFT: second, TPOT: second, ITL: Stats{Mean: 1000, Median: 1000, Percentiles: []PercentileValue{{50, 1000}}},
		E2EL: Stats{Mean: 4000, Median: 4000, Percentiles: []PercentileValue{{50, 4000}}},
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("steady state (-want +got):\n%s", diff)
	}
	if got := s.Duration(); got != 4 {
		t.Errorf("Duration() = %v, want 4", got)
	}
	// [0, 3) and [1, 4) with --max-concurrency 2: the window [1, 3) holds
	// neither whole, so it has no latencies to report.
	r = Calculate([]Output{{Success: true, StartTime: 0, Latency: 3, TTFT: 1, OutputTokens: 1},
		{Success: true, StartTime: 1, Latency: 3, TTFT: 1, OutputTokens: 1}}, 4, Config{MaxConcurrency: 2})
	if s := Steady(&r); s.Found || s.Reason != "no request lived wholly inside the window" || s.Window.Start != 1 || s.Window.End != 3 {
		t.Errorf("steady state %+v, want none for want of a request inside [1, 3)", s)
	}
}

// TestClientLoad checks the lag statistics and when the warning fires.
func TestClientLoad(t *testing.T) {
	t.Parallel()
	calm := &ClientLoad{Lags: []float64{0.001, 0.002, 0.003}, CPUSeconds: 0.5, WallSeconds: 2, CPUKnown: true, WarnLag: 0.010}
	if calm.Bottleneck() || calm.Warning() != "" {
		t.Errorf("lags of 1-3 ms warn: %q", calm.Warning())
	}
	if got := calm.CPUShare(); got != 0.25 {
		t.Errorf("CPUShare = %v, want 0.25", got)
	}
	if got := calm.LagMax(); got != 0.003 {
		t.Errorf("LagMax = %v, want 0.003", got)
	}
	late := &ClientLoad{Lags: []float64{0.001, 0.5}, WarnLag: 0.010}
	// p99 of {1 ms, 500 ms}: 1 + 0.99 * 499 = 495.01 ms.
	if w := late.Warning(); !late.Bottleneck() || w == "" {
		t.Fatalf("a 500 ms lag does not warn")
	}
	if got, want := late.Warning(), "schedule lag p99 495.0 ms exceeds --schedule-lag-warn-ms 10"; got[:len(want)] != want {
		t.Errorf("warning %q does not start %q", got, want)
	}
	for share, want := range map[float64]string{0.1: "the machine was busy with other work", 1.5: "gobench used 150 % of one core"} {
		c := &ClientLoad{Lags: []float64{0.5}, WarnLag: 0.010, CPUSeconds: share * 2, WallSeconds: 2, CPUKnown: true}
		if !strings.Contains(c.Warning(), want) {
			t.Errorf("CPU share %v: warning %q lacks %q", share, c.Warning(), want)
		}
	}
	// Six requests, one released 12 ms late: its p99 is that lag, but the
	// median is 1 ms: one late timer, not a client that fell behind. The
	// same late pair among 100 requests is the p99 of enough samples.
	short := &ClientLoad{Lags: []float64{0.001, 0.001, 0.001, 0.001, 0.001, 0.012}, WarnLag: 0.010}
	if short.Bottleneck() || short.Warning() != "" {
		t.Errorf("one late release in six requests warns: %q", short.Warning())
	}
	long := &ClientLoad{WarnLag: 0.010}
	for i := range 100 {
		lag := 0.001
		if i >= 98 {
			lag = 0.050
		}
		long.Lags = append(long.Lags, lag)
	}
	if !long.Bottleneck() {
		t.Errorf("p99 %v ms of 100 requests does not warn", 1000*long.LagPercentile(99))
	}
	if (&ClientLoad{}).LagMax() != 0 || (&ClientLoad{WallSeconds: 1}).CPUShare() != 0 {
		t.Error("an empty ClientLoad is not zero")
	}
}
