package argparse

import "testing"

func TestNearest(t *testing.T) {
	t.Parallel()
	names := []string{"num-prompts", "num-warmups", "seed", "request-rate", "ready-check-timeout-sec"}
	for typed, want := range map[string]string{
		"num-promtps": "num-prompts", "nmu-prompts": "num-prompts", "seeed": "seed", "sed": "seed",
		"warmups": "num-warmups", "xyz": "", "rate": "request-rate", "num": "", "timeout": "ready-check-timeout-sec",
	} {
		if got := Nearest(typed, names); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", typed, got, want)
		}
	}
}
