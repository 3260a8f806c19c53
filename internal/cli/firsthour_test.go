package cli

import (
	"encoding/json"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/golden"
)

// simArgs is a small run against the built-in simulator whose transcript
// is the same on every run (seeded workload, fixed latencies; no progress
// lines, whose count depends on the run's length: TestServeProgressLines).
var simArgs = []string{"serve", "--sim", "--sim-ttft", "0.005", "--sim-itl", "0.001",
	"--num-prompts", "6", "--random-input-len", "32", "--random-output-len", "4", "--disable-tqdm"}

// portRE matches the simulator's loopback port, which differs per run.
var portRE = regexp.MustCompile(`127\.0\.0\.1:\d+`)

// lagWarningRE matches the schedule-lag warning's line (metrics.ClientLoad).
var lagWarningRE = regexp.MustCompile(`(?m)^WARNING: schedule lag .*\n`)

// TestServeStdoutIsTheResult: stdout carries the result block alone, and
// stderr the transcript in gobench's words:
// no vLLM program names, no Python None, one line stating the load.
func TestServeStdoutIsTheResult(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"flood", nil},
		{"paced", []string{"--request-rate", "20", "--max-concurrency", "2", "--burstiness", "0.5", "--temperature", "0"}},
		{"ramp", []string{"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "30"}},
		{"chat without --endpoint", []string{"--backend", "openai-chat", "--model", "gobench/sim", "--tokenizer", "gobench-builtin"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := runMain(t, append(append([]string{}, simArgs...), tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			if !strings.HasPrefix(stdout, "============ Serving Benchmark Result ============\n") ||
				!strings.HasSuffix(stdout, "==================================================\n") ||
				!strings.Contains(stdout, "Successful requests:                     6") {
				t.Errorf("stdout is not the result block alone:\n%s", stdout)
			}
			for _, foreign := range []string{"None", "vllm bench serve", "First model name", "Starting initial", "Skipping endpoint"} {
				if strings.Contains(stderr, foreign) {
					t.Errorf("stderr says %q:\n%s", foreign, stderr)
				}
			}
			// The schedule-lag warning depends on how busy the machine is,
			// not on the command line: it is left out of the comparison.
			golden.Check(t, []byte(lagWarningRE.ReplaceAllString(portRE.ReplaceAllString(stderr, "127.0.0.1:PORT"), "")))
		})
	}
}

// TestServeFormatJSON: --format json prints the result object alone on
// stdout, one JSON document (what `| jq` reads), with the thresholds'
// verdicts under gobench_thresholds.
func TestServeFormatJSON(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := runMain(t, append(append([]string{}, simArgs...), "--format", "json", "--threshold", "completed>=6")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var got map[string]any
	dec := json.NewDecoder(strings.NewReader(stdout))
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	if dec.More() {
		t.Errorf("stdout holds more than one JSON document:\n%s", stdout)
	}
	if got["completed"] != 6.0 || got["num_prompts"] != 6.0 {
		t.Errorf("completed %v, num_prompts %v", got["completed"], got["num_prompts"])
	}
	if got["gobench_version"] != "test" { // the string `gobench version` prints (TestVersion)
		t.Errorf("gobench_version = %v", got["gobench_version"])
	}
	th, _ := got["gobench_thresholds"].(map[string]any)
	if th["passed"] != true {
		t.Errorf("gobench_thresholds = %v", got["gobench_thresholds"])
	}
	if strings.Contains(stderr, "Serving Benchmark Result") {
		t.Errorf("the block went to stderr:\n%s", stderr)
	}
}

// TestVersion: `gobench version` and --version print the version the
// binary was given, with the toolchain and platform.
func TestVersion(t *testing.T) {
	t.Parallel()
	want := "gobench test (" + runtime.Version() + ", " + runtime.GOOS + "/" + runtime.GOARCH + ")\n"
	for _, args := range [][]string{{"version"}, {"--version"}} {
		stdout, stderr, code := runMain(t, args...)
		if code != 0 || stdout != want {
			t.Errorf("%v: exit %d, stdout %q, want %q\n%s", args, code, stdout, want, stderr)
		}
	}
}
