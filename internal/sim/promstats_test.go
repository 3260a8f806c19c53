package sim

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// parseScrape parses a /metrics body as Prometheus does (expfmt's text
// parser; its zero value panics, so NewTextParser).
func parseScrape(t *testing.T, text string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("scrape does not parse: %v\n%s", err, text)
	}
	return fams
}

func scrapeMetrics(t *testing.T, s *Server) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /metrics: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	return parseScrape(t, rec.Body.String())
}

// value is the sum over series of a counter or gauge.
func value(f *dto.MetricFamily) float64 {
	v := 0.0
	for _, m := range f.GetMetric() {
		v += m.GetCounter().GetValue() + m.GetGauge().GetValue()
	}
	return v
}

// vllmFamily is a metric family vLLM exports, as the simulator must too.
type vllmFamily struct {
	name    string
	typ     dto.MetricType
	labels  []string // besides model_name and engine
	buckets []float64
}

// buckets125To1000 are vLLM's build_1_2_5_buckets(max_model_len=1000).
var buckets125To1000 = []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}

// vllmFamilies are the families of TestMetricFamiliesAsVLLM's server
// (max model length 1000).
var vllmFamilies = []vllmFamily{
	{"vllm:num_requests_running", dto.MetricType_GAUGE, nil, nil},
	{"vllm:num_requests_waiting", dto.MetricType_GAUGE, nil, nil},
	{"vllm:num_requests_waiting_by_reason", dto.MetricType_GAUGE, []string{"reason"}, nil},
	{"vllm:kv_cache_usage_perc", dto.MetricType_GAUGE, nil, nil},
	{"vllm:num_preemptions_total", dto.MetricType_COUNTER, nil, nil},
	{"vllm:prompt_tokens_total", dto.MetricType_COUNTER, nil, nil},
	{"vllm:prompt_tokens_by_source_total", dto.MetricType_COUNTER, []string{"source"}, nil},
	{"vllm:prompt_tokens_cached_total", dto.MetricType_COUNTER, nil, nil},
	{"vllm:generation_tokens_total", dto.MetricType_COUNTER, nil, nil},
	{"vllm:request_success_total", dto.MetricType_COUNTER, []string{"finished_reason"}, nil},
	{"vllm:prefix_cache_queries_total", dto.MetricType_COUNTER, nil, nil},
	{"vllm:prefix_cache_hits_total", dto.MetricType_COUNTER, nil, nil},
	{"vllm:spec_decode_num_drafts_total", dto.MetricType_COUNTER, nil, nil},
	{"vllm:spec_decode_num_draft_tokens_total", dto.MetricType_COUNTER, nil, nil},
	{"vllm:spec_decode_num_accepted_tokens_total", dto.MetricType_COUNTER, nil, nil},
	{"vllm:spec_decode_num_accepted_tokens_per_pos_total", dto.MetricType_COUNTER, []string{"position"}, nil},
	// vllm/v1/metrics/buckets.py families.
	{"vllm:time_to_first_token_seconds", dto.MetricType_HISTOGRAM, nil, ttftBuckets},
	{"vllm:inter_token_latency_seconds", dto.MetricType_HISTOGRAM, nil, itlBuckets},
	{"vllm:request_time_per_output_token_seconds", dto.MetricType_HISTOGRAM, nil, itlBuckets},
	{"vllm:e2e_request_latency_seconds", dto.MetricType_HISTOGRAM, nil, requestLatencyBuckets},
	{"vllm:request_queue_time_seconds", dto.MetricType_HISTOGRAM, nil, requestLatencyBuckets},
	{"vllm:request_inference_time_seconds", dto.MetricType_HISTOGRAM, nil, requestLatencyBuckets},
	{"vllm:request_prefill_time_seconds", dto.MetricType_HISTOGRAM, nil, requestLatencyBuckets},
	{"vllm:request_decode_time_seconds", dto.MetricType_HISTOGRAM, nil, requestLatencyBuckets},
	// build_1_2_5_buckets(max_model_len=1000).
	{"vllm:request_prompt_tokens", dto.MetricType_HISTOGRAM, nil, buckets125To1000},
	{"vllm:request_generation_tokens", dto.MetricType_HISTOGRAM, nil, buckets125To1000},
	{"vllm:request_params_max_tokens", dto.MetricType_HISTOGRAM, nil, buckets125To1000},
	{"vllm:request_max_num_generation_tokens", dto.MetricType_HISTOGRAM, nil, buckets125To1000},
	{"vllm:request_prefill_kv_computed_tokens", dto.MetricType_HISTOGRAM, nil, buckets125To1000},
	{"vllm:request_params_n", dto.MetricType_HISTOGRAM, nil, []float64{1, 2, 5, 10, 20}},
	{"vllm:iteration_tokens_total", dto.MetricType_HISTOGRAM, nil,
		[]float64{1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}},
}

// TestMetricFamiliesAsVLLM: /metrics has vLLM's families, each with its
// type, help, labels and buckets.
func TestMetricFamiliesAsVLLM(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, Config{Scheduler: &SchedulerConfig{MaxNumSeqs: 4, MaxNumBatchedTokens: 256, BlockSize: 16,
		NumGPUBlocks: 64, NumSpeculativeTokens: 2, SpecAcceptanceRate: 0.5}, MaxModelLen: 1000, Model: "m"})
	fams := scrapeMetrics(t, s)
	for _, want := range vllmFamilies {
		f, ok := fams[want.name]
		if !ok {
			t.Errorf("%s: missing", want.name)
			continue
		}
		checkFamily(t, f, want)
	}
	// Every finish reason exists from the start, as vLLM pre-creates them.
	var reasons []string
	for _, m := range fams["vllm:request_success_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "finished_reason" {
				reasons = append(reasons, l.GetValue())
			}
		}
	}
	slices.Sort(reasons)
	if want := []string{"abort", "error", "length", "stop"}; !slices.Equal(reasons, want) {
		t.Errorf("finished_reason values %v, want %v", reasons, want)
	}
}

// checkFamily checks family f's type, help, labels (model m, engine 0)
// and buckets against want.
func checkFamily(t *testing.T, f *dto.MetricFamily, want vllmFamily) {
	t.Helper()
	if f.GetType() != want.typ {
		t.Errorf("%s: type %v, want %v", want.name, f.GetType(), want.typ)
	}
	if f.GetHelp() == "" {
		t.Errorf("%s: no help text", want.name)
	}
	wantLabels := append([]string{"engine", "model_name"}, want.labels...)
	slices.Sort(wantLabels)
	for _, m := range f.GetMetric() {
		var names []string
		for _, l := range m.GetLabel() {
			names = append(names, l.GetName())
			if l.GetName() == "model_name" && l.GetValue() != "m" || l.GetName() == "engine" && l.GetValue() != "0" {
				t.Errorf("%s: label %s=%q", want.name, l.GetName(), l.GetValue())
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, wantLabels) {
			t.Errorf("%s: labels %v, want %v", want.name, names, wantLabels)
		}
		if want.buckets == nil {
			continue
		}
		var got []float64
		for _, b := range m.GetHistogram().GetBucket() {
			if !math.IsInf(b.GetUpperBound(), 1) {
				got = append(got, b.GetUpperBound())
			}
		}
		if !slices.Equal(got, want.buckets) {
			t.Errorf("%s: buckets %v, want %v", want.name, got, want.buckets)
		}
	}
}

func TestMetricsPreemptionsWithTinyCache(t *testing.T) {
	t.Parallel()
	// 24 blocks of 16 tokens (384 tokens) for 8 requests of 40 + 60
	// tokens: the cache runs out while they decode, requests are
	// preempted, and /metrics shows it.
	cfg := engineConfig(func(c *SchedulerConfig) { c.NumGPUBlocks, c.MaxNumSeqs = 24, 8 })
	cfg.MaxModelLen = 256
	var reqs []engineReq
	for i := range 8 {
		reqs = append(reqs, engineReq{id: fmt.Sprintf("r%d", i), prompt: 40, out: 60, stream: true})
	}
	recs, scrape := runEngine(t, cfg, reqs)
	fams := parseScrape(t, scrape)
	preempted := 0
	for _, r := range recs {
		preempted += r.Preemptions
		if r.Completion != 60 {
			t.Errorf("%s: %d tokens, want 60", r.RequestID, r.Completion)
		}
	}
	got := value(fams["vllm:num_preemptions_total"])
	if preempted == 0 || got != float64(preempted) {
		t.Errorf("vllm:num_preemptions_total %v, records %d: want the same, above 0", got, preempted)
	}
	if n := value(fams["vllm:generation_tokens_total"]); n != 8*60 {
		t.Errorf("generation tokens %v, want %d", n, 8*60)
	}
	// 40 words and the fake tokenizer's BOS, counted once per request, not
	// again when a preempted request recomputes its prompt.
	if n := value(fams["vllm:prompt_tokens_total"]); n != 8*41 {
		t.Errorf("prompt tokens %v, want %d", n, 8*41)
	}
	h := fams["vllm:request_queue_time_seconds"].GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 8 {
		t.Errorf("queue time samples %d, want 8", h.GetSampleCount())
	}
	if s := fams["vllm:request_success_total"]; value(s) != 8 {
		t.Errorf("request_success %v, want 8", value(s))
	}
}

func TestMetricsFixedEngine(t *testing.T) {
	t.Parallel()
	// The fixed engine feeds the request-level families from its outputs:
	// 3 tokens, 2 inter-token samples.
	s := newTestServer(t, Config{Tokenizer: fakeTokenizer{}})
	rec := do(t, s.Handler(), http.MethodPost, "/v1/completions", `{"prompt":"a b c","max_tokens":3,"ignore_eos":true,"stream":true}`, nil)
	if rec.Code != http.StatusOK {
		t.Fatal(rec.Body.String())
	}
	fams := scrapeMetrics(t, s)
	checks := []struct {
		name string
		want float64
	}{
		{"vllm:generation_tokens_total", 3},
		{"vllm:prompt_tokens_total", 4}, // BOS + 3 words
		{"vllm:num_requests_running", 0},
	}
	for _, c := range checks {
		if got := value(fams[c.name]); got != c.want {
			t.Errorf("%s = %v, want %v", c.name, got, c.want)
		}
	}
	if n := fams["vllm:inter_token_latency_seconds"].GetMetric()[0].GetHistogram().GetSampleCount(); n != 2 {
		t.Errorf("ITL samples %d, want 2", n)
	}
	if n := fams["vllm:time_to_first_token_seconds"].GetMetric()[0].GetHistogram().GetSampleCount(); n != 1 {
		t.Errorf("TTFT samples %d, want 1", n)
	}
}

func TestCacheConfigInfo(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, Config{Scheduler: &SchedulerConfig{MaxNumSeqs: 4, MaxNumBatchedTokens: 256, BlockSize: 32,
		NumGPUBlocks: 100, EnablePrefixCaching: false}, MaxModelLen: 1000, Model: "m"})
	f, ok := scrapeMetrics(t, s)["vllm:cache_config_info"]
	if !ok || f.GetType() != dto.MetricType_GAUGE || len(f.GetMetric()) != 1 {
		t.Fatalf("vllm:cache_config_info: %v", f)
	}
	m := f.GetMetric()[0]
	got := map[string]string{}
	for _, l := range m.GetLabel() {
		got[l.GetName()] = l.GetValue()
	}
	// vLLM's labels are the CacheConfig fields as Python's str of them,
	// and the engine; there is no model_name. 100 blocks hold 100 / ceil(1000/32)
	// requests of the max model length.
	want := map[string]string{"block_size": "32", "cache_dtype": "auto", "calculate_kv_scales": "False",
		"enable_prefix_caching": "False", "engine": "0", "gpu_memory_utilization": "0.9", "is_attention_free": "False",
		"kv_cache_max_concurrency": "3.125", "kv_cache_memory_bytes": "None", "kv_cache_size_tokens": "3200",
		"num_cpu_blocks": "None", "num_gpu_blocks": "100", "num_gpu_blocks_override": "100",
		"prefix_caching_hash_algo": "sha256", "sliding_window": "None"}
	if diff := cmp.Diff(want, got); diff != "" || m.GetGauge().GetValue() != 1 {
		t.Errorf("value %v, labels (-want +got):\n%s", m.GetGauge().GetValue(), diff)
	}
	// The fixed engine has no KV cache to describe.
	if _, ok := scrapeMetrics(t, newTestServer(t, Config{}))["vllm:cache_config_info"]; ok {
		t.Error("the fixed engine exposes vllm:cache_config_info")
	}
}

// TestPrefixCacheCountedOnceAtAdmission: requests that wait several steps
// for blocks are looked up in the prefix cache at every step, but counted
// once, when they are admitted, as vLLM records them; so the counters agree
// with the record, and so does the histogram of tokens per step.
func TestPrefixCacheCountedOnceAtAdmission(t *testing.T) {
	t.Parallel()
	// 12 blocks of 16 tokens for 6 requests of 80 words whose first 32
	// are the same (a word is a token without a tokenizer), which grow to
	// 100 tokens: the first one runs alone, the next reuse its first two
	// blocks, and the rest wait for blocks, looked up again at every step
	// (and preempted requests are looked up again when they resume).
	cfg := engineConfig(func(c *SchedulerConfig) { c.NumGPUBlocks, c.EnablePrefixCaching = 12, true })
	cfg.MaxModelLen, cfg.Tokenizer = 192, nil
	var reqs []engineReq
	for i := range 6 {
		reqs = append(reqs, engineReq{id: fmt.Sprintf("r%d", i), delay: time.Duration(min(i, 1)) * 10 * time.Millisecond,
			prompt: 80, shared: 32, out: 20, stream: true})
	}
	recs, scrape := runEngine(t, cfg, reqs)
	fams := parseScrape(t, scrape)
	var queried, cached, waited int
	for _, r := range recs {
		if r.ScheduledNS != 0 {
			queried += r.Prompt
		}
		cached += r.CachedTokens
		if seconds(r.Intervals["queue"]) > 0 {
			waited++
		}
	}
	if waited < 3 || cached != 5*32 {
		t.Fatalf("%d requests waited, %d tokens hit: the test does not exercise the lookup of waiting requests", waited, cached)
	}
	if got := value(fams["vllm:prefix_cache_queries_total"]); got != float64(queried) {
		t.Errorf("vllm:prefix_cache_queries_total %v, want %d (each admitted prompt once)", got, queried)
	}
	if got := value(fams["vllm:prefix_cache_hits_total"]); got != float64(cached) {
		t.Errorf("vllm:prefix_cache_hits_total %v, want the record's %d cached tokens", got, cached)
	}
	// Tokens per step: the computed prompt tokens (cache hits excluded)
	// and the generated ones.
	iter := fams["vllm:iteration_tokens_total"].GetMetric()[0].GetHistogram().GetSampleSum()
	want := value(fams["vllm:prompt_tokens_total"]) - value(fams["vllm:prompt_tokens_cached_total"]) +
		value(fams["vllm:generation_tokens_total"])
	if iter != want {
		t.Errorf("vllm:iteration_tokens_total sum %v, want computed prompt + generated tokens %v", iter, want)
	}
}
