package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gobench/gobench/internal/diagnose"
	"github.com/gobench/gobench/internal/golden"
	"github.com/gobench/gobench/internal/sim"
)

// diagnoseFixture is a page under testdata/diagnose: the design notes'
// sample scrape, and pages of gobench's simulator (scheduler engine,
// --max-num-seqs 8) before and after 24 requests sent at once, and of a
// fresh simulator after 5 (a restarted server).
func diagnoseFixture(name string) string {
	if name == "seed-sample.prom" {
		return filepath.Join("..", "diagnose", "testdata", name)
	}
	return filepath.Join("testdata", "diagnose", name)
}

// TestDiagnoseFiles runs gobench diagnose on saved pages and compares
// its output with the golden files: one scrape (totals since start, in
// each format), a window of known length, a window whose server
// restarted.
func TestDiagnoseFiles(t *testing.T) {
	t.Parallel()
	seed, start, end := diagnoseFixture("seed-sample.prom"), diagnoseFixture("sim-start.prom"), diagnoseFixture("sim-end.prom")
	tests := []struct {
		name string
		args []string
	}{
		{"seed_text", []string{"--metrics-file", seed}},
		{"seed_markdown", []string{"--metrics-file", seed, "--format", "markdown"}},
		{"seed_json", []string{"--metrics-file", seed, "--format", "json"}},
		{"sim_window", []string{"--metrics-file", start, "--metrics-file", end, "--window", "2s", "--max-num-seqs", "8"}},
		{"sim_restarted", []string{"--metrics-file", end, "--metrics-file", diagnoseFixture("sim-restarted.prom"), "--window", "60"}},
		{"sim_unknown_window", []string{"--metrics-file", start, "--metrics-file", end, "--format", "json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := runMain(t, append([]string{"diagnose"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			golden.Check(t, []byte(stdout))
		})
	}
}

// TestDiagnoseVerdictForScripts reads the verdict as the help tells a
// script to, and checks the seed sample's.
func TestDiagnoseVerdictForScripts(t *testing.T) {
	t.Parallel()
	stdout, _, code := runMain(t, "diagnose", "--metrics-file", diagnoseFixture("seed-sample.prom"), "--format", "json")
	var out struct {
		Verdict   string                        `json:"verdict"`
		WindowS   *float64                      `json:"window_s"`
		Quantiles map[string]map[string]float64 `json:"quantiles"`
		Ratios    map[string]any                `json:"ratios"`
		Gauges    map[string]any                `json:"gauges"`
		Findings  []map[string]any              `json:"findings"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || code != 0 {
		t.Fatalf("exit %d, %v: %s", code, err, stdout)
	}
	if out.Verdict != "queue/memory-thrashing" || out.WindowS != nil || len(out.Findings) != 5 {
		t.Errorf("verdict %q window %v findings %d", out.Verdict, out.WindowS, len(out.Findings))
	}
	if got := out.Quantiles["vllm:time_to_first_token_seconds"]["p99"]; got != 3.75 {
		t.Errorf("TTFT p99 %v", got)
	}
	for _, k := range []string{"prefix_cache_hit_rate", "prompt_to_generation_ratio", "finished_reason_share", "preemptions", "preemptions_per_s"} {
		if _, ok := out.Ratios[k]; !ok {
			t.Errorf("ratios lack %s", k)
		}
	}
}

// TestDiagnoseErrors checks the exit status and message of bad input: 2
// naming the flag, the file and the line; 1 for a server that does not
// answer.
func TestDiagnoseErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.prom")
	if err := os.WriteFile(bad, []byte("vllm:num_requests_running 1\nvllm:x{a=\"b\" 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	twoModels := filepath.Join(dir, "two.prom")
	if err := os.WriteFile(twoModels, []byte("vllm:num_requests_running{model_name=\"a\"} 1\nvllm:num_requests_running{model_name=\"b\"} 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	seed := diagnoseFixture("seed-sample.prom")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--metrics-file", bad}, 2, "argument --metrics-file: " + bad + ": text format parsing error in line 2: unexpected end of label value"},
		{[]string{"--metrics-file", filepath.Join(dir, "none.prom")}, 2, "argument --metrics-file: open " + filepath.Join(dir, "none.prom") + ": no such file"},
		{[]string{"--metrics-file", twoModels}, 2, "argument --model: the server serves several models (a, b): choose one with --model"},
		{[]string{"--metrics-file", twoModels, "--model", "c"}, 2, `argument --model: model "c" is not served (the metrics have: a, b)`},
		{[]string{"--metrics-file", seed, "--metrics-file", seed, "--metrics-file", seed}, 2, "at most twice"},
		{[]string{"--metrics-file", seed, "--window", "60"}, 2, "argument --window: one --metrics-file is totals since start"},
		{[]string{"--metrics-file", seed, "--base-url", "http://127.0.0.1:1"}, 2, "not with --base-url or --metrics-url"},
		{[]string{"--metrics-file", seed + "," + seed, "--metrics-file", seed}, 2, "2 files at the start but 1 at the end"},
		{[]string{"--metrics-file", seed, "--kv-high", "1.5"}, 2, "argument --kv-high: 1.5 is outside [0, 1]"},
		{[]string{"--metrics-file", seed, "--window", "-5"}, 2, "argument --window: must be positive"},
		{[]string{"--metrics-url", "http://127.0.0.1:1/stats"}, 2, `argument --metrics-url: "http://127.0.0.1:1/stats" does not end in /metrics`},
		{[]string{"--header", "a=1", "b=2"}, 2, "unrecognized arguments: b=2 (each --header takes one KEY=VALUE)"},
		{[]string{"--header", "Host=x"}, 2, "argument --header: header Host is set by the HTTP client"},
		{[]string{"--base-url", "http://127.0.0.1:1", "--window", "10ms"}, 1, "scrape http://127.0.0.1:1/metrics: "},
	}
	for _, tt := range tests {
		_, stderr, code := runMain(t, append([]string{"diagnose"}, tt.args...)...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("diagnose %s: exit %d, stderr %q; want %d and %q", strings.Join(tt.args, " "), code, stderr, tt.code, tt.want)
		}
	}
}

// scrapeSequence serves page A to the first GET /metrics and page B to the
// others, checking each request's headers with check.
func scrapeSequence(t *testing.T, a, b []byte, check func(*http.Request)) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		if check != nil {
			check(r)
		}
		page := b
		if n.Add(1) == 1 {
			page = a
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		w.Write(page)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(diagnoseFixture(name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestDiagnoseLive runs a live window of 1 s against a server whose
// page changes after the first scrape: the figures are the difference of
// the two pages, the headers and the URL's credentials are sent, no
// credential is printed, and --save-scrapes keeps pages that diagnose
// the same again, their window read from the times saved in them. The
// window is 1 s, sampled every 20 ms: with 50 ms a loaded machine's slow
// first scrape used up the window before the first sample, and the
// progress line checked below was never printed.
func TestDiagnoseLive(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var auths, extras []string
	srv, n := scrapeSequence(t, readFixture(t, "sim-start.prom"), readFixture(t, "sim-end.prom"), func(r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		auths, extras = append(auths, r.Header.Get("Authorization")), append(extras, r.Header.Get("X-Tenant"))
	})
	dir := t.TempDir()
	url := strings.Replace(srv.URL, "http://", "http://user:s3cret@", 1)
	var stdout, stderr strings.Builder
	code := Main(context.Background(), []string{"diagnose", "--base-url", url, "--window", "1s", "--interval", "20ms",
		"--header", "X-Tenant=t1", "--format", "json", "--save-scrapes", dir},
		Deps{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	live := decodeReport(t, stdout.String())
	if n.Load() < 2 || live.Verdict != "queue/seq-limit" || live.WindowS == nil || *live.WindowS <= 0 {
		t.Errorf("%d scrapes, verdict %s, window %v", n.Load(), live.Verdict, live.WindowS)
	}
	// The window is sim-end minus sim-start: the simulator's 24 requests.
	if got := live.Histograms["vllm:time_to_first_token_seconds"]["count"]; got != 24.0 {
		t.Errorf("TTFT count %v, want 24", got)
	}
	mu.Lock()
	if auths[0] != "Basic dXNlcjpzM2NyZXQ=" || extras[0] != "t1" {
		t.Errorf("headers: Authorization %q, X-Tenant %q", auths[0], extras[0])
	}
	mu.Unlock()
	if strings.Contains(stdout.String()+stderr.String(), "s3cret") {
		t.Error("the URL's password was printed")
	}
	if !strings.Contains(stderr.String(), "running 0  waiting 0") || !strings.Contains(stderr.String(), "gobench diagnose --metrics-file "+filepath.Join(dir, "start-1.prom")) {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	again, errOut, code := runMain(t, "diagnose", "--metrics-file", filepath.Join(dir, "start-1.prom"), "--metrics-file",
		filepath.Join(dir, "end-1.prom"), "--format", "json")
	if code != 0 {
		t.Fatalf("saved pages: exit %d: %s", code, errOut)
	}
	saved := decodeReport(t, again)
	// The saved times are wall-clock times; the live window is measured on
	// the monotonic clock. They agree unless the system's clock is stepped
	// during the window, which happens: a clean-clone run of 2026-12-03
	// read 1.016157 s against 1.011157 s, exactly 5 ms apart. A window
	// misread from the pages would be off by far more than the bound.
	if saved.Verdict != live.Verdict || math.Abs(*saved.WindowS-*live.WindowS) > 0.1 || saved.Histograms["vllm:time_to_first_token_seconds"]["count"] != 24.0 {
		t.Errorf("saved pages: verdict %s window %v, live %s %v", saved.Verdict, *saved.WindowS, live.Verdict, *live.WindowS)
	}
}

type reportJSON struct {
	Verdict    string                        `json:"verdict"`
	WindowS    *float64                      `json:"window_s"`
	Histograms map[string]map[string]any     `json:"histograms"`
	Quantiles  map[string]map[string]float64 `json:"quantiles"`
	Ratios     map[string]any                `json:"ratios"`
	Notes      []string                      `json:"notes"`
}

func decodeReport(t *testing.T, s string) reportJSON {
	t.Helper()
	var r reportJSON
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return r
}

// TestDiagnoseSimulator scrapes gobench's simulator before and after
// requests it serves, and diagnoses the window: the counts are the
// simulator's own.
func TestDiagnoseSimulator(t *testing.T) {
	t.Parallel()
	o := sim.NewOptions("", false)
	if err := o.Set("engine", "scheduler"); err != nil {
		t.Fatal(err)
	}
	cfg, err := o.Config()
	if err != nil {
		t.Fatal(err)
	}
	running, err := sim.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { running.Close() })
	dir := t.TempDir()
	scrape := func(name string) string {
		resp, err := http.Get(running.URL() + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a := scrape("a.prom")
	const requests, maxTokens = 6, 5
	for i := range requests {
		body := fmt.Sprintf(`{"model":%q,"prompt":"hello world %d","max_tokens":%d,"ignore_eos":true}`, sim.DefaultModel, i, maxTokens)
		resp, err := http.Post(running.URL()+"/v1/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	b := scrape("b.prom")
	stdout, stderr, code := runMain(t, "diagnose", "--metrics-file", a, "--metrics-file", b, "--window", "10", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r := decodeReport(t, stdout)
	if r.Histograms["vllm:e2e_request_latency_seconds"]["count"] != float64(requests) ||
		r.Ratios["generation_tokens"] != float64(requests*maxTokens) || r.Ratios["finished_requests"] != float64(requests) {
		t.Errorf("histograms %v ratios %v", r.Histograms["vllm:e2e_request_latency_seconds"], r.Ratios)
	}
	known := false
	for _, v := range diagnose.Verdicts() {
		known = known || string(v) == r.Verdict
	}
	if !known {
		t.Errorf("verdict %q", r.Verdict)
	}
}
