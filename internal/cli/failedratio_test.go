package cli

import (
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/exitcode"
)

// TestMaxFailedRatio: a run whose connections break counts its failures
// by kind; it exits 0 as vLLM's does, unless --max-failed-ratio is
// exceeded (exit status 3, naming the flag); a bad ratio is a usage
// error.
func TestMaxFailedRatio(t *testing.T) {
	t.Parallel()
	args := []string{"serve", "--sim", "--sim-ttft", "0.005", "--sim-itl", "0.001", "--num-prompts", "40",
		"--request-rate", "inf", "--random-input-len", "16", "--random-output-len", "4", "--disable-tqdm",
		"--sim-fault-http-503", "0.5"}
	for _, tc := range []struct {
		extra []string
		code  exitcode.Code
		says  string
	}{
		{nil, exitcode.OK, " requests failed: "},
		{[]string{"--max-failed-ratio", "0.9"}, exitcode.OK, " HTTP 503"},
		{[]string{"--max-failed-ratio", "0.1"}, exitcode.AllFailed, "more than --max-failed-ratio 0.1"},
		{[]string{"--max-failed-ratio", "2"}, exitcode.BadUsage, "argument --max-failed-ratio: must be a share"},
	} {
		_, stderr, code := runMain(t, append(append([]string{}, args...), tc.extra...)...)
		if exitcode.Code(code) != tc.code || !strings.Contains(stderr, tc.says) {
			t.Errorf("%v: exit %d (want %d), stderr lacks %q:\n%s", tc.extra, code, tc.code, tc.says, stderr)
		}
	}
}
