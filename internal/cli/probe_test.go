package cli

import (
	"encoding/json"
	"testing"
)

// TestProbesAgainstSim: serve --probe-request-rate end to end against the
// simulator; the result carries vLLM's probe keys and the run's own counts
// leave the probes out.
func TestProbesAgainstSim(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := runMain(t, "serve", "--sim", "--sim-ttft", "0.01", "--sim-itl", "0.001", "--disable-tqdm",
		"--num-prompts", "20", "--request-rate", "40", "--random-input-len", "16", "--random-output-len", "4",
		"--probe-request-rate", "20", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	if got["completed"] != 20.0 {
		t.Errorf("completed %v, want the 20 requests alone", got["completed"])
	}
	for _, k := range []string{"probe_completed", "probe_failed", "probe_median_e2el_ms", "probe_p99_e2el_ms", "probe_max_e2el_ms"} {
		if _, ok := got[k]; !ok {
			t.Errorf("no %s in the result", k)
		}
	}
	if n, _ := got["probe_completed"].(float64); n < 1 {
		t.Errorf("probe_completed %v, want at least 1", got["probe_completed"])
	}
}
