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
	"time"

	"github.com/gobench/gobench/internal/browsertest"
)

// simRun runs `serve --sim` in-process with n prompts at rate and saves
// the detailed result as dir/name; extra flags go last.
func simRun(t testing.TB, dir, name string, n int, rate string, extra ...string) string {
	t.Helper()
	return simRunSaved(t, dir, name, n, rate, append([]string{"--save-detailed"}, extra...)...)
}

// simRunSaved is simRun without --save-detailed: the result keeps its
// figures only, unless extra asks for more.
func simRunSaved(t testing.TB, dir, name string, n int, rate string, extra ...string) string {
	t.Helper()
	args := append([]string{"serve", "--sim", "--sim-ttft", "0.005", "--sim-itl", "0.001", "--disable-tqdm",
		"--no-server-metrics", "--dataset-name", "random", "--random-input-len", "16", "--random-output-len", "8",
		"--num-prompts", fmt.Sprint(n), "--request-rate", rate, "--max-concurrency", "64", "--seed", "7",
		"--save-result", "--result-dir", dir, "--result-filename", name}, extra...)
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

// checkReportWith opens the report in the browser with its options
// (browsertest.Check fails on any request but the file, any console error, a
// chart that did not draw or shows no tooltip), checks that the page's text
// holds every want and that a chart's id holds each of chartIDs, and returns
// all the check saw.
func checkReportWith(t *testing.T, path string, o browsertest.Options, want, chartIDs []string) *browsertest.Result {
	t.Helper()
	res, err := browsertest.Check(context.Background(), browsertest.Require(t), path, o)
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
	return res
}

// firstScreen is the window the cards must fit in: a laptop's 1280x800.
var firstScreen = browsertest.Options{Width: 1280, Height: 800}

// checkCards checks that the page has a card of each label and that every
// card lies in the first screen, above any scrolling.
func checkCards(t *testing.T, res *browsertest.Result, labels ...string) {
	t.Helper()
	have := map[string]bool{}
	for _, c := range res.Cards {
		have[c.Label] = true
		if c.Value == "" || c.Top < 0 || c.Bottom > float64(firstScreen.Height) {
			t.Errorf("card %q (%q) at %v-%v px, want a value within the first %d px", c.Label, c.Value, c.Top, c.Bottom, firstScreen.Height)
		}
	}
	for _, l := range labels {
		if !have[l] {
			t.Errorf("no card %q (cards: %+v)", l, res.Cards)
		}
	}
}

// runCards are the cards every run's report has.
var runCards = []string{"Requests", "Failed", "Throughput", "TTFT p50", "ITL p50", "E2EL p50"}

// TestReportInBrowserSingleRun: one run's report, from `gobench report`
// and from `serve --report`, loads offline and draws every chart.
func TestReportInBrowserSingleRun(t *testing.T) {
	dir := t.TempDir()
	run := simRun(t, dir, "run.json", 60, "200", "--report", filepath.Join(dir, "serve-report.html"))
	want := []string{medianTTFT(t, run)}
	ids := []string{"ttft", "tpot", "itl", "e2el"}
	for _, page := range []string{reportOf(t, dir, run), filepath.Join(dir, "serve-report.html")} {
		res := checkReportWith(t, page, firstScreen, want, ids)
		checkCards(t, res, runCards...)
		if len(res.IdleLegend) > 0 {
			t.Errorf("legends show values with no chart hovered: %q", res.IdleLegend)
		}
	}
}

// TestReportInBrowserWithoutDetails: the report of a result saved without
// --save-detailed (no per-request lists, so no chart) still loads, shows
// its cards and becomes ready.
func TestReportInBrowserWithoutDetails(t *testing.T) {
	dir := t.TempDir()
	run := simRunSaved(t, dir, "run.json", 20, "inf")
	o := firstScreen
	o.NoCharts, o.ReadyTimeout = true, time.Minute
	res := checkReportWith(t, reportOf(t, dir, run), o, []string{medianTTFT(t, run), "no per-request data"}, nil)
	checkCards(t, res, runCards[:5]...)
}

// TestReportInBrowserComparison: two runs overlay on the charts, and the
// page holds both medians.
func TestReportInBrowserComparison(t *testing.T) {
	dir := t.TempDir()
	a := simRun(t, dir, "a.json", 60, "100")
	b := simRun(t, dir, "b.json", 60, "inf")
	res := checkReportWith(t, reportOf(t, dir, a, b), firstScreen, []string{medianTTFT(t, a), medianTTFT(t, b), "B vs A:"}, []string{"ttft"})
	checkCards(t, res, runCards...)
	overlaid := false
	for _, c := range res.Charts {
		overlaid = overlaid || (strings.Contains(c.ID, "ttft") && c.Series >= 2)
	}
	if !overlaid {
		t.Errorf("no TTFT chart overlays the two runs: %+v", res.Charts)
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
	res := checkReportWith(t, reportOf(t, dir, filepath.Join(dir, "exp")), firstScreen, nil, []string{"pareto"})
	checkCards(t, res, "Points", "Peak throughput", "Peak output")
	charts := res.Charts
	// Both points, the rate of 50/s and the unlimited one, are drawn
	// against achieved throughput and against the load.
	for _, id := range []string{"chart-sweep-latency", "chart-sweep-throughput"} {
		found := false
		for _, c := range charts {
			if c.ID == id {
				found = true
				if c.Points != 2*c.Series {
					t.Errorf("%s: %d points in %d series, want both sweep points (inf included) in each", id, c.Points, c.Series)
				}
			}
		}
		if !found {
			t.Errorf("no %s", id)
		}
	}
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
