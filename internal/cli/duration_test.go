package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// durationRun runs a time-based serve against the simulator in a synctest
// bubble, wanting exit status code, and returns the saved detailed result
// and stderr.
func durationRun(t *testing.T, code int, args ...string) (map[string]any, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.json")
	all := append([]string{"serve", "--sim", "--sim-ttft", "0.05", "--disable-tqdm", "--no-server-metrics",
		"--random-input-len", "16", "--random-output-len", "4", "--ignore-eos",
		"--save-result", "--save-detailed", "--result-filename", path}, args...)
	stdout, stderr, got := runSimInBubble(t, all...)
	if got != code {
		t.Fatalf("exit %d, want %d\n%s\n%s", got, code, stdout, stderr)
	}
	return readJSON(t, path), stderr
}

// TestDurationAtRate: --duration 5s at 20 req/s draws 100 prompts, the
// last due at 5 s; --warmup-duration 1s sends the requests released in
// the first second but leaves them out of every figure, the measured run
// starting at 1 s; the result records both and how many were left out.
func TestDurationAtRate(t *testing.T) {
	t.Parallel()
	res, stderr := durationRun(t, 0, "--sim-itl", "0.01", "--request-rate", "20", "--duration", "5s", "--warmup-duration", "1")
	wl, _ := res["gobench_workload"].(map[string]any)
	warm, _ := wl["warmup_requests"].(float64)
	completed, _ := res["completed"].(float64)
	if wl["duration"] != 5.0 || wl["warmup_duration"] != 1.0 {
		t.Errorf("gobench_workload duration %v, warmup_duration %v; want 5 and 1", wl["duration"], wl["warmup_duration"])
	}
	if warm < 1 || warm >= 100 || completed+warm != 100 || res["failed"] != 0.0 {
		t.Errorf("%v measured + %v warm-up requests, %v failed; want 100 in all, none failed", completed, warm, res["failed"])
	}
	for _, off := range floats(res["scheduled_offsets"]) {
		if off < 0 || off > 4 {
			t.Errorf("scheduled offset %v outside the measured window [0, 4] s", off)
			break
		}
	}
	// The last request is due at 5 s and takes 0.08 s; the measured run
	// starts at 1 s (virtual time: exact whatever the machine's load).
	if d, _ := res["duration"].(float64); d < 4 || d > 4.2 {
		t.Errorf("benchmark duration %v s, want the 4 s after the warm-up and the last request's 0.08 s", d)
	}
	if !strings.Contains(stderr, "Warm-up: the ") {
		t.Errorf("stderr does not say what the warm-up left out:\n%s", stderr)
	}
}

// TestDurationUnlimitedRate: at rate inf with --max-concurrency the run
// sends its prompts in turn, again from the first, until the time is up,
// and the requests in flight finish; without a bound on concurrency it
// sends --num-prompts at once and stops there.
func TestDurationUnlimitedRate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		flags    []string
		min, max float64
		line     string
	}{
		// Each request takes 0.05 + 3 × 0.01 s, two at a time: 25 a second.
		{[]string{"--num-prompts", "4", "--max-concurrency", "2"}, 20, 30,
			"the 4 prompts are sent in turn, again from the first, as --max-concurrency frees a slot, until 1 s after the start"},
		{[]string{"--num-prompts", "5"}, 5, 5, "sending stops 1 s after the start (--duration) or once the 5 prompts are sent"},
	} {
		res, stderr := durationRun(t, 0, append(tt.flags, "--sim-itl", "0.01", "--duration", "1s")...)
		completed, _ := res["completed"].(float64)
		if completed < tt.min || completed > tt.max || res["failed"] != 0.0 {
			t.Errorf("%q: %v completed, %v failed; want %v to %v, none failed", tt.flags, completed, res["failed"], tt.min, tt.max)
		}
		if !strings.Contains(strings.Join(strings.Fields(stderr), " "), tt.line) { // the line is wrapped at 100 columns
			t.Errorf("%q: stderr does not say when the run stops sending:\n%s", tt.flags, stderr)
		}
	}
}

// TestDurationFlagErrors: the time flags' mistakes name the flag.
func TestDurationFlagErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--duration", "-5"}, "argument --duration: must be positive"},
		{[]string{"--duration", "soon"}, "argument --duration: invalid duration"},
		{[]string{"--duration", "5s", "--warmup-duration", "5s"}, "argument --warmup-duration: must be shorter than --duration"},
		{[]string{"--duration", "5s", "--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "2"}, "argument --duration: not with --ramp-up-strategy"},
		{[]string{"--duration", "5s", "--multi-turn", "--backend", "openai-chat", "--endpoint", "/v1/chat/completions"}, "argument --duration: not with --multi-turn"},
		{[]string{"--duration", "1000000h", "--request-rate", "1000"}, "argument --duration:"},
	} {
		_, errOut, code := runMain(t, append([]string{"serve", "--sim", "--tokenizer", "gobench-builtin", "--dry-run"}, tt.args...)...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%q: exit %d, want 2 and %q\n%s", tt.args, code, tt.want, errOut)
		}
	}
}

// TestDurationGraceBound: requests still in flight --interrupt-grace after
// the duration are cancelled and reported failed, so the run's end is
// bounded whatever the server does.
func TestDurationGraceBound(t *testing.T) {
	t.Parallel()
	// Each request takes 3.05 s: none of the 20 ends before the grace.
	res, _ := durationRun(t, 3, "--sim-itl", "1", "--request-rate", "10", "--duration", "2s", "--interrupt-grace", "0.5")
	if res["failed"] != 20.0 {
		t.Errorf("%v failed, want the 20 requests still running at 2.5 s", res["failed"])
	}
	for _, e := range res["errors"].([]any) {
		if want := "cancelled: still running --interrupt-grace (0.5 s) after --duration (2 s) ended"; e != want {
			t.Errorf("error %q, want %q", e, want)
			break
		}
	}
	if d, _ := res["duration"].(float64); d < 2.5 || d > 2.6 {
		t.Errorf("benchmark duration %v s, want 2 s and the 0.5 s grace", d)
	}
}
