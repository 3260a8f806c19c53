package cli

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/exitcode"
)

// progressLineRE is the CI progress line of a run of 4 requests.
var progressLineRE = regexp.MustCompile(`^progress: [0-4]/4 done, [0-4] failed, \d+\.\d req/s, \d+ output tok/s, \d+ running, \d+\.\d s$`)

// serveProgress runs `gobench serve --sim` with 4 requests, request p-1
// failing, and the extra arguments; it returns stdout and stderr.
func serveProgress(t *testing.T, terminal bool, extra ...string) (string, string) {
	t.Helper()
	// The simulator's first token comes after 50 ms, so the run lasts more
	// than a --progress-interval of 1 ms whatever the machine's speed.
	args := append([]string{"serve", "--sim", "--sim-ttft", "0.05", "--sim-itl", "0.001", "--num-prompts", "4",
		"--random-input-len", "16", "--random-output-len", "5", "--request-id-prefix", "p-",
		"--sim-fault-http-500", "p-1$"}, extra...)
	var out, errOut bytes.Buffer
	code := Main(context.Background(), args, Deps{Stdout: &out, Stderr: &errOut, Version: "test", IsTerminal: terminal})
	if code != int(exitcode.OK) {
		t.Fatalf("exit %d\n%s\n%s", code, &out, &errOut)
	}
	if strings.Contains(out.String(), "progress") || strings.Contains(out.String(), "\r") {
		t.Errorf("progress on stdout:\n%s", &out)
	}
	return out.String(), errOut.String()
}

// TestServeProgressLines: when stderr is not a
// terminal, a run prints progress lines there, in a stable shape, the last
// one the run's end; --disable-tqdm silences them.
func TestServeProgressLines(t *testing.T) {
	t.Parallel()
	t.Run("lines", func(t *testing.T) {
		t.Parallel()
		_, stderr := serveProgress(t, false, "--progress-interval", "0.001")
		var lines []string
		for _, l := range strings.Split(stderr, "\n") {
			if strings.Contains(l, "progress") {
				lines = append(lines, l)
				if !progressLineRE.MatchString(l) {
					t.Errorf("line %q does not match %s", l, progressLineRE)
				}
			}
		}
		if len(lines) == 0 {
			t.Fatalf("no progress line:\n%s", stderr)
		}
		if last := lines[len(lines)-1]; !strings.HasPrefix(last, "progress: 4/4 done, 1 failed, ") ||
			!strings.Contains(last, " output tok/s, 0 running, ") {
			t.Errorf("last line %q, want the run's end: 4/4 done, 1 failed, 0 running", last)
		}
		if strings.Contains(stderr, "\r") {
			t.Errorf("a terminal's carriage return off a terminal:\n%q", stderr)
		}
	})
	for _, tc := range []struct {
		name     string
		terminal bool
	}{{"disable-tqdm", false}, {"disable-tqdm on a terminal", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, stderr := serveProgress(t, tc.terminal, "--progress-interval", "0.001", "--disable-tqdm")
			if strings.Contains(stderr, "progress") || strings.Contains(stderr, "%|") {
				t.Errorf("progress shown with --disable-tqdm:\n%s", stderr)
			}
		})
	}
	t.Run("interval 0", func(t *testing.T) {
		t.Parallel()
		if _, stderr := serveProgress(t, false, "--progress-interval", "0"); strings.Contains(stderr, "progress") {
			t.Errorf("progress lines with --progress-interval 0:\n%s", stderr)
		}
	})
}

// TestServeProgressBar: on a terminal the bar shows the
// failures and the throughput, and ends on the run's last frame.
func TestServeProgressBar(t *testing.T) {
	t.Parallel()
	_, stderr := serveProgress(t, true)
	frame := regexp.MustCompile(`\r100%\|█+\| 4/4, 1 failed \[\d\d:\d\d<00:00, \d+\.\d req/s, \d+ tok/s\]\x1b\[K\n`)
	if !frame.MatchString(stderr) {
		t.Errorf("no last frame matching %q in\n%q", frame, stderr)
	}
	if strings.Contains(stderr, "progress:") {
		t.Errorf("CI lines on a terminal:\n%s", stderr)
	}
}

// TestServeProgressIntervalRefused: a negative --progress-interval is a
// usage error naming the flag.
func TestServeProgressIntervalRefused(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"serve", "--sim", "--progress-interval", "-1"},
		Deps{Stdout: &out, Stderr: &errOut, Version: "test"})
	if code != int(exitcode.BadUsage) || !strings.Contains(errOut.String(), "argument --progress-interval: must not be negative (got -1.0)") {
		t.Errorf("exit %d, stderr:\n%s", code, &errOut)
	}
}
