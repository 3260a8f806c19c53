package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeEmbeddedEngineSim runs `gobench serve --sim` with the engine
// model, its per-request metrics and a record: the run completes, the
// client keeps the server's queue and prefill times per request, and the
// record has one line per request (warm-up and test request aside) whose
// engine intervals agree with what the client was told.
func TestServeEmbeddedEngineSim(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rec := filepath.Join(dir, "truth.jsonl")
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"serve", "--sim", "--sim-max-num-seqs", "2", "--sim-step-time-base", "0.02",
		"--sim-step-time-per-token", "0.00001", "--sim-step-time-per-seq", "0.0001", "--sim-enable-per-request-metrics",
		"--sim-record", rec, "--num-prompts", "8", "--random-input-len", "32", "--random-output-len", "5",
		"--request-id-prefix", "e-", "--save-result", "--save-detailed", "--result-dir", dir, "--result-filename", "r.json"},
		Deps{Stdout: &out, Stderr: &errOut, Version: "test"})
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, &out, &errOut)
	}
	if !strings.Contains(errOut.String(), "Started gobench's simulated server at http://127.0.0.1:") ||
		!strings.Contains(errOut.String(), "engine scheduler: max-num-seqs 2") ||
		!strings.Contains(out.String(), "Successful requests:                     8") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", &out, &errOut)
	}
	b, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		ServerQueue []float64 `json:"server_queue_times"`
		ServerTTFT  []float64 `json:"server_ttfts"`
	}
	if err := json.Unmarshal(b, &res); err != nil || len(res.ServerQueue) != 8 || len(res.ServerTTFT) != 8 {
		t.Fatalf("server metrics in the result: %+v (%v)", res, err)
	}
	// Two sequences at a time and eight requests at once: most of them
	// waited in the engine's queue. A request holds one of the two for five
	// steps of at least 20 ms each, while the run sends the eight within
	// microseconds of each other: only a core stalled for as long as a
	// request takes could spare them the wait.
	waited := 0
	for _, q := range res.ServerQueue {
		if q > 0 {
			waited++
		}
	}
	if waited < 4 {
		t.Errorf("server queue times %v: want most requests to have waited", res.ServerQueue)
	}
	f, err := os.Open(rec)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	lines := 0
	for sc.Scan() {
		var r struct {
			ID        string              `json:"request_id"`
			Intervals map[string]*float64 `json:"intervals"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("record line %q: %v", sc.Text(), err)
		}
		if strings.HasPrefix(r.ID, "e-") {
			lines++
			if r.Intervals["queue"] == nil || r.Intervals["prefill"] == nil {
				t.Errorf("%s: intervals %v", r.ID, r.Intervals)
			}
		}
	}
	if lines != 8 {
		t.Errorf("%d record lines for the run's requests, want 8", lines)
	}
}
