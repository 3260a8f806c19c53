package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/tokenizer"
)

// TestServeServerView: a run against a server with /metrics prints the
// server view after vLLM's block and saves it as server_view;
// --no-server-metrics leaves both out; a server without /metrics costs one
// line on stderr and nothing else.
func TestServeServerView(t *testing.T) {
	t.Parallel()
	s, err := sim.NewServer(sim.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond, Tokenizer: tokenizer.Builtin(), Root: tokenizer.BuiltinName})
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	noMetrics := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(noMetrics.Close)
	for _, tc := range []struct {
		name, url string
		extra     []string
		view      bool
		stderr    string
	}{
		{"with /metrics", "", []string{"--metrics-interval", "0.02", "--summary-file", "SUMMARY", "--save-detailed"}, true, ""},
		{"--no-server-metrics", "", []string{"--no-server-metrics"}, false, ""},
		{"no /metrics", noMetrics.URL, nil, false, "Server view: off for this run: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.url == "" { // a server of its own: the server view counts every request it serves
				srv, _ := simServer(t, 5*time.Millisecond, time.Millisecond, 0)
				tc.url = srv.URL
			}
			dir := t.TempDir()
			for i, a := range tc.extra {
				if a == "SUMMARY" {
					tc.extra[i] = filepath.Join(dir, "summary.md")
				}
			}
			args := append([]string{"serve", "--base-url", tc.url, "--model", "gobench/sim", "--tokenizer", "gobench-builtin",
				"--num-prompts", "8", "--random-input-len", "16", "--random-output-len", "4", "--request-rate", "40",
				"--save-result", "--result-dir", dir, "--result-filename", "r.json"}, tc.extra...)
			stdout, stderr, code := runMain(t, args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			block := strings.Index(stdout, "Serving Benchmark Result")
			section := strings.Index(stdout, "Server view")
			if tc.view != (section > block) || (section >= 0) != tc.view {
				t.Errorf("server view printed %v, want %v:\n%s", section >= 0, tc.view, stdout)
			}
			if tc.stderr != "" && strings.Count(stderr, tc.stderr) != 1 {
				t.Errorf("stderr does not say %q once:\n%s", tc.stderr, stderr)
			}
			b, err := os.ReadFile(filepath.Join(dir, "r.json"))
			if err != nil {
				t.Fatal(err)
			}
			saved, err := pyjson.DecodeObject(b)
			if err != nil {
				t.Fatal(err)
			}
			v, ok := saved.Get("server_view")
			if ok != tc.view {
				t.Fatalf("server_view saved %v, want %v", ok, tc.view)
			}
			if !ok {
				return
			}
			checkSavedServerView(t, dir, v.(*pyjson.Object))
		})
	}
}

// checkSavedServerView checks a run's saved server view (in dir/r.json,
// its summary in dir/summary.md): in the summary file, kept by analyze,
// every part there, and the server's count of the 8 requests sent.
func checkSavedServerView(t *testing.T, dir string, view *pyjson.Object) {
	t.Helper()
	summary, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil || !strings.Contains(string(summary), "### Server view") {
		t.Errorf("the --summary-file lacks the server view (%v):\n%s", err, summary)
	}
	out, _, code := runMain(t, "analyze", filepath.Join(dir, "r.json"), "--format", "json")
	if code != 0 || !strings.Contains(out, `"gobench_version": "test"`) {
		t.Errorf("analyze --format json does not keep the file's gobench_version (exit %d):\n%s", code, out)
	}
	for _, k := range []string{"window_s", "quantiles", "ratios", "gauges", "findings", "verdict", "client_vs_server", "timeline"} {
		if _, ok := view.Get(k); !ok {
			t.Errorf("server_view lacks %s", k)
		}
	}
	ratios, _ := view.Get("ratios")
	if n, _ := ratios.(*pyjson.Object).Get("finished_requests"); n != 8.0 {
		t.Errorf("the server finished %v requests in the window, the client sent 8", n)
	}
}

// TestSummaryFileCheckedFirst: a --summary-file that cannot be appended to
// fails before any request is sent, not after the run.
func TestSummaryFileCheckedFirst(t *testing.T) {
	t.Parallel()
	srv, posts := simServer(t, time.Millisecond, time.Millisecond, 0)
	_, stderr, code := runMain(t, "serve", "--base-url", srv.URL, "--model", "gobench/sim", "--tokenizer", "gobench-builtin",
		"--num-prompts", "2", "--random-input-len", "16", "--random-output-len", "2",
		"--summary-file", filepath.Join(t.TempDir(), "missing", "summary.md"))
	if code == 0 || !strings.Contains(stderr, "--summary-file: cannot write in directory") || posts.Load() != 0 {
		t.Errorf("exit %d, %d requests sent, stderr:\n%s", code, posts.Load(), stderr)
	}
}
