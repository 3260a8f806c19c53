package sim

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// vLLM's histogram bucket families (vllm/v1/metrics/buckets.py).
var (
	// requestLatencyBuckets: e2e, queue, inference, prefill, decode.
	requestLatencyBuckets = []float64{0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0,
		60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0}
	// ttftBuckets: time to first token, 1 ms to 2560 s.
	ttftBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
		10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0}
	// itlBuckets: inter-token latency and per-request TPOT, 10 ms to 80 s.
	itlBuckets = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
		10.0, 20.0, 40.0, 80.0}
	// iterationTokensBuckets: tokens per engine step.
	iterationTokensBuckets = []float64{1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}
	// paramsNBuckets: the n request parameter.
	paramsNBuckets = []float64{1, 2, 5, 10, 20}
)

// buckets125 is vLLM's build_1_2_5_buckets(max): 1, 2, 5, 10, 20, 50, ...
// up to max, the request-shape histograms' buckets.
func buckets125(limit int) []float64 {
	var out []float64
	for scale := 1; ; scale *= 10 {
		for _, m := range []int{1, 2, 5} {
			v := m * scale
			if v > limit {
				return out
			}
			out = append(out, float64(v))
		}
	}
}

// finishReasons are vLLM's FinishReason strings, the values of
// request_success's finished_reason label.
var finishReasons = []string{"stop", "length", "abort", "error"}

// promMetrics is the server's /metrics: vLLM's PrometheusStatLogger
// families (vllm/v1/metrics/loggers.py) with the same names, types, help
// texts, labels (model_name and engine "0") and buckets, in a registry of
// the server's own. Counters are registered with their _total suffix, which
// Python's client adds on exposition.
//
// What feeds what follows vLLM: TTFT and e2e latency are front-end
// intervals (from arrival, i.e. receipt, to the handler getting the first
// or last output); inter-token latency is the gap between two outputs'
// engine timestamps, one sample per output (not per token); queue, prefill,
// decode and inference come from the engine's timeline (first SCHEDULED,
// so a preemption stays inside prefill or decode); prompt tokens count when
// a request's first token comes out; the scheduler gauges, preemptions,
// prefix cache and speculative decoding counters come from engine steps.
type promMetrics struct {
	reg *prometheus.Registry

	running, waiting, kvUsage prometheus.Gauge
	waitingCapacity           prometheus.Gauge
	preemptions               prometheus.Counter
	promptTokens, genTokens   prometheus.Counter
	promptCached              prometheus.Counter
	promptBySource            map[string]prometheus.Counter
	success                   map[string]prometheus.Counter
	prefixQueries, prefixHits prometheus.Counter

	specDrafts, specDraftTokens, specAccepted prometheus.Counter
	specPerPos                                []prometheus.Counter

	ttft, itl, tpot, e2e, queue, inference, prefill, decode prometheus.Histogram
	promptHist, genHist, iterTokens, maxGen, paramsN        prometheus.Histogram
	paramsMaxTokens, prefillKV                              prometheus.Histogram

	mu         sync.Mutex
	activeReqs int // generation requests in flight (the fixed engine's "running")
	scheduler  bool
}

// newPromMetrics registers every family for model. Without the scheduler
// (sc nil) nothing feeds the scheduler gauges but the fixed engine's
// requests in flight, and there is no KV cache to describe; with it,
// vllm:cache_config_info describes its cache and NumSpeculativeTokens > 0
// adds the speculative decoding counters, as vLLM does only with a
// speculative config.
func newPromMetrics(model string, maxModelLen int, sc *SchedulerConfig) *promMetrics {
	m := &promMetrics{reg: prometheus.NewRegistry(), scheduler: sc != nil}
	r := registrar{reg: m.reg, labels: prometheus.Labels{"model_name": model, "engine": "0"}}
	m.registerState(r)
	m.registerHistograms(r, maxModelLen)
	if sc != nil {
		registerCacheConfigInfo(m.reg, sc, maxModelLen)
		if sc.NumSpeculativeTokens > 0 {
			m.registerSpecDecode(r, sc.NumSpeculativeTokens)
		}
	}
	return m
}

// registrar registers families with vLLM's labels in one registry.
type registrar struct {
	reg    *prometheus.Registry
	labels prometheus.Labels
}

func (r registrar) gauge(name, help string) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: r.labels})
	r.reg.MustRegister(g)
	return g
}

func (r registrar) counter(name, help string) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: r.labels})
	r.reg.MustRegister(c)
	return c
}

// counters registers a counter family with one more label and returns its
// series for values, all present from the start (as vLLM pre-creates them).
func (r registrar) counters(name, help, label string, values []string) map[string]prometheus.Counter {
	vec := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: r.labels}, []string{label})
	r.reg.MustRegister(vec)
	out := make(map[string]prometheus.Counter, len(values))
	for _, v := range values {
		out[v] = vec.WithLabelValues(v)
	}
	return out
}

func (r registrar) hist(name, help string, buckets []float64) prometheus.Histogram {
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, ConstLabels: r.labels, Buckets: buckets})
	r.reg.MustRegister(h)
	return h
}

// registerState registers the scheduler gauges and the counters.
func (m *promMetrics) registerState(r registrar) {
	m.running = r.gauge("vllm:num_requests_running", "Number of requests in model execution batches.")
	m.waiting = r.gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.")
	byReason := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "vllm:num_requests_waiting_by_reason",
		Help: "Number of waiting requests by reason. Reason labels: 'capacity' = waiting for scheduling capacity; " +
			"'deferred' = deferred by transient constraints (LoRA budget, KV transfer, blocked status). " +
			"Sum of all reasons equals vllm:num_requests_waiting.", ConstLabels: r.labels}, []string{"reason"})
	r.reg.MustRegister(byReason)
	m.waitingCapacity = byReason.WithLabelValues("capacity")
	byReason.WithLabelValues("deferred").Set(0)
	m.kvUsage = r.gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.")
	m.prefixQueries = r.counter("vllm:prefix_cache_queries_total", "Prefix cache queries, in terms of number of queried tokens.")
	m.prefixHits = r.counter("vllm:prefix_cache_hits_total", "Prefix cache hits, in terms of number of cached tokens.")
	m.preemptions = r.counter("vllm:num_preemptions_total", "Cumulative number of preemption from the engine.")
	m.promptTokens = r.counter("vllm:prompt_tokens_total", "Number of prefill tokens processed.")
	m.promptBySource = r.counters("vllm:prompt_tokens_by_source_total", "Number of prompt tokens by source.", "source",
		[]string{"local_compute", "local_cache_hit", "external_kv_transfer"})
	m.promptCached = r.counter("vllm:prompt_tokens_cached_total", "Number of cached prompt tokens (local + external).")
	m.genTokens = r.counter("vllm:generation_tokens_total", "Number of generation tokens processed.")
	m.success = r.counters("vllm:request_success_total", "Count of successfully processed requests.", "finished_reason", finishReasons)
}

// registerHistograms registers the request-shape and latency histograms.
func (m *promMetrics) registerHistograms(r registrar, maxModelLen int) {
	tokens := buckets125(maxModelLen)
	m.promptHist = r.hist("vllm:request_prompt_tokens", "Number of prefill tokens processed.", tokens)
	m.genHist = r.hist("vllm:request_generation_tokens", "Number of generation tokens processed.", tokens)
	m.iterTokens = r.hist("vllm:iteration_tokens_total", "Histogram of number of tokens per engine_step.", iterationTokensBuckets)
	m.maxGen = r.hist("vllm:request_max_num_generation_tokens", "Histogram of maximum number of requested generation tokens.", tokens)
	m.paramsN = r.hist("vllm:request_params_n", "Histogram of the n request parameter.", paramsNBuckets)
	m.paramsMaxTokens = r.hist("vllm:request_params_max_tokens", "Histogram of the max_tokens request parameter.", tokens)
	m.ttft = r.hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", ttftBuckets)
	m.itl = r.hist("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", itlBuckets)
	m.tpot = r.hist("vllm:request_time_per_output_token_seconds", "Histogram of time_per_output_token_seconds per request.", itlBuckets)
	m.e2e = r.hist("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", requestLatencyBuckets)
	m.queue = r.hist("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", requestLatencyBuckets)
	m.inference = r.hist("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", requestLatencyBuckets)
	m.prefill = r.hist("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", requestLatencyBuckets)
	m.decode = r.hist("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", requestLatencyBuckets)
	m.prefillKV = r.hist("vllm:request_prefill_kv_computed_tokens",
		"Histogram of new KV tokens computed during prefill (excluding cached tokens).", tokens)
}

// registerSpecDecode registers the speculative decoding counters.
func (m *promMetrics) registerSpecDecode(r registrar, specTokens int) {
	m.specDrafts = r.counter("vllm:spec_decode_num_drafts_total", "Number of spec decoding drafts.")
	m.specDraftTokens = r.counter("vllm:spec_decode_num_draft_tokens_total", "Number of draft tokens.")
	m.specAccepted = r.counter("vllm:spec_decode_num_accepted_tokens_total", "Number of accepted tokens.")
	positions := make([]string, specTokens)
	for i := range positions {
		positions[i] = strconv.Itoa(i)
	}
	perPos := r.counters("vllm:spec_decode_num_accepted_tokens_per_pos_total", "Accepted tokens per draft position.", "position", positions)
	for _, p := range positions {
		m.specPerPos = append(m.specPerPos, perPos[p])
	}
}

// registerCacheConfigInfo registers vllm:cache_config_info, the info
// gauge (always 1) whose labels are the engine's CacheConfig as strings
// (vllm/v1/metrics/loggers.py, log_metrics_info): the KV cache's size and
// whether prefix caching is on, which a reader of /metrics needs to tell a
// full cache from a small one and a missed prefix from a disabled cache.
// As in vLLM it has the engine label and no model_name. The labels are
// those of a recent V1 engine that mean something here; the rest are
// vLLM's defaults (Python's str of the value).
func registerCacheConfigInfo(reg *prometheus.Registry, sc *SchedulerConfig, maxModelLen int) {
	pyBool := func(b bool) string {
		if b {
			return "True"
		}
		return "False"
	}
	blocksPerRequest := (maxModelLen + sc.BlockSize - 1) / sc.BlockSize
	info := prometheus.NewGauge(prometheus.GaugeOpts{Name: "vllm:cache_config_info", Help: "Information of the LLMEngine CacheConfig",
		ConstLabels: prometheus.Labels{
			"block_size":               strconv.Itoa(sc.BlockSize),
			"cache_dtype":              "auto",
			"calculate_kv_scales":      "False",
			"enable_prefix_caching":    pyBool(sc.EnablePrefixCaching),
			"engine":                   "0",
			"gpu_memory_utilization":   "0.9",
			"is_attention_free":        "False",
			"kv_cache_max_concurrency": pyfmt.Float(float64(sc.NumGPUBlocks) / float64(blocksPerRequest)),
			"kv_cache_memory_bytes":    "None",
			"kv_cache_size_tokens":     strconv.Itoa(sc.NumGPUBlocks * sc.BlockSize),
			"num_cpu_blocks":           "None",
			"num_gpu_blocks":           strconv.Itoa(sc.NumGPUBlocks),
			"num_gpu_blocks_override":  strconv.Itoa(sc.NumGPUBlocks),
			"prefix_caching_hash_algo": "sha256",
			"sliding_window":           "None",
		}})
	info.Set(1)
	reg.MustRegister(info)
}

// handler serves the registry in Prometheus text format.
func (m *promMetrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// step records one engine step (SchedulerConfig.OnStep).
func (m *promMetrics) step(st StepStats) {
	m.running.Set(float64(st.Running))
	m.waiting.Set(float64(st.Waiting))
	m.waitingCapacity.Set(float64(st.Waiting))
	m.kvUsage.Set(st.KVUsage)
	m.preemptions.Add(float64(st.Preemptions))
	m.prefixQueries.Add(float64(st.PrefixQueries))
	m.prefixHits.Add(float64(st.PrefixHits))
	// vLLM observes the computed prompt tokens (cache hits excluded) plus
	// the generated tokens of the step's outputs.
	if n := st.PromptTokens - st.CachedPromptTokens + st.GenerationTokens; n > 0 {
		m.iterTokens.Observe(float64(n))
	}
	if m.specDrafts != nil {
		m.specDrafts.Add(float64(st.Drafts))
		m.specDraftTokens.Add(float64(st.DraftTokens))
		m.specAccepted.Add(float64(st.AcceptedTokens))
		for i, n := range st.AcceptedPerPosition {
			if i < len(m.specPerPos) {
				m.specPerPos[i].Add(float64(n))
			}
		}
	}
}

// admitted and left track generation requests in flight; without the
// scheduler they are the running gauge.
func (m *promMetrics) admitted() {
	if m.scheduler {
		return
	}
	m.mu.Lock()
	m.activeReqs++
	m.running.Set(float64(m.activeReqs))
	m.mu.Unlock()
}

func (m *promMetrics) left() {
	if m.scheduler {
		return
	}
	m.mu.Lock()
	m.activeReqs--
	m.running.Set(float64(m.activeReqs))
	m.mu.Unlock()
}

// firstOutput records a request's first output: its TTFT (front end), its
// prompt tokens split by source, and its request parameters.
func (m *promMetrics) firstOutput(ttft time.Duration, prompt, cached, maxTokens int) {
	m.ttft.Observe(ttft.Seconds())
	m.promptTokens.Add(float64(prompt))
	recomputed := 0
	if cached > 0 && cached+1 == prompt {
		recomputed = 1
	}
	m.promptBySource["local_compute"].Add(float64(prompt - cached))
	m.promptBySource["local_cache_hit"].Add(float64(cached + recomputed))
	m.promptCached.Add(float64(cached))
	m.paramsN.Observe(1)
	m.maxGen.Observe(float64(maxTokens))
}

// output records a later output's engine gap and any output's tokens.
func (m *promMetrics) output(tokens int, gap time.Duration, first bool) {
	m.genTokens.Add(float64(tokens))
	if !first {
		m.itl.Observe(gap.Seconds())
	}
}

// finished records a finished request: its reason, its e2e latency, and
// the engine intervals it got as far as (vLLM observes queue time once a
// request was scheduled, the others once it produced a token).
func (m *promMetrics) finished(reason string, e2e time.Duration, t Timing, prompt, generated, maxTokens int) {
	m.success[reason].Inc()
	m.e2e.Observe(e2e.Seconds())
	m.promptHist.Observe(float64(prompt))
	m.genHist.Observe(float64(generated))
	if maxTokens > 0 {
		m.paramsMaxTokens.Observe(float64(maxTokens))
	}
	if t.Scheduled.IsZero() {
		return
	}
	m.queue.Observe(t.Scheduled.Sub(t.Queued).Seconds())
	if t.FirstToken.IsZero() {
		return
	}
	m.prefill.Observe(t.FirstToken.Sub(t.Scheduled).Seconds())
	m.decode.Observe(t.LastToken.Sub(t.FirstToken).Seconds())
	m.inference.Observe(t.LastToken.Sub(t.Scheduled).Seconds())
	m.prefillKV.Observe(float64(prompt - t.CachedTokens))
	tpot := 0.0
	if generated > 1 {
		tpot = t.LastToken.Sub(t.FirstToken).Seconds() / float64(generated-1)
	}
	m.tpot.Observe(tpot)
}
