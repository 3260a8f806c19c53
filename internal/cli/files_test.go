package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/tokenizer"
)

// runMain runs gobench in-process and returns its output and exit status.
func runMain(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Main(context.Background(), args, Deps{Stdout: &out, Stderr: &errOut, Version: "test"})
	return out.String(), errOut.String(), code
}

// fixture is the path of one of package resultfile's test files.
func fixture(name string) string { return filepath.Join("..", "resultfile", "testdata", name) }

// simServer serves gobench's simulator on 127.0.0.1; with failEvery > 0,
// every failEvery-th completion request is answered with HTTP 500. posts
// counts the completion requests received.
func simServer(t *testing.T, ttft, itl time.Duration, failEvery int64) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	s, err := sim.NewServer(sim.Config{TTFT: ttft, ITL: itl, Tokenizer: tokenizer.Builtin(), Root: tokenizer.BuiltinName})
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	var posts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			if n := posts.Add(1); failEvery > 0 && n%failEvery == 0 {
				http.Error(w, "injected failure", http.StatusInternalServerError)
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &posts
}

// resultBlock is what serve prints from the failure list (if any, on
// stderr) and the result block (stdout, to its closing rule).
func resultBlock(t *testing.T, stdout, stderr string) string {
	t.Helper()
	var failures string
	if i := strings.Index(stderr, "Failed requests during benchmark run detected"); i >= 0 {
		for n, line := range strings.SplitAfter(stderr[i:], "\n") {
			if n > 0 && !strings.HasPrefix(line, "Error ") {
				break
			}
			failures += line
		}
	}
	start := strings.Index(stdout, "============ Serving Benchmark Result")
	rule := "\n" + strings.Repeat("=", 50) + "\n"
	end := strings.Index(stdout[max(start, 0):], rule)
	if start < 0 || end < 0 {
		t.Fatalf("no result block in:\n%s", stdout)
	}
	return failures + stdout[start:start+end+len(rule)]
}

// TestAnalyzeReproducesServe runs `gobench serve --save-detailed` against
// the simulator (one request in five failing, client queueing, goodput,
// every metric and odd percentiles), then `gobench analyze` on the file
// with the same --goodput: the printed failure list and result block are
// identical character for character, and every number of the saved result
// equals the recomputed one bit for bit.
func TestAnalyzeReproducesServe(t *testing.T) {
	t.Parallel()
	srv, _ := simServer(t, 8*time.Millisecond, 2*time.Millisecond, 5)
	dir := t.TempDir()
	out, errOut, code := runMain(t, "serve", "--base-url", srv.URL, "--num-prompts", "40", "--request-rate", "400",
		"--max-concurrency", "6", "--random-input-len", "16", "--random-output-len", "5", "--seed", "3",
		"--percentile-metrics", "ttft,tpot,itl,e2el", "--metric-percentiles", "50,90,99.9",
		"--goodput", "ttft:12", "tpot:2.5", "--save-result", "--save-detailed", "--result-dir", dir,
		"--result-filename", "run.json", "--disable-tqdm")
	if code != 0 {
		t.Fatalf("serve exit %d\n%s\n%s", code, out, errOut)
	}
	served := resultBlock(t, out, errOut)
	if !strings.Contains(served, "Failed requests:                         8") || !strings.Contains(served, "Request goodput") ||
		!strings.Contains(served, "P99.9 E2EL incl. Client Queue") {
		t.Fatalf("the run did not exercise failures, goodput and every section:\n%s", served)
	}
	path := filepath.Join(dir, "run.json")

	out, errOut, code = runMain(t, "analyze", path, "--goodput", "ttft:12", "tpot:2.5")
	if code != 0 {
		t.Fatalf("analyze exit %d\n%s\n%s", code, out, errOut)
	}
	if out := resultBlock(t, out, errOut); out != served {
		t.Errorf("analyze printed\n%s\nserve printed\n%s", out, served)
	}

	out, errOut, code = runMain(t, "analyze", path, "--goodput", "ttft:12", "tpot:2.5", "--format", "json")
	if code != 0 {
		t.Fatalf("analyze --format json exit %d: %s", code, errOut)
	}
	saved, err := resultfile.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := resultfile.Parse("analyze output", []byte(out), nil)
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, k := range saved.Keys() {
		want, ok := saved.Number(k)
		if !ok || k == "burstiness" {
			continue
		}
		got, ok := runs[0].Number(k)
		if !ok || math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("%s: analyze %v, serve saved %v", k, got, want)
		}
		compared++
	}
	if compared < 50 {
		t.Errorf("only %d numbers compared", compared)
	}
}

// TestAnalyzeOptions: other percentiles and SLOs, Markdown, thresholds on
// the recomputed result, and the hint when --goodput swallows the file.
func TestAnalyzeOptions(t *testing.T) {
	t.Parallel()
	f := fixture("gobench_fast.json")
	out, _, code := runMain(t, "analyze", f, "--metric-percentiles", "95", "--percentile-metrics", "e2el")
	if code != 0 || !strings.Contains(out, "P95 E2EL (ms):") || strings.Contains(out, "TTFT") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	out, _, code = runMain(t, "analyze", f, "--format", "markdown")
	if code != 0 || !strings.HasPrefix(out, "### gobench analyze") || !strings.Contains(out, "| TTFT |") {
		t.Errorf("markdown exit %d:\n%s", code, out)
	}
	out, _, code = runMain(t, "analyze", f, "--goodput", "e2el:1", "--threshold", "request_goodput>=1")
	if code != int(exitcode.ThresholdFailed) || !strings.Contains(out, "FAIL  request_goodput>=1  0 < 1") {
		t.Errorf("threshold on the new goodput: exit %d\n%s", code, out)
	}
	_, errOut, code := runMain(t, "analyze", "--goodput", "ttft:5", f)
	if code != int(exitcode.BadUsage) || !strings.Contains(errOut, "put it before --goodput") {
		t.Errorf("file after --goodput: exit %d: %s", code, errOut)
	}
	_, errOut, code = runMain(t, "analyze", fixture("vllm_runs.jsonl#0"))
	if code != int(exitcode.Failure) || !strings.Contains(errOut, "--save-detailed") {
		t.Errorf("non-detailed file: exit %d: %s", code, errOut)
	}
	_, errOut, code = runMain(t, "analyze", f, "--metric-percentiles", "101")
	if code != int(exitcode.BadUsage) || !strings.Contains(errOut, "--metric-percentiles") {
		t.Errorf("bad percentiles: exit %d: %s", code, errOut)
	}
	out, errOut, code = runMain(t, "analyze", fixture("vllm_detailed.json"))
	if code != 0 || !strings.Contains(errOut, "note: no latencies") || !strings.Contains(errOut, "pass --goodput") ||
		!strings.Contains(out, "Mean TTFT (ms):                          284.00") {
		t.Errorf("vLLM file: exit %d\n%s\n%s", code, out, errOut)
	}
}

// writeResult writes a small result file and returns its path.
func writeResult(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCheckExitStatus: pass, fail, every request failed, bad syntax, and
// the other command-line mistakes, each with its exit status and message.
func TestCheckExitStatus(t *testing.T) {
	t.Parallel()
	fast, slow := fixture("gobench_fast.json"), fixture("gobench_slow.json")
	allFailed := writeResult(t, "failed.json", `{"duration": 1.0, "completed": 0, "failed": 4, "p99_ttft_ms": 0.0, "request_throughput": 0.0}`)
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // part of stdout
		stderr string // part of stderr
	}{
		{"pass", []string{slow, "--threshold", "p99_ttft_ms<500", "--threshold", "failed_ratio<0.01"}, int(exitcode.OK),
			"PASS  failed_ratio<0.01  0 < 0.01", ""},
		{"fail", []string{slow, "--baseline", fast, "--threshold", "p99_ttft_ms<=baseline*1.05", "--threshold", "completed>=24"}, int(exitcode.ThresholdFailed),
			"FAIL  p99_ttft_ms<=baseline*1.05  25.88 > 23.97 (baseline 22.83)", "1 of 2 threshold(s) failed"},
		{"all failed never passes", []string{allFailed, "--threshold", "p99_ttft_ms<500"}, int(exitcode.AllFailed),
			"FAIL  p99_ttft_ms<500  every request failed", "every request failed"},
		{"bad syntax", []string{slow, "--threshold", "p99_ttft_ms=<500"}, int(exitcode.BadUsage),
			"", `argument --threshold: bad threshold "p99_ttft_ms=<500": "=<" is not a comparison`},
		{"unknown key", []string{slow, "--threshold", "p99_ttf_ms<500"}, int(exitcode.BadUsage),
			"FAIL  p99_ttf_ms<500  not in the result", `no numeric key "p99_ttf_ms": did you mean p99_ttft_ms?`},
		{"unknown key, nothing near", []string{slow, "--threshold", "zzz_qqq<500"}, int(exitcode.BadUsage),
			"FAIL  zzz_qqq<500  not in the result", `no numeric key "zzz_qqq" (it has: num_prompts`},
		{"relative without baseline", []string{slow, "--threshold", "p99_ttft_ms<=baseline"}, int(exitcode.BadUsage),
			"", "give --baseline FILE"},
		{"no threshold", []string{slow}, int(exitcode.BadUsage), "", "give at least one --threshold"},
		{"no such run", []string{fixture("vllm_runs.jsonl#7"), "--threshold", "p99_ttft_ms<500"}, int(exitcode.BadUsage), "", "holds 3 run(s)"},
		{"several runs", []string{fixture("vllm_runs.jsonl"), "--threshold", "p99_ttft_ms<500"}, int(exitcode.BadUsage), "", "#INDEX"},
		{"run by label", []string{fixture("vllm_runs.jsonl#base"), "--threshold", "p99_ttft_ms<500"}, int(exitcode.OK), "PASS", ""},
		{"missing file", []string{"no-such.json", "--threshold", "p99_ttft_ms<500"}, int(exitcode.Failure), "", "no-such.json"},
		{"vLLM's bare Infinity", []string{fixture("vllm_detailed.json"), "--threshold", "burstiness>1e308"}, int(exitcode.OK), "inf > 1e+308", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, errOut, code := runMain(t, append([]string{"check"}, tt.args...)...)
			if code != tt.code || !strings.Contains(out, tt.stdout) || !strings.Contains(errOut, tt.stderr) {
				t.Errorf("exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
		})
	}
	out, _, code := runMain(t, "check", slow, "--threshold", "p99_ttft_ms<500", "--format", "json")
	var v map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v["passed"] != true {
		t.Errorf("json: exit %d %s", code, out)
	}
}

// TestServeThresholds: thresholds on `gobench serve` itself.
func TestServeThresholds(t *testing.T) {
	t.Parallel()
	srv, _ := simServer(t, 2*time.Millisecond, time.Millisecond, 0)
	base := []string{"serve", "--base-url", srv.URL, "--num-prompts", "6", "--random-input-len", "16", "--random-output-len", "3", "--disable-tqdm"}
	serve := func(extra ...string) (string, string, int) {
		t.Helper()
		return runMain(t, append(append([]string{}, base...), extra...)...)
	}

	out, errOut, code := serve("--threshold", "p99_ttft_ms<10000", "--threshold", "failed_ratio<0.01",
		"--threshold", "mean_tpot_ms<=baseline*1000", "--threshold-baseline", fixture("gobench_fast.json"))
	// The baseline is another workload, which the report says before any verdict.
	warning := "Warning: workload differs, baseline → result: num_prompts 24 → 6; request_rate 40.0 → inf; max_concurrency 8 → null\n"
	if code != 0 || !strings.Contains(out, "==================================================\n\n=================== Thresholds ===================\n"+warning+"PASS  p99_ttft_ms<10000") ||
		!strings.Contains(out, "Thresholds: 3 passed, 0 failed.") {
		t.Errorf("pass: exit %d\n%s\n%s", code, out, errOut)
	}

	out, errOut, code = serve("--threshold", "p99_ttft_ms<0.001")
	if code != int(exitcode.ThresholdFailed) || !strings.Contains(out, "FAIL  p99_ttft_ms<0.001") || !strings.Contains(errOut, "1 of 1 threshold(s) failed") {
		t.Errorf("fail: exit %d\n%s\n%s", code, out, errOut)
	}

	summary := filepath.Join(t.TempDir(), "summary.md")
	out, _, code = serve("--threshold", "p99_ttft_ms<10000", "--format", "markdown", "--summary-file", summary)
	md, err := os.ReadFile(summary)
	if code != 0 || err != nil || strings.Contains(out, "Serving Benchmark Result") || !strings.Contains(out, "### gobench serve · gobench-builtin") ||
		!strings.Contains(out, "| ✅ pass | `p99_ttft_ms<10000` |") || !strings.Contains(string(md), "| Successful requests | 6 |") ||
		!strings.Contains(string(md), "#### Thresholds") {
		t.Errorf("markdown: exit %d (%v)\nstdout:\n%s\nsummary:\n%s", code, err, out, md)
	}
	serve("--summary-file", summary) // appends
	if md2, _ := os.ReadFile(summary); strings.Count(string(md2), "### gobench serve") != 2 {
		t.Errorf("the summary file was not appended to:\n%s", md2)
	}
}

// TestServeThresholdErrors: mistakes found before anything is sent, and a
// run in which every request failed, which no threshold can pass.
func TestServeThresholdErrors(t *testing.T) {
	t.Parallel()
	srv, posts := simServer(t, time.Millisecond, time.Millisecond, 0)
	args := []string{"serve", "--base-url", srv.URL, "--num-prompts", "3", "--random-input-len", "8", "--random-output-len", "2"}
	tests := []struct {
		name   string
		extra  []string
		stderr string
	}{
		{"bad syntax", []string{"--threshold", "p99_ttft_ms<<5"}, `bad threshold "p99_ttft_ms<<5"`},
		// (p99_e2el_ms, which --percentile-metrics leaves out, is computed
		// from the per-request data; a queue without --max-concurrency is
		// never measured.)
		{"key this run will not have", []string{"--threshold", "p99_client_queue_time_ms<5"}, `no key "p99_client_queue_time_ms"`},
		{"relative without baseline", []string{"--threshold", "p99_ttft_ms<baseline"}, "give --threshold-baseline FILE"},
		{"baseline without the key", []string{"--threshold", "mean_ttft_ms<baseline", "--threshold-baseline", writeResult(t, "b.json", `{"duration": 1.0}`)}, `has no numeric key "mean_ttft_ms"`},
		{"no such baseline run", []string{"--threshold", "mean_ttft_ms<baseline", "--threshold-baseline", fixture("vllm_runs.jsonl#x")}, `no run has the label "x"`},
		{"dry run", []string{"--threshold", "p99_ttft_ms<5", "--dry-run"}, "leave out --dry-run"},
	}
	for _, tt := range tests {
		_, errOut, code := runMain(t, append(append([]string{}, args...), tt.extra...)...)
		if code != int(exitcode.BadUsage) || !strings.Contains(errOut, tt.stderr) {
			t.Errorf("%s: exit %d: %s", tt.name, code, errOut)
		}
	}
	if n := posts.Load(); n != 0 {
		t.Errorf("%d requests sent by command lines that were refused", n)
	}

	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "nope", http.StatusBadGateway)
	}))
	defer bad.Close()
	out, errOut, code := runMain(t, "serve", "--base-url", bad.URL, "--model", "m", "--tokenizer", tokenizer.BuiltinName,
		"--num-prompts", "2", "--random-input-len", "8", "--random-output-len", "2", "--threshold", "p99_ttft_ms<500", "--threshold", "failed_ratio<=1")
	if code != int(exitcode.AllFailed) || !strings.Contains(out, "FAIL  p99_ttft_ms<500  every request failed") || !strings.Contains(out, "FAIL  failed_ratio<=1") {
		t.Errorf("all failed: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestCompareCommand: formats, selectors, a single file of several runs,
// and the errors.
func TestCompareCommand(t *testing.T) {
	t.Parallel()
	fast, slow := fixture("gobench_fast.json"), fixture("gobench_slow.json")
	out, _, code := runMain(t, "compare", fast, slow)
	if code != 0 || !strings.Contains(out, "real, worse") || !strings.Contains(out, "Significance: 99% bootstrap interval") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
	again, _, _ := runMain(t, "compare", fast, slow)
	other, _, _ := runMain(t, "compare", fast, slow, "--seed", "5")
	if again != out || other == out {
		t.Error("the seed does not decide the intervals")
	}
	out, _, code = runMain(t, "compare", fast, slow, "--format", "markdown", "--confidence", "0.95", "--resamples", "500")
	if code != 0 || !strings.Contains(out, "| mean_ttft_ms | lower |") || !strings.Contains(out, "🔴 real, worse") || !strings.Contains(out, "95% confidence") {
		t.Errorf("markdown: exit %d\n%s", code, out)
	}
	out, _, code = runMain(t, "compare", fast, slow, "--format", "json")
	var v map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v["baseline"] != "A" {
		t.Errorf("json: exit %d\n%s", code, out)
	}
	out, _, code = runMain(t, "compare", fixture("vllm_runs.jsonl"))
	if code != 0 || !strings.Contains(out, "C (") && !strings.Contains(out, "vllm_runs.jsonl#2") {
		t.Errorf("one file of three runs: exit %d\n%s", code, out)
	}
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{fast}, int(exitcode.BadUsage), "holds one run"},
		{[]string{fast, fixture("vllm_runs.jsonl#tuned")}, int(exitcode.BadUsage), "runs 1, 2 all have the label"},
		{[]string{fast, "missing.json"}, int(exitcode.Failure), "missing.json"},
		{[]string{fast, slow, "--confidence", "1.5"}, int(exitcode.BadUsage), "--confidence"},
		{[]string{fast, slow, "--format", "html"}, int(exitcode.BadUsage), "invalid choice"},
	}
	for _, tt := range tests {
		_, errOut, code := runMain(t, append([]string{"compare"}, tt.args...)...)
		if code != tt.code || !strings.Contains(errOut, tt.stderr) {
			t.Errorf("compare %v: exit %d: %s", tt.args, code, errOut)
		}
	}
}

// TestFileCommandsHelp: every command documents its exit statuses.
func TestFileCommandsHelp(t *testing.T) {
	t.Parallel()
	for cmd, want := range map[string]string{
		"serve": "4 a --threshold failed", "check": "4 a threshold failed", "analyze": "4 a threshold failed",
		"compare": "Exit status: 0 compared",
	} {
		out, _, code := runMain(t, cmd, "--help")
		if code != 0 || !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("%s --help (exit %d) lacks %q", cmd, code, want)
		}
	}
}
