package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Both runs below use the fixed simulator: TTFT 0.1 s (or 0.2 s) then 10
// ITLs of 10 ms, so that every request is in flight for latency seconds.
// The concurrency the schedule implies at t is then the number of requests
// due in (t − latency, t], which is the ground truth the window is checked
// against. The runs are in a synctest bubble (runSimInBubble), so the
// machine adds no delay; slack and late are the margins the window's
// definition leaves, not allowances for a loaded machine. slack is a
// tenth of a second and a half: more than the gap of the steady arrivals,
// half a request's life, so that the window could not pass for the ramp's
// or the drain's.
const slack = 0.15

// late bounds how far past the schedule's instant the window may open or
// close where the bound is taken from the run's own measured starts and
// ends.
const late = 0.5

// measured returns the run's request starts and its last end, in seconds
// after its first start, as the window's times are.
func measured(res map[string]any) (starts []float64, lastEnd float64) {
	st, lat := floats(res["start_times"]), floats(res["latencies"])
	first := slices.Min(st)
	for i, x := range st {
		starts = append(starts, x-first)
		if i < len(lat) {
			lastEnd = max(lastEnd, x-first+lat[i])
		}
	}
	slices.Sort(starts)
	return starts, lastEnd
}

// steadyRun runs gobench serve with args against the simulator in a
// synctest bubble, saving a detailed result, and returns the result object
// and the standard output.
func steadyRun(t *testing.T, args ...string) (map[string]any, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.json")
	all := append([]string{"serve", "--sim", "--sim-itl", "0.01", "--disable-tqdm", "--no-server-metrics", "--details",
		"--save-result", "--save-detailed", "--result-filename", path, "--percentile-metrics", "ttft,tpot,itl,e2el"}, args...)
	stdout, stderr, code := runSimInBubble(t, all...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var res map[string]any
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"gobench_steady_state", "gobench_client", "schedule_lags"} {
		if _, ok := res[k]; !ok {
			t.Errorf("the result has no %s", k)
		}
	}
	if lags := floats(res["schedule_lags"]); len(lags) != len(floats(res["start_times"])) {
		t.Errorf("%d schedule_lags for %d requests", len(lags), len(floats(res["start_times"])))
	}
	for _, want := range []string{"== gobench: steady state ==", "whole run  steady state", "== gobench: client ==",
		"Schedule lag p50 / p99 / max (ms): ", "Client CPU: "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Index(stdout, "gobench: steady state") < strings.Index(stdout, "Serving Benchmark Result") {
		t.Errorf("gobench's section is not after vLLM's block:\n%s", stdout)
	}
	return res, stdout
}

// floats reads a JSON list of numbers.
func floats(v any) []float64 {
	l, _ := v.([]any)
	out := make([]float64, len(l))
	for i, x := range l {
		out[i], _ = x.(float64)
	}
	return out
}

// firstHeld is the first scheduled arrival at which at least level
// requests are due within the latency before it (inclusive), in seconds
// after the first arrival; -1 if none.
func firstHeld(offsets []float64, latency float64, level int) float64 {
	for k, a := range offsets {
		n := 0
		for _, b := range offsets[:k+1] {
			if b > a-latency {
				n++
			}
		}
		if n >= level {
			return a - offsets[0]
		}
	}
	return -1
}

// window reads the steady state's window and checks its keys.
func window(t *testing.T, res map[string]any, from string) (start, end float64, level int) {
	t.Helper()
	ss, _ := res["gobench_steady_state"].(map[string]any)
	if ss["found"] != true || ss["target_from"] != from {
		t.Fatalf("gobench_steady_state %v: want a window from %s", ss, from)
	}
	if n, _ := ss["requests_inside"].(float64); n < 5 {
		t.Errorf("only %v requests inside the window", n)
	}
	for _, k := range []string{"request_throughput", "output_throughput", "mean_ttft_ms", "p99_ttft_ms", "p99_tpot_ms", "p99_itl_ms", "p99_e2el_ms"} {
		if v, ok := ss[k].(float64); !ok || v <= 0 {
			t.Errorf("gobench_steady_state.%s = %v, want a positive number", k, ss[k])
		}
	}
	l, _ := ss["threshold_concurrency"].(float64)
	return ss["start_s"].(float64), ss["end_s"].(float64), int(l)
}

// TestSteadyStateRampThenSteady: a timed trace of 8 requests 0.1 s apart
// (the ramp: 3 in flight), then 100 requests 20 ms apart from 0.8 s to
// 2.78 s (the plateau: 0.3 s / 20 ms = 15 in flight), each in flight
// 0.3 s. The plateau holds 15 (16 when the latency runs a few ms over) from
// 0.8 + 14 × 0.02 = 1.08 s; the drain starts after the last arrival at
// 2.78 s and ends by 3.08 s. The window must open after the ramp (and
// within a request's life of the first steady arrival) and close between
// the last arrival and the end of the drain; its request rate is the
// plateau's (50/s), above the whole run's.
func TestSteadyStateRampThenSteady(t *testing.T) {
	t.Parallel()
	var trace strings.Builder
	for i := range 8 {
		fmt.Fprintf(&trace, `{"timestamp": %d, "input_length": 16, "output_length": 11, "hash_ids": [1, 2]}`+"\n", 100*i)
	}
	for i := range 100 {
		fmt.Fprintf(&trace, `{"timestamp": %d, "input_length": 16, "output_length": 11, "hash_ids": [1, 3]}`+"\n", 800+20*i)
	}
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, []byte(trace.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	res, _ := steadyRun(t, "--sim-ttft", "0.2", "--dataset-name", "timed_trace", "--dataset-path", path, "--num-prompts", "108",
		"--timed-trace-chunk-hash-size", "8", "--timed-trace-sec-multiplier", "0.001")
	start, end, level := window(t, res, "top_level")
	if level != 15 && level != 16 {
		t.Errorf("threshold_concurrency %d, want 15 (16 if latencies ran over)", level)
	}
	const firstSteady, lastArrival, latency = 0.8, 2.78, 0.3
	starts, lastEnd := measured(res)
	// 15 in flight need the 15th steady request sent (index 8 + 14).
	if hi := starts[8+14] + latency + late; start < firstSteady+0.1 || start > hi {
		t.Errorf("window starts at %v s, want after the ramp, in [%v, %v]", start, firstSteady+0.1, hi)
	}
	if hi := min(starts[len(starts)-1]+latency+late, lastEnd-0.1); end < lastArrival-0.1 || end > hi {
		t.Errorf("window ends at %v s, want in the drain's start, [%v, %v] (the last request ended at %v s)", end, lastArrival-0.1, hi, lastEnd)
	}
	ss := res["gobench_steady_state"].(map[string]any)
	if rate := ss["request_throughput"].(float64); rate < 35 || rate > 65 || rate <= res["request_throughput"].(float64) {
		t.Errorf("steady request rate %v, want about 50/s and above the whole run's %v", rate, res["request_throughput"])
	}
}

// TestSteadyStateLinearRampUp: --ramp-up-strategy linear from 10 to 80
// req/s with --max-concurrency 8 and 0.2 s per request. Until the eighth
// request is in flight nothing queues, so the concurrency at an arrival is
// the number of arrivals within 0.2 s before it: the window opens at the
// first scheduled arrival (scheduled_offsets) where that count reaches
// Level = ceil(0.95 × 8) = 8 — no earlier than with a latency of
// 0.2 + slack, no later than with 0.2 plus the machine's delay. Past the
// cap the client queues and the plateau holds until the last request has
// left; the window closes within a request's life after that last start.
func TestSteadyStateLinearRampUp(t *testing.T) {
	t.Parallel()
	res, _ := steadyRun(t, "--sim-ttft", "0.1", "--dataset-name", "random", "--random-input-len", "16", "--random-output-len", "11",
		"--num-prompts", "100", "--max-concurrency", "8", "--ramp-up-strategy", "linear", "--ramp-up-start-rps", "10",
		"--ramp-up-end-rps", "80")
	start, end, level := window(t, res, "max_concurrency")
	if level != 8 {
		t.Fatalf("threshold_concurrency %d, want 8", level)
	}
	offsets := floats(res["scheduled_offsets"])
	const latency = 0.2
	lo, hi := firstHeld(offsets, latency+slack, level), firstHeld(offsets, latency, level)
	if lo < 0 || hi < 0 {
		t.Fatalf("the schedule never has %d requests due within %v s: %v", level, latency, offsets)
	}
	starts, lastEnd := measured(res)
	// Measured starts place the opening as the machine delayed it.
	if m := firstHeld(starts, latency, level); m > hi {
		hi = m
	}
	if start < lo-0.02 || start > hi+late {
		t.Errorf("window starts at %v s, want the ramp's end from the schedule, in [%v, %v]", start, lo-0.02, hi+late)
	}
	lastStart := starts[len(starts)-1]
	if end < lastStart-0.05 || end > min(lastStart+latency+late, lastEnd) {
		t.Errorf("window ends at %v s, want the drain's start, in [%v, %v] (the last request left at %v s)",
			end, lastStart-0.05, min(lastStart+latency+late, lastEnd), lastStart)
	}
}
