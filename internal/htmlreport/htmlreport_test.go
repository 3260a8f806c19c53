package htmlreport

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/compare"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultfile"
)

// syntheticRun is a detailed result of n requests, every seventh failed.
func syntheticRun(t testing.TB, n int, label string) *resultfile.Run {
	t.Helper()
	r, err := resultfile.FromObject(label+".json", syntheticObject(n, label))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// syntheticObject is syntheticRun's object.
func syntheticObject(n int, label string) *pyjson.Object {
	o := pyjson.NewObject()
	o.Set("date", "20260101-000000")
	o.Set("backend", "vllm")
	o.Set("label", label)
	o.Set("model_id", "m")
	o.Set("num_prompts", n)
	o.Set("request_rate", "inf")
	o.Set("duration", float64(n)/100)
	o.Set("completed", n-n/7)
	o.Set("median_ttft_ms", 51.39)
	o.Set("p99_ttft_ms", 80.5)
	var in, out, starts, ttfts, lat, lags, offs []any
	var itls []any
	var errs []any
	for i := range n {
		in = append(in, 100+i%50)
		out = append(out, 4)
		starts = append(starts, float64(i)/100)
		offs = append(offs, float64(i)/100)
		lags = append(lags, float64(i%10)/1000)
		ttfts = append(ttfts, 0.05+float64(i%13)/1000)
		itls = append(itls, []any{0.01, 0.02, 0.03})
		lat = append(lat, 0.05+float64(i%13)/1000+0.06)
		if i%7 == 6 {
			errs = append(errs, "HTTP 500")
		} else {
			errs = append(errs, "")
		}
	}
	for _, kv := range []struct {
		k string
		v []any
	}{{"input_lens", in}, {"output_lens", out}, {"ttfts", ttfts}, {"itls", itls}, {"start_times", starts},
		{"latencies", lat}, {"errors", errs}, {"schedule_lags", lags}, {"scheduled_offsets", offs}} {
		o.Set(kv.k, kv.v)
	}
	w := pyjson.NewObject()
	g := pyjson.NewObject()
	g.Set("ttft", 60.0)
	w.Set("goodput", g)
	o.Set("gobench_workload", w)
	return o
}

var (
	figureRE = regexp.MustCompile(`<figure class="gb-chart[^"]*" id="chart-([a-z0-9-]+)" data-series="(\d+)" data-points="(\d+)">`)
	urlRE    = regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?\s*https?://`)
)

// figures maps each chart's id to its series and points.
func figures(t *testing.T, page string) map[string][2]int {
	t.Helper()
	out := map[string][2]int{}
	for _, m := range figureRE.FindAllStringSubmatch(page, -1) {
		s, _ := strconv.Atoi(m[2])
		p, _ := strconv.Atoi(m[3])
		out[m[1]] = [2]int{s, p}
	}
	return out
}

// TestServerGaugesOnlyWhenPublished: a gauge the server does not publish
// (a timeline column of nulls: llama.cpp has no KV-cache usage or
// preemptions) draws no chart, and the ones it does publish are drawn.
func TestServerGaugesOnlyWhenPublished(t *testing.T) {
	o := syntheticObject(70, "a")
	tl := pyjson.NewObject()
	tl.Set("t", []any{0.0, 1.0, 2.0})
	tl.Set("running", []any{1.0, 8.0, 8.0})
	tl.Set("waiting", []any{0.0, 8.0, 2.0})
	tl.Set("kv_cache_usage_perc", []any{nil, nil, nil})
	tl.Set("preemptions", []any{nil, nil, nil})
	view := pyjson.NewObject()
	view.Set("timeline", tl)
	view.Set("verdict", "queue/seq-limit")
	o.Set("server_view", view)
	r, err := resultfile.FromObject("a.json", o)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, Input{Runs: []*resultfile.Run{r}, Version: "test"}); err != nil {
		t.Fatal(err)
	}
	got := figures(t, b.String())
	if got["server-gauges"] != [2]int{2, 6} {
		t.Errorf("chart-server-gauges: %v, want 2 series of 3 points", got["server-gauges"])
	}
	for _, id := range []string{"server-kv", "server-preemptions"} {
		if _, ok := got[id]; ok {
			t.Errorf("chart-%s drawn from a column of nulls: %v", id, got[id])
		}
	}
}

func TestSingleRunPage(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, Input{Runs: []*resultfile.Run{syntheticRun(t, 700, "a")}, Version: "test"}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	got := figures(t, page)
	for _, id := range []string{"hist-ttft", "cdf-ttft", "hist-tpot", "cdf-tpot", "hist-itl", "cdf-itl", "hist-e2el", "cdf-e2el",
		"inflight", "tokens", "lag", "timeline", "input-lens", "output-lens"} {
		if got[id][0] < 1 || got[id][1] < 1 {
			t.Errorf("chart-%s: %v, want a figure with series and points", id, got[id])
		}
	}
	if urlRE.MatchString(page) {
		t.Errorf("the page links to a host: %s", urlRE.FindString(page))
	}
	for _, want := range []string{"HTTP 500", "window.gobenchData", "p50 51.39", "SLO 60", `class="gb-tooltip"`, "<figcaption>TTFT histogram</figcaption>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// window.gobenchCharts' index agrees with the figures.
	data := page[strings.Index(page, "window.gobenchData = ")+len("window.gobenchData = "):]
	data = data[:strings.Index(data, ";</script>")]
	var parsed struct {
		Index []struct {
			ID             string
			Series, Points int
		}
	}
	if err := json.Unmarshal([]byte(data), &parsed); err != nil {
		t.Fatal(err)
	}
	if len(parsed.Index) != len(got) {
		t.Errorf("index has %d charts, the page %d figures", len(parsed.Index), len(got))
	}
	for _, e := range parsed.Index {
		if f := got[strings.TrimPrefix(e.ID, "chart-")]; f != [2]int{e.Series, e.Points} {
			t.Errorf("%s: index %d/%d, figure %v", e.ID, e.Series, e.Points, f)
		}
	}
}

func TestNotDetailedSaysSo(t *testing.T) {
	o := pyjson.NewObject()
	o.Set("backend", "vllm")
	o.Set("completed", 10)
	o.Set("median_ttft_ms", 12.5)
	r, err := resultfile.FromObject("plain.json", o)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, Input{Runs: []*resultfile.Run{r}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "no per-request data") || len(figures(t, b.String())) != 0 {
		t.Error("a file without --save-detailed should say so and draw no chart")
	}
}

func TestSeveralRunsOverlay(t *testing.T) {
	var b bytes.Buffer
	runs := []*resultfile.Run{syntheticRun(t, 300, "a"), syntheticRun(t, 350, "b")}
	if err := Write(&b, Input{Runs: runs, Compare: compareOptions()}); err != nil {
		t.Fatal(err)
	}
	got := figures(t, b.String())
	if got["cdf-ttft"][0] != 2 || got["inflight"][0] != 2 {
		t.Errorf("overlaid charts: %v", got)
	}
	if got["timeline-1"][0] == 0 || got["timeline-2"][0] == 0 {
		t.Errorf("one timeline per run: %v", got)
	}
	if !strings.Contains(b.String(), "<h2>Comparison</h2>") {
		t.Error("no comparison")
	}
	b.Reset()
	if err := Write(&b, Input{Runs: []*resultfile.Run{runs[0], runs[0]}, Compare: compareOptions()}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"label":"a (2)"`) {
		t.Error("one run twice: its series are not told apart")
	}
}

func TestEmbeddedAssetsPinned(t *testing.T) {
	want := map[string]string{
		"assets/uPlot.iife.min.js": "19c8d4c6ad88929a79f4ae49d6f7161566dfd0ba3d15cc495e974f787eb78f1f",
		"assets/uPlot.min.css":     "df630c6a8d6f8eeaff264b50f73ce5b114f646ffd9a0bb74f049b0a00135fa04",
	}
	for name, sum := range want {
		b, err := files.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(b)
		if got := hex.EncodeToString(h[:]); got != sum {
			t.Errorf("%s: sha256 %s, want %s (assets/README.md)", name, got, sum)
		}
	}
}

func TestMinMax(t *testing.T) {
	x := make([]float64, 10000)
	y := make([]float64, 10000)
	for i := range x {
		x[i], y[i] = float64(i), math.Sin(float64(i))
	}
	y[5000] = 100 // a spike survives
	xs, ys := MinMax(x, y, 200)
	if len(xs) > 200 || len(xs) != len(ys) {
		t.Fatalf("%d points, want at most 200", len(xs))
	}
	found := false
	for i := range xs {
		if i > 0 && xs[i] <= xs[i-1] {
			t.Fatalf("x not ascending at %d", i)
		}
		found = found || ys[i] == 100
	}
	if !found {
		t.Error("the spike was dropped")
	}
	if xs, _ := MinMax(x[:50], y[:50], 200); len(xs) != 50 {
		t.Error("a short series changed")
	}
}

func TestCDFAndEvery(t *testing.T) {
	v := make([]float64, 100000)
	for i := range v {
		v[i] = float64(len(v) - i)
	}
	xs, ys := CDF(v, MaxPoints)
	if len(xs) != MaxPoints || xs[0] != 1 || xs[len(xs)-1] != 100000 || ys[len(ys)-1] != 1 {
		t.Errorf("CDF: %d points, first %v, last %v/%v", len(xs), xs[0], xs[len(xs)-1], ys[len(ys)-1])
	}
	for _, c := range []struct{ n, max, want int }{{10, 2000, 1}, {2000, 2000, 1}, {2001, 2000, 2}, {100000, 2000, 50}} {
		if got := Every(c.n, c.max); got != c.want {
			t.Errorf("Every(%d, %d) = %d, want %d", c.n, c.max, got, c.want)
		}
	}
}

// BenchmarkReport100k writes the report of a 100,000-request run and
// reports the page's size.
func BenchmarkReport100k(b *testing.B) {
	r := syntheticRun(b, 100000, "big")
	var size int
	for b.Loop() {
		var buf bytes.Buffer
		if err := Write(&buf, Input{Runs: []*resultfile.Run{r}}); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.ReportMetric(float64(size), "bytes/page")
	b.Logf("page of a 100,000-request run: %d bytes", size)
}

func compareOptions() compare.Options { return compare.Options{Resamples: 200, Seed: 1} }

// TestHistogramOneValue: values equal up to rounding (every TPOT of a
// fixed-rate server) get a range wide enough for an axis, which a range of
// 1e-15 ms is not.
func TestHistogramOneValue(t *testing.T) {
	v := []float64{20, 20.000000000000004, 19.999999999999996}
	edges, counts := Histogram(v, 19.999999999999996, 20.000000000000004, 10)
	if w := edges[len(edges)-1] - edges[0]; w < 1 {
		t.Errorf("range %v wide", w)
	}
	total := 0.0
	for _, c := range counts {
		total += c
	}
	if total != 3 {
		t.Errorf("counted %v values, want 3", total)
	}
}

// TestReadSweepVLLMLayout: a directory of vLLM's sweep layout (a
// summary.json per combination, no gobench table) is read as plot_pareto
// reads it, and the per-request lists stay out of the table.
func TestReadSweepVLLMLayout(t *testing.T) {
	dir := t.TempDir()
	for i, body := range []string{
		`[{"request_rate": 1.0, "max_concurrency": 2, "output_throughput": 50.0, "median_ttft_ms": 20.0, "ttfts": [0.02]}]`,
		`[{"request_rate": 1.0, "max_concurrency": 8, "output_throughput": 150.0, "median_ttft_ms": 60.0, "ttfts": [0.06]}]`,
	} {
		sub := filepath.Join(dir, fmt.Sprintf("SERVE-c%d", i), "BENCH-x")
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, "summary.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := ReadSweep(dir)
	if err != nil || len(s.Points) != 2 {
		t.Fatalf("%v, %v", s, err)
	}
	var b bytes.Buffer
	if err := Write(&b, Input{Sweep: s}); err != nil {
		t.Fatal(err)
	}
	got := figures(t, b.String())
	if got["pareto"][1] == 0 || got["sweep-latency"][1] == 0 {
		t.Errorf("charts: %v", got)
	}
	if strings.Contains(b.String(), "<th>ttfts</th>") {
		t.Error("a per-request list became a column")
	}
	if _, err := ReadSweep(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a sweep directory") {
		t.Errorf("empty directory: %v", err)
	}
}

// TestTarget: the header's target comes from the recorded command line.
func TestTarget(t *testing.T) {
	t.Parallel()
	for command, want := range map[string]string{
		"gobench serve --sim --num-prompts=5":                                              "gobench's simulator (--sim)",
		"gobench serve --base-url=https://gw.example:8443 --endpoint=/v1/chat/completions": "https://gw.example:8443/v1/chat/completions",
		"gobench serve --host=10.0.0.7 --num-prompts=5":                                    "http://10.0.0.7:8000",
		"vllm bench serve --port=9000":                                                     "http://127.0.0.1:9000",
	} {
		if got := target(command); got != want {
			t.Errorf("target(%q) = %q, want %q", command, got, want)
		}
	}
}
