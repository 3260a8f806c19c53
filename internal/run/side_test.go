package run

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/serverapi"
	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/testserver"
	"github.com/gobench/gobench/internal/tokenizer"
)

// TestSideCallsSayWhenTheyTimeOut: a /metrics scrape that
// never answers is cut by its own timeout, the run goes on, and the user is
// told which endpoint timed out and what is left out; an alignment whose
// /tokenize never answers is skipped with a warning that says it timed out.
func TestSideCallsSayWhenTheyTimeOut(t *testing.T) {
	t.Parallel()
	simSrv := startSim(t, time.Millisecond, time.Millisecond)
	released := make(chan struct{})
	hang := func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // so that the server sees the client go
		select {
		case <-r.Context().Done():
		case <-released:
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/metrics", "/tokenize":
			hang(w, r)
		default:
			testserver.Proxy(simSrv.URL).ServeHTTP(w, r)
		}
	}))
	defer srv.Close()
	defer close(released)

	o := baseOptions(srv.URL)
	o.NumPrompts = 2
	var b buffers
	env := b.env()
	// NewPlan re-aligns the random prompts through /tokenize, which hangs:
	// its default timeout would hold the test for 30 s, so the alignment
	// is checked on its own below and the plan here skips it.
	o.Dataset.Name, o.Dataset.Path, o.Model, o.Tokenizer = "custom", writePrompts(t, 2), sim.DefaultModel, tokenizer.BuiltinName
	o.Dataset.SkipChatTemplate = true
	p, err := NewPlan(context.Background(), o, env)
	if err != nil {
		t.Fatal(err)
	}
	p.api.MetricsTimeout = 100 * time.Millisecond
	res, err := p.Execute(context.Background(), env)
	if err != nil || res.Metrics.Completed != 2 {
		t.Fatalf("run: %v, %+v\n%s", err, res, &b.err)
	}
	if !strings.Contains(b.err.String(), "/metrics: timed out after 100ms: the server's counters") {
		t.Errorf("no timeout warning for /metrics:\n%s", &b.err)
	}

	api := &serverapi.Client{HTTP: srv.Client(), BaseURL: srv.URL, Timeout: 100 * time.Millisecond}
	var out bytes.Buffer
	got := alignPrompts(context.Background(), api, "m", prompts(4, 6), &out)
	if !strings.Contains(out.String(), "WARNING: /tokenize timed out") || got[0].Prompt != prompts(4, 6)[0].Prompt {
		t.Errorf("alignment over a hanging /tokenize: %q", out.String())
	}
}

// writePrompts writes a custom dataset of n short prompts and returns its
// path.
func writePrompts(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.jsonl")
	var b strings.Builder
	for range n {
		b.WriteString("{\"prompt\": \"the quick brown fox\"}\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
