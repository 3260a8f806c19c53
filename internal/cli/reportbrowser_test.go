// The HTML report in a real browser: gobench report's and
// serve --report's pages opened from a file URL in headless Chromium
// (internal/browsertest), which fails on a console error or any request.

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/browsertest"
)

// simRun runs `serve --sim` in-process with n prompts at rate and saves
// the detailed result as dir/name; extra flags go last.
func simRun(t testing.TB, dir, name string, n int, rate string, extra ...string) string {
	t.Helper()
	args := append([]string{"serve", "--sim", "--sim-ttft", "0.005", "--sim-itl", "0.001", "--disable-tqdm",
		"--no-server-metrics", "--dataset-name", "random", "--random-input-len", "16", "--random-output-len", "8",
		"--num-prompts", fmt.Sprint(n), "--request-rate", rate, "--max-concurrency", "64", "--seed", "7",
		"--save-result", "--save-detailed", "--result-dir", dir, "--result-filename", name}, extra...)
	var out, errOut strings.Builder
	if code := Main(context.Background(), args, Deps{Stdout: &out, Stderr: &errOut, Version: "test"}); code != 0 {
		t.Fatalf("serve exited %d:\n%s", code, errOut.String())
	}
	return filepath.Join(dir, name)
}

// reportOf runs `gobench report FILE... -o DIR/report.html` and returns the
// report's path.
func reportOf(t testing.TB, dir string, files ...string) string {
	t.Helper()
	out := filepath.Join(dir, "report.html")
	var stdout, stderr strings.Builder
	args := append(append([]string{"report"}, files...), "-o", out)
	if code := Main(context.Background(), args, Deps{Stdout: &stdout, Stderr: &stderr, Version: "test"}); code != 0 {
		t.Fatalf("report exited %d:\n%s", code, stderr.String())
	}
	return out
}

// medianTTFT is the result file's median TTFT as the result block prints
// it (two decimals).
func medianTTFT(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		MedianTTFT float64 `json:"median_ttft_ms"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%.2f", r.MedianTTFT)
}

var number = regexp.MustCompile(`\d+(\.\d+)?`)

// checkReport opens the report in the browser (browsertest.Check fails on
// any request but the file, any console error, a chart that did not draw or
// shows no tooltip) and checks that the page's text holds every want, that a
// chart's id holds each of chartIDs, and that every tooltip shows a number.
func checkReport(t *testing.T, path string, want, chartIDs []string) []browsertest.Chart {
	t.Helper()
	res, err := browsertest.Check(context.Background(), browsertest.Require(t), path, browsertest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(res.Text, w) {
			t.Errorf("the report's text lacks %q", w)
		}
	}
	for _, id := range chartIDs {
		found := false
		for _, c := range res.Charts {
			found = found || strings.Contains(c.ID, id)
		}
		if !found {
			t.Errorf("no chart id holds %q (charts: %+v)", id, res.Charts)
		}
	}
	for _, c := range res.Charts {
		if !number.MatchString(c.Tooltip) {
			t.Errorf("%s: tooltip %q shows no number", c.ID, c.Tooltip)
		}
	}
	if pids := browsertest.ProfileUsers(res.Profile); len(pids) != 0 {
		t.Errorf("browser processes outlived the check: %v", pids)
	}
	return res.Charts
}

// TestReportInBrowserSingleRun: one run's report, from `gobench report`
// and from `serve --report`, loads offline and draws every chart.
func TestReportInBrowserSingleRun(t *testing.T) {
	dir := t.TempDir()
	run := simRun(t, dir, "run.json", 60, "200", "--report", filepath.Join(dir, "serve-report.html"))
	want := []string{medianTTFT(t, run)}
	ids := []string{"ttft", "tpot", "itl", "e2el"}
	checkReport(t, reportOf(t, dir, run), want, ids)
	checkReport(t, filepath.Join(dir, "serve-report.html"), want, ids)
}

// TestReportInBrowserComparison: two runs overlay on the charts, and the
// page holds both medians.
func TestReportInBrowserComparison(t *testing.T) {
	dir := t.TempDir()
	a := simRun(t, dir, "a.json", 60, "100")
	b := simRun(t, dir, "b.json", 60, "inf")
	charts := checkReport(t, reportOf(t, dir, a, b), []string{medianTTFT(t, a), medianTTFT(t, b)}, []string{"ttft"})
	overlaid := false
	for _, c := range charts {
		overlaid = overlaid || (strings.Contains(c.ID, "ttft") && c.Series >= 2)
	}
	if !overlaid {
		t.Errorf("no TTFT chart overlays the two runs: %+v", charts)
	}
}

// TestReportInBrowserSweep: a sweep directory's report draws latency and
// throughput against load and the Pareto front.
func TestReportInBrowserSweep(t *testing.T) {
	srv, _ := sweepSim(t, nil)
	dir := t.TempDir()
	if _, errOut, code := runMain(t, sweepArgs(t, srv.URL, dir)...); code != 0 {
		t.Fatalf("sweep exited %d:\n%s", code, errOut)
	}
	checkReport(t, reportOf(t, dir, filepath.Join(dir, "exp")), nil, []string{"pareto"})
}

// BenchmarkReportLoad100k measures how long the report of a
// 100,000-request run takes to become ready in the browser (navigation to
// body.dataset.ready), reported as load-ms; the budget is a number to
// watch, not an assertion. The run (the simulator at full speed, about 10 s)
// and the report are made once, before the timer.
func BenchmarkReportLoad100k(b *testing.B) {
	browser := browsertest.Require(b)
	dir := b.TempDir()
	run := simRun(b, dir, "run.json", 100_000, "inf", "--random-input-len", "4", "--random-output-len", "2",
		"--sim-ttft", "0", "--sim-itl", "0", "--max-concurrency", "256")
	report := reportOf(b, dir, run)
	var total float64
	n := 0
	for b.Loop() {
		res, err := browsertest.Check(context.Background(), browser, report, browsertest.Options{})
		if err != nil {
			b.Fatal(err)
		}
		total += float64(res.LoadTime.Milliseconds())
		n++
	}
	b.ReportMetric(total/float64(n), "load-ms")
}
