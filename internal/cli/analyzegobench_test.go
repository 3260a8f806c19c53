package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestAnalyzeRedrawsGobenchSection: gobench analyze of a detailed result
// recomputes the steady state from the requests and the schedule lag from
// schedule_lags, and draws the same section serve drew (the client's CPU
// use is the saved one).
func TestAnalyzeRedrawsGobenchSection(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.json")
	served, stderr, code := runMain(t, "serve", "--sim", "--sim-ttft", "0.02", "--sim-itl", "0.002", "--disable-tqdm",
		"--no-server-metrics", "--num-prompts", "120", "--request-rate", "200", "--max-concurrency", "8",
		"--random-input-len", "16", "--random-output-len", "8", "--save-result", "--save-detailed", "--result-filename", path)
	if code != 0 {
		t.Fatalf("serve: exit %d\n%s", code, stderr)
	}
	analyzed, stderr, code := runMain(t, "analyze", path)
	if code != 0 {
		t.Fatalf("analyze: exit %d\n%s", code, stderr)
	}
	section := func(out string) string {
		i := strings.Index(out, "= gobench =")
		if i < 0 {
			t.Fatalf("no gobench section in:\n%s", out)
		}
		return out[i:]
	}
	if s, a := section(served), section(analyzed); s != a {
		t.Errorf("analyze drew another gobench section:\nserve:\n%s\nanalyze:\n%s", s, a)
	}
}
