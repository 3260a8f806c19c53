//go:build unix

package sweep

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSweepStopsWhenServerExits: a --serve-cmd process that exits while
// something else answers its health check (another server on its port)
// stops the sweep with its exit status and the end of its output, whether
// the sweep notices the exit in the ready wait, before the benchmark or
// during it. The benchmark stands for one waiting on a server that is
// gone: it ends only when its context is cancelled, so the sweep must
// cancel it; no step depends on how fast anything runs.
func TestSweepStopsWhenServerExits(t *testing.T) {
	t.Parallel()
	health := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	t.Cleanup(health.Close)
	u, err := url.Parse(health.URL)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	o := Options{
		ServeCmd: []string{"/bin/sh", "-c", "echo starting; echo boom >&2; exit 3", "sh", "--host", u.Hostname(), "--port", u.Port()},
		BenchCmd: []string{"gobench", "serve"}, ServeParams: One(), BenchParams: One(), NumRuns: 1,
		OutputDir: dir, ExperimentName: "exp", ServerReadyTimeout: time.Hour,
	}
	bench := func(ctx context.Context, _ Bench) error {
		<-ctx.Done()
		return ctx.Err()
	}
	err = Run(context.Background(), o, Env{Stderr: io.Discard, Stdout: io.Discard, Run: bench})
	log := filepath.Join(dir, "exp", "SERVE-default-server.log")
	if err == nil {
		t.Fatal("the sweep went on without its server")
	}
	for _, want := range []string{"exit status 3", "boom", log} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q: %v", want, err)
		}
	}
	if _, serr := os.Stat(filepath.Join(dir, "exp", "summary.csv")); serr == nil {
		t.Error("a summary was written without a run")
	}
}

// TestLogTail: the end of a server's output, without the sweep's header
// line and with a cut first line dropped.
func TestLogTail(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "server.log")
	text := logHeader + "x, started now\nfirst\n\nsecond\nthird\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := logTail(path, 2, 1<<10), "  second\n  third"; got != want {
		t.Errorf("two lines: %q, want %q", got, want)
	}
	if got, want := logTail(path, 10, int64(len("ond\nthird\n"))), "  third"; got != want {
		t.Errorf("from a cut line: %q, want %q", got, want)
	}
	if got := logTail(filepath.Join(t.TempDir(), "none.log"), 10, 1<<10); got != "" {
		t.Errorf("a missing log: %q", got)
	}
}
