package htmlreport

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/browsertest"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
)

// chartJSON is what report.js reads of one chart.
type chartJSON struct {
	ID     string    `json:"id"`
	Kind   string    `json:"kind"`
	X      []float64 `json:"x"`
	XLog   bool      `json:"xLog"`
	XMin   *float64  `json:"xMin"`
	XMax   *float64  `json:"xMax"`
	XTicks []string  `json:"xTicks"`
}

// writePage writes the page of in and returns it with its charts by id.
func writePage(t *testing.T, in Input) (string, map[string]chartJSON) {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, in); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	data := page[strings.Index(page, "window.gobenchData = ")+len("window.gobenchData = "):]
	data = data[:strings.Index(data, ";</script>")]
	var parsed struct {
		Charts []chartJSON `json:"charts"`
	}
	if err := json.Unmarshal([]byte(data), &parsed); err != nil {
		t.Fatalf("gobenchData: %v", err)
	}
	if parsed.Charts == nil {
		t.Error("gobenchData.charts is null: report.js needs a list")
	}
	out := map[string]chartJSON{}
	for _, c := range parsed.Charts {
		out[c.ID] = c
	}
	return page, out
}

// longTailRun is syntheticRun with every 50th TTFT (and latency) about
// a hundred times longer.
func longTailRun(t *testing.T, n int) *resultfile.Run {
	t.Helper()
	o := syntheticObject(n, "tail")
	v, _ := o.Get("ttfts")
	ttfts := v.([]any)
	v, _ = o.Get("latencies")
	lat := v.([]any)
	for i := 0; i < len(ttfts); i += 50 {
		lat[i] = lat[i].(float64) - ttfts[i].(float64) + 5
		ttfts[i] = 5.0
	}
	r, err := resultfile.FromObject("tail.json", o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestLogAxisRule(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		v    []float64
		want bool
	}{
		{"narrow", []float64{10, 11, 12, 13, 40}, false},
		{"just under", []float64{10, 10, 10, 10, 199}, false},
		{"twenty times the median", []float64{10, 10, 10, 10, 200}, true},
		{"a zero", []float64{0, 10, 10, 10, 5000}, false},
		{"empty", nil, false},
	} {
		if got := logAxis([][]float64{c.v}); got != c.want {
			t.Errorf("%s: logAxis(%v) = %v, want %v", c.name, c.v, got, c.want)
		}
	}
}

func TestLogHistogram(t *testing.T) {
	t.Parallel()
	edges, counts := LogHistogram([]float64{1, 10, 100, 1000}, 1, 1000, 3)
	for i, want := range []float64{1, 10, 100, 1000} {
		if math.Abs(edges[i]-want) > 1e-9*want {
			t.Errorf("edge %d = %v, want %v", i, edges[i], want)
		}
	}
	if counts[0] != 1 || counts[1] != 1 || counts[2] != 2 {
		t.Errorf("counts %v, want [1 1 2]", counts)
	}
}

// TestChartsOfOneRun: histograms are bars, a long tail goes on a log
// axis, the timeline reaches the last request's end and the charts over
// time start at the run's start.
func TestChartsOfOneRun(t *testing.T) {
	_, charts := writePage(t, Input{Runs: []*resultfile.Run{longTailRun(t, 300)}})
	if h := charts["hist-ttft"]; h.Kind != kindBars || !h.XLog || !charts["cdf-ttft"].XLog {
		t.Errorf("hist-ttft: kind %q, log %v; want bars on a log axis", h.Kind, h.XLog)
	}
	if charts["hist-tpot"].XLog {
		t.Error("hist-tpot: a narrow distribution on a log axis")
	}
	tl := charts["timeline"]
	lastStart := tl.X[len(tl.X)-1]
	if tl.XMax == nil || *tl.XMax <= lastStart || tl.XMin == nil || *tl.XMin > 0 {
		t.Errorf("timeline range %v-%v, want from 0 past the last start %v", deref(tl.XMin), deref(tl.XMax), lastStart)
	}
	for _, id := range []string{"inflight", "tokens", "lag"} {
		if c := charts[id]; c.XMin == nil || *c.XMin != 0 || c.XMax == nil || *c.XMax != *tl.XMax {
			t.Errorf("%s: range %v-%v, want the run's 0 to %v", id, deref(c.XMin), deref(c.XMax), deref(tl.XMax))
		}
	}
}

// TestCards: the numbers checked first head the page, from the keys, with
// the failures marked and the server's verdict.
func TestCards(t *testing.T) {
	o := syntheticObject(700, "a")
	view := pyjson.NewObject()
	view.Set("verdict", "queue/seq-limit")
	view.Set("verdict_unconfirmed", "the server's --max-num-seqs is not known")
	o.Set("server_view", view)
	r, err := resultfile.FromObject("a.json", o)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := writePage(t, Input{Runs: []*resultfile.Run{r}})
	if !strings.Contains(page, "<strong>queue/seq-limit</strong> (unconfirmed: the server&#39;s --max-num-seqs is not known)") {
		t.Error("the server view's verdict does not say it is unconfirmed")
	}
	cards := page[strings.Index(page, `<div class="gb-cards-all">`):strings.Index(page, "<section")]
	for _, want := range []string{
		`Requests</div><div class="gb-card-value">700</div>`,
		`gb-card gb-bad"><div class="gb-card-label">Failed</div><div class="gb-card-value">100</div>`,
		`TTFT p50</div><div class="gb-card-value">51.39 ms</div><div class="gb-card-sub">p99 80.50 ms`,
		`ITL p50</div>`, `E2EL p50</div>`,
		`gb-wide-card gb-warn"><div class="gb-card-label">Server verdict, unconfirmed</div><div class="gb-card-value">queue/seq-limit</div><div class="gb-card-sub">unconfirmed: the server&#39;s`,
	} {
		if !strings.Contains(cards, want) {
			t.Errorf("the cards lack %q:\n%s", want, cards)
		}
	}
	if strings.Index(page, "gb-cards-all") > strings.Index(page, "<figure") {
		t.Error("the cards come after a chart")
	}
	if i := strings.Index(page, "Settings and result block"); i < strings.LastIndex(page, "<figure") || !strings.Contains(page[i-40:i], "<summary>") {
		t.Error("the settings are not folded at the end")
	}
}

// TestWithoutDetailsHasCards: a result without per-request lists gets its
// cards and an empty (not null) list of charts.
func TestWithoutDetailsHasCards(t *testing.T) {
	o := pyjson.NewObject()
	o.Set("completed", 10)
	o.Set("failed", 0)
	o.Set("request_throughput", 2.5)
	o.Set("median_ttft_ms", 12.5)
	r, err := resultfile.FromObject("plain.json", o)
	if err != nil {
		t.Fatal(err)
	}
	page, charts := writePage(t, Input{Runs: []*resultfile.Run{r}})
	if len(charts) != 0 || !strings.Contains(page, `"charts":[]`) {
		t.Errorf("charts %v, want an empty list", charts)
	}
	for _, want := range []string{"2.50 req/s", "12.50 ms", "no per-request data"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestLongTailInBrowser: the log axes, the bars and the ranges draw in a
// real browser without an error, and every chart answers a hover.
func TestLongTailInBrowser(t *testing.T) {
	browser := browsertest.Require(t)
	path := filepath.Join(t.TempDir(), "tail.html")
	var b bytes.Buffer
	if err := Write(&b, Input{Runs: []*resultfile.Run{longTailRun(t, 300)}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := browsertest.Check(context.Background(), browser, path, browsertest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Charts {
		if c.ID == "chart-hist-ttft" && !strings.Contains(c.Tooltip, "–") {
			t.Errorf("%s: tooltip %q, want the bin's range", c.ID, c.Tooltip)
		}
	}
}

// TestComparisonHTML: the comparison leads with compare's headline, names
// the workload settings that differ, and colours each change by compare's
// verdict.
func TestComparisonHTML(t *testing.T) {
	slow := syntheticObject(300, "b")
	v, _ := slow.Get("ttfts")
	for i, x := range v.([]any) {
		v.([]any)[i] = x.(float64) * 2
	}
	slow.Set("request_rate", 5.0)
	b, err := resultfile.FromObject("b.json", slow)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := writePage(t, Input{Runs: []*resultfile.Run{syntheticRun(t, 300, "a"), b}, Compare: compareOptions()})
	for _, want := range []string{
		`<p class="gb-headline">B vs A: `, "real regression",
		"<caption>The workload differs: A → B", "<td>request_rate</td><td>inf</td><td>5.0</td>",
		`<td class="gb-worse">real, worse [`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the comparison lacks %q", want)
		}
	}
	if strings.Index(page, "The workload differs") > strings.Index(page, "Metrics (A is the baseline)") {
		t.Error("the workload's differences come after the numbers")
	}
}

// TestSweepKeepsInf: the unlimited rate, which has no place on a rate
// axis, is drawn against its achieved throughput and as the last load,
// and the cards name it where it peaks.
func TestSweepKeepsInf(t *testing.T) {
	var points []*pyjson.Object
	for _, p := range []struct {
		rate any
		tput float64
	}{{10.0, 9.8}, {20.0, 19.5}, {"inf", 57.3}} {
		o := pyjson.NewObject()
		o.Set("request_rate", p.rate)
		o.Set("request_throughput", p.tput)
		o.Set("output_throughput", p.tput*64)
		o.Set("median_ttft_ms", 20.0)
		o.Set("p99_ttft_ms", 40.0)
		points = append(points, o)
	}
	page, charts := writePage(t, Input{Sweep: &Sweep{Dir: "d", Points: points}})
	if !strings.Contains(page, `Peak throughput</div><div class="gb-card-value">57.30 req/s</div><div class="gb-card-sub">at request_rate inf`) {
		t.Error("no card of the peak throughput at the unlimited rate")
	}
	lat := charts["sweep-latency"]
	if len(lat.X) != 3 || lat.X[2] != 57.3 {
		t.Errorf("sweep-latency x %v, want the three achieved throughputs", lat.X)
	}
	tp := charts["sweep-throughput"]
	if strings.Join(tp.XTicks, ",") != "10,20,inf" || len(tp.X) != 3 {
		t.Errorf("sweep-throughput: ticks %v, x %v; want 10,20,inf", tp.XTicks, tp.X)
	}
}

// deref is *p, NaN for nil.
func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// TestE2ELIsVLLMs: the E2EL drawn (and carded when the file lacks its
// percentiles) is vLLM's, from the send: a wait for a --max-concurrency
// slot stays out of it, as it stays out of the printed percentiles.
func TestE2ELIsVLLMs(t *testing.T) {
	o := syntheticObject(10, "q")
	queues := make([]any, 10)
	for i := range queues {
		queues[i] = 1.0
	}
	o.Set(resultkey.QueueTimes, queues)
	r, err := resultfile.FromObject("q.json", o)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := writePage(t, Input{Runs: []*resultfile.Run{r}})
	if !strings.Contains(page, `E2EL p50</div><div class="gb-card-value">114.00 ms</div>`) {
		t.Error("the E2EL card is not the median of the successful requests' latencies, 114 ms")
	}
}

// TestFailuresByKind: failures are counted by serve's kinds, from the
// file's failure_kinds when it has them, else from the per-request
// texts, and the Failed card names the most frequent.
func TestFailuresByKind(t *testing.T) {
	o := syntheticObject(70, "f")
	v, _ := o.Get("errors")
	errs := v.([]any)
	errs[13] = "read stream: read tcp 127.0.0.1:42598->127.0.0.1:36905: read: connection reset by peer"
	errs[20] = "read stream: read tcp 127.0.0.1:42612->127.0.0.1:36905: read: connection reset by peer"
	r, err := resultfile.FromObject("f.json", o)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := writePage(t, Input{Runs: []*resultfile.Run{r}})
	for _, want := range []string{
		"<caption>f: 10 of 70 requests failed: 8 HTTP 500, 2 connection reset</caption>",
		"<td>2</td><td>connection reset</td>", `<div class="gb-card-sub">14.3 %, most HTTP 500</div>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	kind := pyjson.NewObject()
	kind.Set("kind", "HTTP 503")
	kind.Set("count", 10)
	kind.Set("example", "HTTP 503 Service Unavailable")
	o.Set("failure_kinds", []any{kind})
	if r, err = resultfile.FromObject("f.json", o); err != nil {
		t.Fatal(err)
	}
	if page, _ = writePage(t, Input{Runs: []*resultfile.Run{r}}); !strings.Contains(page, "<td>10</td><td>HTTP 503</td>") {
		t.Error("the file's failure_kinds are not what the page counts")
	}
}
