package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/exitcode"
)

// chartRE finds the report's charts (htmlreport's contract).
var chartRE = regexp.MustCompile(`<figure class="gb-chart[^"]*" id="chart-([a-z0-9-]+)" data-series="([1-9]\d*)" data-points="([1-9]\d*)">`)

// reportCharts reads an HTML report and returns its charts' ids.
func reportCharts(t *testing.T, path string) (page string, ids map[string]bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ids = map[string]bool{}
	for _, m := range chartRE.FindAllStringSubmatch(string(b), -1) {
		ids[m[1]] = true
	}
	return string(b), ids
}

// wantCharts fails unless every id is among the page's charts.
func wantCharts(t *testing.T, ids map[string]bool, want ...string) {
	t.Helper()
	for _, id := range want {
		if !ids[id] {
			t.Errorf("no chart-%s among %v", id, ids)
		}
	}
}

// simResult runs serve against the simulator and saves a detailed result
// as dir/name.
func simResult(t *testing.T, dir, name string, extra ...string) string {
	t.Helper()
	args := append(append([]string{}, simArgs...), "--save-result", "--save-detailed", "--result-dir", dir, "--result-filename", name)
	if _, errOut, code := runMain(t, append(args, extra...)...); code != 0 {
		t.Fatalf("serve: exit %d: %s", code, errOut)
	}
	return filepath.Join(dir, name)
}

// TestReportCommand: gobench report writes one page of a run (every
// chart), of two runs (overlaid, under compare's table) and of a sweep
// directory.
func TestReportCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := simResult(t, dir, "a.json", "--goodput", "ttft:50")
	b := simResult(t, dir, "b.json", "--seed", "2")

	out := filepath.Join(dir, "one.html")
	if _, errOut, code := runMain(t, "report", a, "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	page, ids := reportCharts(t, out)
	wantCharts(t, ids, "hist-ttft", "cdf-ttft", "hist-tpot", "cdf-e2el", "inflight", "tokens", "timeline", "input-lens", "output-lens")
	if !strings.Contains(page, "SLO 50") || !strings.Contains(page, "Serving Benchmark Result") {
		t.Error("the page lacks the SLO mark or vLLM's block")
	}

	out = filepath.Join(dir, "two.html")
	if _, errOut, code := runMain(t, "report", a, b, "--output", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	page, ids = reportCharts(t, out)
	wantCharts(t, ids, "cdf-ttft", "timeline-1", "timeline-2")
	if !strings.Contains(page, "<h2>Comparison</h2>") || !strings.Contains(page, `data-series="2"`) {
		t.Error("two runs: no comparison or no overlay")
	}

	sweep := filepath.Join(dir, "sweep")
	if err := os.MkdirAll(sweep, 0o755); err != nil {
		t.Fatal(err)
	}
	table := `[{"point": "r1", "request_rate": 1.0, "max_concurrency": null, "completed": 10, "request_throughput": 1.0, "output_throughput": 50.0, "median_ttft_ms": 20.0, "p99_ttft_ms": 30.0},
 {"point": "r2", "request_rate": 4.0, "max_concurrency": null, "completed": 10, "request_throughput": 3.9, "output_throughput": 190.0, "median_ttft_ms": 40.0, "p99_ttft_ms": 90.0}]`
	sla := `{"sla_variable": "request_rate", "criteria": ["p99_ttft_ms<=100"], "answer": 4.0, "answer_interval": [4.0, 8.0], "stop": "tolerance",
 "points": [{"request_rate": 4.0, "num_prompts": 10, "attempt": 1, "request_throughput": 3.9, "verdict": "pass"}, {"request_rate": 8.0, "num_prompts": 10, "attempt": 1, "request_throughput": 5.0, "verdict": "fail"}]}`
	for name, body := range map[string]string{"sweep_table.json": table, "sla.json": sla} {
		if err := os.WriteFile(filepath.Join(sweep, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out = filepath.Join(dir, "sweep.html")
	if _, errOut, code := runMain(t, "report", sweep, "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	page, ids = reportCharts(t, out)
	wantCharts(t, ids, "sweep-latency", "sweep-throughput", "pareto", "sla")
	if !strings.Contains(page, "Largest request_rate meeting") {
		t.Error("no SLA answer")
	}
}

// TestReportErrors: a missing file exits 1, no argument exits 2.
func TestReportErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, errOut, code := runMain(t, "report", filepath.Join(dir, "nope.json"), "-o", filepath.Join(dir, "x.html")); code != 1 || !strings.Contains(errOut, "nope.json") {
		t.Errorf("missing file: exit %d: %s", code, errOut)
	}
	if _, errOut, code := runMain(t, "report"); code != int(exitcode.BadUsage) {
		t.Errorf("no file: exit %d: %s", code, errOut)
	}
	if _, errOut, code := runMain(t, "report", dir, "-o", filepath.Join(dir, "x.html")); code != 1 || !strings.Contains(errOut, "not a sweep directory") {
		t.Errorf("empty directory: exit %d: %s", code, errOut)
	}
}

// TestServeReportAndPlots: serve --report writes the full report at the
// end of the run; --plot-timeline and --plot-dataset-stats write theirs
// next to the result under vLLM's names (Path.with_suffix), with the
// per-request data even when the result is saved without it, and
// --plot-timeline names the result without --save-result, as vLLM's
// compute_result_filename does.
func TestServeReportAndPlots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	full := filepath.Join(dir, "full.html")
	args := append(append([]string{}, simArgs...), "--save-result", "--result-dir", dir, "--result-filename", "r.json",
		"--report", full, "--plot-timeline", "--timeline-itl-thresholds", "5,10", "--plot-dataset-stats")
	if _, errOut, code := runMain(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	_, ids := reportCharts(t, full)
	wantCharts(t, ids, "cdf-ttft", "timeline", "input-lens")
	page, ids := reportCharts(t, filepath.Join(dir, "r.timeline.html"))
	if len(ids) != 1 || !ids["timeline"] || !strings.Contains(page, `mean ITL \u003c 5 ms`) {
		t.Errorf("timeline page: %v", ids)
	}
	if _, ids = reportCharts(t, filepath.Join(dir, "r.dataset_stats.html")); len(ids) != 2 || !ids["input-lens"] || !ids["output-lens"] {
		t.Errorf("dataset page: %v", ids)
	}

	// Without --save-result: vLLM's generated name, in --result-dir.
	sub := filepath.Join(dir, "unsaved")
	args = append(append([]string{}, simArgs...), "--result-dir", sub, "--plot-timeline")
	if _, errOut, code := runMain(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	matches, _ := filepath.Glob(filepath.Join(sub, "openai-infqps-*-*.timeline.html"))
	if len(matches) != 1 {
		entries, _ := os.ReadDir(sub)
		t.Errorf("timeline without --save-result: %v", entries)
	}
	if json, _ := filepath.Glob(filepath.Join(sub, "*.json")); len(json) != 0 {
		t.Errorf("no result was asked for, yet %v", json)
	}
}

// TestServeReportFlagErrors: bad thresholds and an unwritable --report
// exit 2 before anything is sent.
func TestServeReportFlagErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--plot-timeline", "--timeline-itl-thresholds", "25"}, "Expected 2 ITL threshold values, got 1"},
		{[]string{"--plot-timeline", "--timeline-itl-thresholds", "a,b"}, "Invalid --timeline-itl-thresholds format"},
		{[]string{"--report", filepath.Join(dir, "no", "such", "dir", "r.html")}, "argument --report: the report cannot be written"},
		{[]string{"--report", filepath.Join(dir, "r.html"), "--num-runs", "2"}, "not with --num-runs or --sweep-*"},
		{[]string{"--plot-timeline", "--sweep-request-rate", "1,2"}, "not with --num-runs or --sweep-*"},
	} {
		_, errOut, code := runMain(t, append(append([]string{}, simArgs...), tt.args...)...)
		if code != int(exitcode.BadUsage) || !strings.Contains(errOut, tt.want) || strings.Contains(errOut, "Successful requests") {
			t.Errorf("%v: exit %d: %s", tt.args, code, errOut)
		}
	}
}
