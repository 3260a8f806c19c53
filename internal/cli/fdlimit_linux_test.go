package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenFileLimitCostsNoResult: with an open-file limit
// far below --max-concurrency (set as the hard limit, so it cannot be
// raised), the run warns before it starts, the requests that cannot get a
// connection fail with the error counted, and the result is still written.
// The child process holds the limit; the server runs in this process, so
// its descriptors do not count against it.
func TestOpenFileLimitCostsNoResult(t *testing.T) {
	const prompts = 600
	if inChild(t) {
		var out, errOut strings.Builder
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 128, Max: 128}); err != nil {
			t.Fatal(err)
		}
		code := Main(t.Context(), []string{"serve", "--base-url", os.Getenv("GOBENCH_TEST_URL"), "--model", "gobench/sim",
			"--tokenizer", "gobench-builtin", "--num-prompts", "600", "--random-input-len", "8", "--random-output-len", "2",
			"--max-concurrency", "500", "--save-result", "--save-detailed", "--result-dir", os.Getenv("GOBENCH_TEST_DIR"),
			"--result-filename", "r.json"}, Deps{Stdout: &out, Stderr: &errOut})
		t.Logf("CHILD exit=%d stderr=%q", code, errOut.String())
		return
	}
	t.Parallel()
	srv, _ := simServer(t, 50*time.Millisecond, time.Millisecond, 0)
	dir := t.TempDir()
	out := runChild(t, "GOBENCH_TEST_DIR="+dir, "GOBENCH_TEST_URL="+srv.URL)
	if !strings.Contains(out, "may open only 128 files (ulimit -n)") {
		t.Errorf("no warning before the run:\n%s", out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatalf("no result file: %v\n%s", err, out)
	}
	var res struct {
		Completed, Failed int
		Errors            []string
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if res.Completed+res.Failed != prompts || res.Failed == 0 || res.Completed == 0 {
		t.Errorf("completed %d + failed %d, want %d with some of each\n%s", res.Completed, res.Failed, prompts, out)
	}
	if !strings.Contains(strings.Join(res.Errors, "\n"), "too many open files") {
		t.Errorf("the failures do not say why: %.300q", res.Errors)
	}
}
