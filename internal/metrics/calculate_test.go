package metrics

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// seedOutputs are the five requests A–E of a worked example of vLLM's
// metrics (docs/metrics.md keeps it): TTFTs 200, 120, 150,
// 300, 650 ms; TPOTs 20, 22, 25, 55 ms and E with a single token; 455
// output and 4600 input tokens. The output lengths 101, 201, 51, 101, 1 are
// the split that also gives the seed's sum of E2E times, 14.57 s. Latency =
// TTFT + (len-1)·TPOT, written as the doubles Python computes for it; each
// request streams one chunk per token (ITL = TPOT) and they start 0.5 s
// apart.
func seedOutputs() []Output {
	mk := func(ttft, tpot float64, n int, latency, start float64, prompt int) Output {
		o := Output{Success: true, TTFT: ttft, OutputTokens: n, Latency: latency,
			StartTime: start, PromptLen: prompt, GeneratedText: strings.Repeat("x", n)}
		if n > 1 {
			o.ITL = repeat(tpot, n-1)
		}
		return o
	}
	return []Output{
		mk(0.2, 0.020, 101, 2.2, 0.0, 1000),   // A
		mk(0.12, 0.022, 201, 4.52, 0.5, 1000), // B
		mk(0.15, 0.025, 51, 1.4, 1.0, 1000),   // C
		mk(0.3, 0.055, 101, 5.8, 1.5, 1000),   // D: misses the TPOT SLO
		mk(0.65, 0, 1, 0.65, 2.0, 600),        // E: misses the TTFT SLO, single token
	}
}

func seedConfig() Config {
	return Config{
		CountTokens:       func(string) int { panic("OutputTokens is set for every request") },
		Goodput:           map[string]float64{"ttft": 500, "tpot": 50},
		PercentileMetrics: ParsePercentileMetrics("ttft,tpot,itl,e2el"),
		Percentiles:       []float64{50, 99},
		RequestRate:       4,
	}
}

// TestCalculateSeedExample reproduces the seed's worked example. Expected
// values were computed with NumPy 1.24.2 on the same doubles
// (np.mean/np.median/np.std/np.percentile × 1000, vLLM's order), and the
// peak token and concurrency figures with a Python transcription of
// calculate_metrics.
func TestCalculateSeedExample(t *testing.T) {
	t.Parallel()
	r := Calculate(seedOutputs(), 8.0, seedConfig())

	ints := []struct {
		name      string
		got, want int
	}{
		{"completed", r.Completed, 5},
		{"failed", r.Failed, 0},
		{"total input", r.TotalInput, 4600},
		{"total output", r.TotalOutput, 455},
		{"good requests", r.GoodRequests, 3},
		{"peak concurrency", r.MaxConcurrentRequests, 5},
	}
	for _, c := range ints {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	floats := []struct {
		name      string
		got, want float64
	}{
		{"request throughput", r.RequestThroughput, 0.625},
		{"request goodput", r.RequestGoodput, 0.375},
		{"output throughput", r.OutputThroughput, 455.0 / 8},
		{"total token throughput", r.TotalTokenThroughput, (4600.0 + 455) / 8},
		{"mean TTFT", r.TTFT.Mean, 284},
		{"median TTFT", r.TTFT.Median, 200},
		{"std TTFT", r.TTFT.Std, 192.93522228976235},
		{"p50 TTFT", r.TTFT.Percentiles[0].Value, 200},
		{"p99 TTFT", r.TTFT.Percentiles[1].Value, 636},
		{"mean TPOT", r.TPOT.Mean, 30.5},
		{"median TPOT", r.TPOT.Median, 23.5},
		{"std TPOT", r.TPOT.Std, 14.256577429383253},
		{"p99 TPOT", r.TPOT.Percentiles[1].Value, 54.099999999999994},
		{"mean ITL", r.ITL.Mean, 29.22222222222222},
		{"median ITL", r.ITL.Median, 22},
		{"std ITL", r.ITL.Std, 13.846602293043892},
		{"p99 ITL", r.ITL.Percentiles[1].Value, 55},
		{"mean E2EL", r.E2EL.Mean, 2913.9999999999995},
		{"median E2EL", r.E2EL.Median, 2200},
		{"std E2EL", r.E2EL.Std, 1940.9234915369539},
		{"p99 E2EL", r.E2EL.Percentiles[1].Value, 5748.8},
		{"peak output tokens/s", r.MaxOutputTokensPerS, 134},
		{"rtfx", r.RTFx, 0},
	}
	for _, c := range floats {
		if math.Float64bits(c.got) != math.Float64bits(c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if diff := cmp.Diff([]int{101, 201, 51, 101, 1}, r.ActualOutputLens); diff != "" {
		t.Errorf("ActualOutputLens (-want +got):\n%s", diff)
	}
	if len(r.Warnings) != 0 || len(r.Failures) != 0 {
		t.Errorf("warnings %q, failures %q, want none", r.Warnings, r.Failures)
	}
	if r.ClientQueue != nil || r.E2ELInclQueue != nil {
		t.Error("client queue stats without --max-concurrency")
	}
	if r.TotalCached != nil {
		t.Error("TotalCached set although no output reported cached tokens")
	}
}

func TestGoodputBoundary(t *testing.T) {
	t.Parallel()
	// ttft 0.25 s, 11 tokens, latency 0.75 s => tpot = 0.5/10 = 0.05 s exactly.
	exact := Output{Success: true, TTFT: 0.25, Latency: 0.75, OutputTokens: 11}
	tests := []struct {
		name string
		out  Output
		slo  map[string]float64
		good int
	}{
		// SLO equal to the measurement counts as good (slo >= value)
		{"ttft equal", exact, map[string]float64{"ttft": 250}, 1},
		// one ulp above the SLO is not good
		{"ttft above", Output{Success: true, TTFT: math.Nextafter(0.25, 1), Latency: 0.75, OutputTokens: 11},
			map[string]float64{"ttft": 250}, 0},
		// tpot equal: 50 ms / 1000 == 0.05 == 0.5/10
		{"tpot equal", exact, map[string]float64{"tpot": 50}, 1},
		// e2el equal
		{"e2el equal", exact, map[string]float64{"e2el": 750}, 1},
		// every SLO must hold
		{"all equal", exact, map[string]float64{"ttft": 250, "tpot": 50, "e2el": 750}, 1},
		// one failing SLO makes the request bad
		{"one fails", exact, map[string]float64{"ttft": 250, "tpot": 49.999, "e2el": 750}, 0},
		// a failed request is never good
		{"failed", Output{Error: "boom"}, map[string]float64{"ttft": 1e9}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := Calculate([]Output{tt.out}, 1, Config{Goodput: tt.slo, Percentiles: []float64{99}})
			if r.GoodRequests != tt.good {
				t.Errorf("good = %d, want %d", r.GoodRequests, tt.good)
			}
			if !r.GoodputEnabled {
				t.Error("GoodputEnabled = false")
			}
		})
	}
}

// TestTPOTSingleToken: an output of one token has no TPOT sample (it would
// divide by zero) but counts with TPOT 0 for goodput.
func TestTPOTSingleToken(t *testing.T) {
	t.Parallel()
	outs := []Output{
		{Success: true, TTFT: 0.1, Latency: 9.9, OutputTokens: 1},  // tpot 0 for goodput only
		{Success: true, TTFT: 0.1, Latency: 0.3, OutputTokens: 3},  // tpot 0.1
		{Success: true, TTFT: 0.1, Latency: 0.1, OutputTokens: -2}, // not > 1: no sample either
	}
	r := Calculate(outs, 1, Config{Goodput: map[string]float64{"tpot": 1}, Percentiles: []float64{99}})
	lat, ttft := 0.3, 0.1 // variables: a constant expression would be folded exactly
	if got, want := r.TPOT.Mean, (lat-ttft)/2*1000; got != want {
		t.Errorf("mean TPOT = %v, want %v (only the 3-token output)", got, want)
	}
	if r.GoodRequests != 2 {
		t.Errorf("good = %d, want 2 (the single-token output and the negative one have tpot 0)", r.GoodRequests)
	}
	if r.TotalOutput != 2 {
		t.Errorf("total output = %d, want 1+3-2 = 2 (negative counts are summed as given)", r.TotalOutput)
	}
}

func TestOutputTokensFallback(t *testing.T) {
	t.Parallel()
	calls := 0
	count := func(text string) int { calls++; return len(strings.Fields(text)) }
	outs := []Output{
		{Success: true, GeneratedText: "a b c d", OutputTokens: 0, Latency: 1, TTFT: 0.1}, // re-counted: 4
		{Success: true, GeneratedText: "a b", OutputTokens: 7, Latency: 1, TTFT: 0.1},     // server count wins
		{Success: false, GeneratedText: "a b c", Error: "x"},                              // failed: 0, never counted
	}
	r := Calculate(outs, 1, Config{CountTokens: count, Percentiles: []float64{99}})
	if diff := cmp.Diff([]int{4, 7, 0}, r.ActualOutputLens); diff != "" {
		t.Errorf("with tokenizer (-want +got):\n%s", diff)
	}
	if calls != 1 {
		t.Errorf("CountTokens called %d times, want 1", calls)
	}
	if !r.HasTokenizer {
		t.Error("HasTokenizer = false")
	}
	r = Calculate(outs, 1, Config{Percentiles: []float64{99}})
	if diff := cmp.Diff([]int{1, 7, 0}, r.ActualOutputLens); diff != "" {
		t.Errorf("without tokenizer (-want +got):\n%s", diff)
	}
	if r.HasTokenizer {
		t.Error("HasTokenizer = true without CountTokens")
	}
}

func TestCalculateNoOutputs(t *testing.T) {
	t.Parallel()
	r := Calculate(nil, 2, Config{Percentiles: []float64{50, 99}, MaxConcurrency: 4, RequestRate: 1})
	zero := Stats{Percentiles: []PercentileValue{{P: 50}, {P: 99}}}
	for name, st := range map[string]Stats{"ttft": r.TTFT, "tpot": r.TPOT, "itl": r.ITL, "e2el": r.E2EL,
		"queue": *r.ClientQueue, "e2el+queue": *r.E2ELInclQueue} {
		if diff := cmp.Diff(zero, st); diff != "" {
			t.Errorf("%s stats of an empty list (-want +got):\n%s", name, diff)
		}
	}
	if r.MaxOutputTokensPerS != 0 || r.MaxConcurrentRequests != 0 || r.RequestThroughput != 0 {
		t.Errorf("peaks/throughput not zero: %+v", r)
	}
	if diff := cmp.Diff([]string{WarnAllFailed}, r.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestFailuresAndWarnings(t *testing.T) {
	t.Parallel()
	// The error text of test_serve_timeout.py@04a5ccf4.
	timeout := "Traceback (most recent call last):\n" +
		"aiohttp.client_exceptions.ServerTimeoutError: Timeout on reading data from socket\n"
	outs := []Output{
		{Success: true, TTFT: 0.1, Latency: 1, OutputTokens: 8, PromptLen: 16, ITL: repeat(0.01, 7)},
		{Error: timeout, PromptLen: 5},
		{Error: "Internal Server Error"},
	}
	r := Calculate(outs, 10, Config{Percentiles: []float64{99}})
	if r.Completed != 1 || r.Failed != 2 {
		t.Errorf("completed/failed = %d/%d, want 1/2", r.Completed, r.Failed)
	}
	if diff := cmp.Diff([]string{timeout, "Internal Server Error"}, r.Failures); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "timed out") {
		t.Errorf("warnings = %q, want one matching \"timed out\"", r.Warnings)
	}
	if r.TotalInput != 16 {
		t.Errorf("total input = %d, want 16 (failed prompts excluded)", r.TotalInput)
	}
	// Only "Internal Server Error": no timeout warning.
	r = Calculate([]Output{outs[0], outs[2]}, 10, Config{Percentiles: []float64{99}})
	if len(r.Warnings) != 0 {
		t.Errorf("warnings = %q, want none for a non-timeout failure", r.Warnings)
	}
}

func TestIsReadTimeout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  string
		want bool
	}{
		{"aiohttp.client_exceptions.ServerTimeoutError: Timeout on reading data from socket", true}, // vLLM's case
		{"read tcp 127.0.0.1:1->127.0.0.1:2: i/o timeout", true},                                    // Go net deadline
		{"context deadline exceeded", true},                                                         // per-request deadline
		{"net/http: request canceled (Client.Timeout exceeded while reading body)", true},           // http.Client timeout
		{"stream read timed out after 30s", true},                                                   // any "timed out"
		{"Internal Server Error", false},                                                            // test's negative case
		{"Gateway Timeout", false},                                                                  // an HTTP 504 is the server's answer, not a read timeout
		{"", false},
	}
	for _, tt := range tests {
		if got := IsReadTimeout(tt.err); got != tt.want {
			t.Errorf("IsReadTimeout(%q) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// TestClientQueue follows test_serve_queue_time.py: three requests behind
// --max-concurrency 1, each queued behind the previous one.
func TestClientQueue(t *testing.T) {
	t.Parallel()
	outs := []Output{
		{Success: true, TTFT: 0.05, Latency: 0.05, OutputTokens: 1, StartTime: 0.00, ClientQueueTime: 0.001},
		{Success: true, TTFT: 0.05, Latency: 0.05, OutputTokens: 1, StartTime: 0.05, ClientQueueTime: 0.051},
		{Success: true, TTFT: 0.05, Latency: 0.05, OutputTokens: 1, StartTime: 0.10, ClientQueueTime: 0.102},
		{Error: "x", ClientQueueTime: 9}, // failed: excluded from the statistics
	}
	all := ParsePercentileMetrics("ttft,e2el,client_queue_time,e2el_including_client_queue")
	cfg := Config{PercentileMetrics: all, Percentiles: []float64{99}, MaxConcurrency: 1, RequestRate: 100}
	r := Calculate(outs, 1, cfg)
	queue := []float64{0.001, 0.051, 0.102}
	var incl []float64 // computed at run time: Go folds constant sums exactly
	for _, o := range outs[:3] {
		incl = append(incl, o.Latency+o.ClientQueueTime)
	}
	if diff := cmp.Diff(Summarize(queue, cfg.Percentiles), *r.ClientQueue); diff != "" {
		t.Errorf("client queue (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Summarize(incl, cfg.Percentiles), *r.E2ELInclQueue); diff != "" {
		t.Errorf("e2el incl. queue (-want +got):\n%s", diff)
	}
	if r.MaxConcurrentRequests != 1 {
		t.Errorf("peak concurrency = %d, want 1 (back-to-back requests do not overlap)", r.MaxConcurrentRequests)
	}

	keys := func(r Result) []string {
		var ks []string
		for _, s := range r.Sections() {
			ks = append(ks, s.Key)
		}
		return ks
	}
	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		// finite rate, everything selected, no tokenizer: ttft is hidden, the queue sections follow e2el
		{"finite rate", cfg, []string{"e2el", "client_queue_time", "e2el_including_client_queue"}},
		// rate inf and only ttft,e2el selected, as test_serve_queue_time.py@0e913f02:
		// both queue sections are still reported
		{"infinite rate", Config{PercentileMetrics: ParsePercentileMetrics("ttft,e2el"), MaxConcurrency: 1, RequestRate: math.Inf(1)},
			[]string{"e2el", "client_queue_time", "e2el_including_client_queue"}},
		// not selected: still reported with --max-concurrency
		{"not selected", Config{PercentileMetrics: ParsePercentileMetrics("e2el"), MaxConcurrency: 1, RequestRate: 100},
			[]string{"e2el", "client_queue_time", "e2el_including_client_queue"}},
		// selected without --max-concurrency: nothing to report
		{"no concurrency", Config{PercentileMetrics: all, RequestRate: 100}, []string{"e2el"}},
		// with a tokenizer the token sections come first, in fixed order
		{"tokenizer", Config{CountTokens: func(string) int { return 1 },
			PercentileMetrics: ParsePercentileMetrics("e2el,itl,tpot,ttft,bogus, e2el")},
			[]string{"ttft", "tpot", "itl", "e2el"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, keys(Calculate(outs, 1, tt.cfg))); diff != "" {
			t.Errorf("%s: sections (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestCachedTokens follows test_serve_cached_tokens.py@3f9a4671.
func TestCachedTokens(t *testing.T) {
	t.Parallel()
	withCached := func(c *int) Output {
		return Output{Success: true, OutputTokens: 8, PromptLen: 16, CachedTokens: c, Latency: 1, TTFT: 0.1}
	}
	n := func(v int) *int { return &v }
	r := Calculate([]Output{withCached(n(12)), withCached(n(4)), withCached(n(0))}, 10, Config{ReportCachedTokens: true})
	if r.TotalCached == nil || *r.TotalCached != 16 {
		t.Errorf("TotalCached = %v, want 16", r.TotalCached)
	}
	if len(r.Warnings) != 0 {
		t.Errorf("warnings = %q, want none", r.Warnings)
	}
	r = Calculate([]Output{withCached(nil), withCached(nil)}, 10, Config{ReportCachedTokens: true})
	if r.TotalCached != nil {
		t.Errorf("TotalCached = %d, want nil", *r.TotalCached)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "enable-prompt-tokens-details") {
		t.Errorf("warnings = %q, want the enable-prompt-tokens-details hint", r.Warnings)
	}
	// All failed: the hint would be misleading, only the all-failed warning.
	r = Calculate([]Output{{Error: "500"}}, 10, Config{ReportCachedTokens: true})
	if diff := cmp.Diff([]string{WarnAllFailed}, r.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	// Without the flag: no hint.
	r = Calculate([]Output{withCached(nil)}, 10, Config{})
	if len(r.Warnings) != 0 {
		t.Errorf("warnings = %q without --report-cached-tokens", r.Warnings)
	}
}

func TestPeakOutputTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		outs []Output
		want float64
	}{
		// token events of one request land in the bins int(ts - t0)
		{"one request", []Output{{Success: true, StartTime: 10, TTFT: 0.5, ITL: []float64{0.2, 0.2, 0.2, 0.5}, Latency: 1.6}}, 3},
		// the first event sits in bin 0 even at a fraction of a second
		{"two requests", []Output{
			{Success: true, StartTime: 0, TTFT: 0.1, ITL: []float64{0.1}, Latency: 0.2},
			{Success: true, StartTime: 0.5, TTFT: 0.1, ITL: []float64{0.1, 1.0}, Latency: 1.2},
		}, 4},
		// failed outputs are ignored
		{"failed only", []Output{{StartTime: 0, TTFT: 0.1, ITL: []float64{0.1}}}, 0},
	}
	for _, tt := range tests {
		if got := peakOutputTokensPerSecond(tt.outs); got != tt.want {
			t.Errorf("%s: peak = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// BenchmarkCalculate: 10,000 requests of 200 inter-token gaps each (2M ITL
// samples), every statistic on, goodput and client queue included.
func BenchmarkCalculate(b *testing.B) {
	g := &lcg{x: 7}
	outs := make([]Output, 10_000)
	for i := range outs {
		itl := make([]float64, 200)
		lat := 0.05 + g.unit()*0.2
		ttft := lat
		for j := range itl {
			itl[j] = 0.005 + g.unit()*0.02
			lat += itl[j]
		}
		outs[i] = Output{Success: true, TTFT: ttft, ITL: itl, Latency: lat, OutputTokens: 201,
			PromptLen: 512, StartTime: float64(i) * 0.01, ClientQueueTime: g.unit() * 0.1}
	}
	cfg := Config{
		Goodput:           map[string]float64{"ttft": 200, "tpot": 20, "e2el": 5000},
		PercentileMetrics: ParsePercentileMetrics("ttft,tpot,itl,e2el,client_queue_time"),
		Percentiles:       []float64{50, 90, 99, 99.9},
		MaxConcurrency:    64,
		RequestRate:       100,
	}
	b.ReportAllocs()
	for b.Loop() {
		Calculate(outs, 120, cfg)
	}
}
