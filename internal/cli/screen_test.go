package cli

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gobench/gobench/internal/sim"
)

// afterBlock is what serve printed on stdout after vLLM's block: the lines
// that follow the block's closing rule.
func afterBlock(t *testing.T, stdout string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(stdout, "============ Serving Benchmark Result ============\n")
	if !ok {
		t.Fatalf("no result block in:\n%s", stdout)
	}
	_, after, ok := strings.Cut(rest, "\n"+strings.Repeat("=", 50)+"\n")
	if !ok {
		t.Fatalf("no closing rule in:\n%s", stdout)
	}
	return strings.Split(strings.TrimSuffix(after, "\n"), "\n")
}

// TestOneScreen: what gobench prints after vLLM's block fits one screen
// by default (at most 25 lines, none wider than 100 columns) for
// representative runs: the server view with a located verdict and
// speculative decoding, failures, many turns; --details prints more,
// within 100 columns too.
func TestOneScreen(t *testing.T) {
	t.Parallel()
	common := []string{"serve", "--sim", "--num-prompts", "100", "--request-rate", "inf"}
	fixed := []string{"--sim-ttft", "0.005", "--sim-itl", "0.001", "--random-input-len", "32", "--random-output-len", "8"}
	// The located verdict needs the preset's own load and frequent samples.
	thrash, _ := sim.LookupPreset("kv-thrashing")
	located := append([]string{"--sim-preset", "kv-thrashing", "--sim-num-speculative-tokens", "3",
		"--metrics-interval", "0.05"}, thrash.Load...)
	runs := []struct {
		name  string
		args  []string
		wants string
	}{
		{"server view", append([]string{"--max-concurrency", "16"}, fixed...), "Verdict: "},
		{"located, spec decode", located, "[located]"},
		{"failures", append([]string{"--sim-fault-reset", "0.6", "--sim-fault-http-503", "0.1"}, fixed...), "Verdict: "},
		{"many turns", append([]string{"--backend", "openai-chat", "--multi-turn", "--multi-turn-num-turns", "10",
			"--num-prompts", "12"}, fixed...), "left out (--details)"},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			var lines [2]int
			for i, extra := range [][]string{nil, {"--details"}} {
				args := append(append(append([]string{}, common...), r.args...), extra...)
				stdout, stderr, code := runSimInBubble(t, args...) // the verdicts are timings: virtual time
				if code != 0 {
					t.Fatalf("exit %d\n%s", code, stderr)
				}
				after := afterBlock(t, stdout)
				lines[i] = len(after)
				for _, l := range after {
					if n := utf8.RuneCountInString(l); n > 100 {
						t.Errorf("%v: a line of %d columns: %q", extra, n, l)
					}
				}
				if i == 0 && (len(after) > 25 || !strings.Contains(stdout, r.wants)) {
					t.Errorf("%d lines after the block (at most 25), want %q in them:\n%s", len(after), r.wants, strings.Join(after, "\n"))
				}
			}
			if lines[1] <= lines[0] {
				t.Errorf("--details printed %d lines, the default %d", lines[1], lines[0])
			}
		})
	}
}
