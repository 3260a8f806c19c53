package servermetrics

import (
	"slices"
	"strings"
)

// Role is what a histogram measures, whatever an engine calls it: the
// diagnosis asks its questions of roles, so that one procedure reads
// every engine.
type Role string

// The roles of the histograms gobench reads.
const (
	RoleTTFT            Role = "ttft"
	RoleQueue           Role = "queue"
	RolePrefill         Role = "prefill"
	RoleDecode          Role = "decode"
	RoleInference       Role = "inference"
	RoleE2E             Role = "e2e"
	RoleITL             Role = "itl"
	RoleTPOT            Role = "tpot"
	RoleValidation      Role = "validation"
	RolePromptLen       Role = "prompt_tokens"
	RoleGenerationLen   Role = "generation_tokens"
	RoleMaxTokens       Role = "max_tokens"
	RoleN               Role = "n"
	RoleMaxGeneration   Role = "max_generation_tokens"
	RoleComputedPrefill Role = "computed_prefill_tokens"
	RoleStepTokens      Role = "tokens_per_step"
)

// Hist is one histogram an engine publishes: its role, its name, the
// label of its table row and its unit ("s", "tokens" or "").
type Hist struct {
	Role  Role
	Name  string
	Label string
	Unit  string
	// Differs says how the interval differs from the one the role names
	// as the client measures it ("" when it is the same): a gap between
	// the two would compare different things, so none is computed.
	Differs string
}

// Latency reports whether the histogram is a latency (seconds).
func (h Hist) Latency() bool { return h.Unit == "s" }

// Figure is an engine's gauge or counter shown as it is, beside the
// figures every engine has: its name, what it is and its unit.
type Figure struct {
	Metric string
	Label  string
	Unit   string
	// AtEnd reads the value at the window's end (a gauge, or a counter
	// that is really a maximum); otherwise the window's increase.
	AtEnd bool
	// Note says what the value covers when it is not the window.
	Note string
}

// Engine is what gobench reads of one inference server's /metrics, by
// role: the diagnosis and the server view ask the same questions of every
// engine through it. "" is a metric the engine does not publish. Counters
// are named without their _total suffix, as Parse files them.
type Engine struct {
	// ID names the engine in the JSON report ("vllm", "llama.cpp",
	// "sglang", "tgi", "unknown"); Name in text ("vLLM", ...).
	ID, Name string
	// Prefix starts every family of the engine; Pattern is how the text
	// shows it ("vllm:*").
	Prefix, Pattern string
	// Source says where the names were taken from and how they were
	// checked.
	Source string

	Histograms []Hist

	// PromptTokens and GenerationTokens count tokens; CachedPromptTokens
	// counts prompt tokens served from the prefix cache, which
	// PromptTokens excludes when PromptExcludesCached.
	PromptTokens, GenerationTokens, CachedPromptTokens string
	PromptExcludesCached                               bool
	// PrefixQueries and PrefixHits count prefix-cache lookups and hits;
	// HitRateGauge is a hit rate the engine computes itself (since start).
	PrefixQueries, PrefixHits, HitRateGauge string
	// Finished counts finished requests, split by FinishedLabel when set.
	Finished, FinishedLabel string
	// Preemptions counts requests taken off the running batch for lack
	// of cache; PreemptionWord is the engine's word for it.
	Preemptions, PreemptionWord string
	// SpecDrafts, SpecDraftTokens and SpecAccepted count speculative
	// decoding's drafts, draft tokens and accepted tokens.
	SpecDrafts, SpecDraftTokens, SpecAccepted string
	// PromptSeconds and DecodeSeconds count the time spent on prompts and
	// on generation, summed over requests.
	PromptSeconds, DecodeSeconds string

	// Running and Waiting are the requests in the batch and those waiting
	// for it; WaitingByReason splits Waiting by a reason label.
	Running, Waiting, WaitingByReason string
	// KVUsage is the KV-cache usage (1 full); without it, KVUsed over
	// KVCapacity is.
	KVUsage, KVUsed, KVCapacity string
	// Swapped is V0 vLLM's requests swapped to CPU; CacheConfig an info
	// metric with the cache's configuration in its labels.
	Swapped, CacheConfig string
	// LimitFlag is the server's flag that bounds the running requests.
	LimitFlag string
	// WaitingMeansFull says a waiting request shows the running limit
	// reached: the engine queues a request only when no slot is free.
	WaitingMeansFull bool
	// Figures are the engine's own gauges and counters, shown as they are.
	Figures []Figure
}

// Known reports whether the engine was recognised.
func (e Engine) Known() bool { return e.ID != UnknownID }

// Hist returns the engine's histogram of role.
func (e Engine) Hist(role Role) (Hist, bool) {
	for _, h := range e.Histograms {
		if h.Role == role {
			return h, true
		}
	}
	return Hist{}, false
}

// Describe is "llama.cpp (llamacpp:* metrics)", or what an unknown
// engine lacks.
func (e Engine) Describe() string {
	if !e.Known() {
		return "unknown (no metrics of a known engine: " + KnownPatterns() + ")"
	}
	return e.Name + " (" + e.Pattern + " metrics)"
}

// UnknownID is the ID of an engine gobench does not recognise.
const UnknownID = "unknown"

// Unknown is the engine of a page without a known engine's metrics.
func Unknown() Engine { return Engine{ID: UnknownID, Name: "unknown"} }

// Engines lists the engines gobench reads: adding one is adding its
// entry here (and its page to the tests).
func Engines() []Engine { return []Engine{vllmEngine(), llamaCppEngine(), sglangEngine(), tgiEngine()} }

// KnownPatterns lists the engines' patterns for messages.
func KnownPatterns() string {
	var parts []string
	for _, e := range Engines() {
		parts = append(parts, e.Name+" "+e.Pattern)
	}
	return strings.Join(parts, ", ")
}

// Detect names the engine of s by its families' names: the engine with
// the most families, Unknown when none has any.
func Detect(s *Scrape) Engine {
	best, most := Unknown(), 0
	for _, e := range Engines() {
		n := 0
		for name := range s.families {
			if strings.HasPrefix(name, e.Prefix) {
				n++
			}
		}
		if n > most {
			best, most = e, n
		}
	}
	return best
}

// vllmEngine is vLLM's table: the constants of names.go.
func vllmEngine() Engine {
	return Engine{ID: "vllm", Name: "vLLM", Prefix: "vllm:", Pattern: "vllm:*",
		Source: "vllm/v1/metrics/loggers.py@005a810bc (PrometheusStatLogger); V0: vllm/engine/metrics.py@00c33e81b",
		Histograms: []Hist{
			{RoleTTFT, TTFT, "TTFT", "s", ""},
			{RoleQueue, Queue, "queue", "s", ""},
			{RolePrefill, Prefill, "prefill", "s", ""},
			{RoleDecode, Decode, "decode", "s", ""},
			{RoleInference, Inference, "inference", "s", ""},
			{RoleE2E, E2E, "E2E", "s", ""},
			{RoleITL, ITL, "ITL", "s", ""},
			{RoleTPOT, TPOT, "TPOT (per request)", "s", ""},
			{RolePromptLen, PromptTokensHist, "prompt tokens", "tokens", ""},
			{RoleGenerationLen, GenerationTokensHist, "generation tokens", "tokens", ""},
			{RoleMaxTokens, MaxTokensParam, "max_tokens", "tokens", ""},
			{RoleN, NParam, "n", "", ""},
			{RoleMaxGeneration, MaxGenerationTokens, "max generation tokens", "tokens", ""},
			{RoleComputedPrefill, PrefillKVComputed, "computed prefill tokens", "tokens", ""},
			{RoleStepTokens, IterationTokens, "tokens per engine step", "tokens", ""},
		},
		PromptTokens: PromptTokens, GenerationTokens: GenerationTokens,
		PrefixQueries: PrefixQueries, PrefixHits: PrefixHits, HitRateGauge: PrefixHitRateV0,
		Finished: RequestSuccess, FinishedLabel: "finished_reason",
		Preemptions: Preemptions, PreemptionWord: "preemptions",
		SpecDrafts: SpecDrafts, SpecDraftTokens: SpecDraftTokens, SpecAccepted: SpecAcceptedTokens,
		Running: Running, Waiting: Waiting, WaitingByReason: WaitingByReason, KVUsage: KVUsage,
		Swapped: Swapped, CacheConfig: CacheConfigInfo, LimitFlag: "--max-num-seqs",
	}
}

// llamaCppEngine is llama.cpp's llama-server (tools/server/server.cpp's
// /metrics handler), read from a running llama-server 0.7.0 (b11669). The
// slot count (-np) is not published; a request is deferred only when no
// slot is free. The throughput gauges cover the time since the previous
// /metrics call (llama-server resets them at each), n_busy_slots_per_decode
// the time since it started.
func llamaCppEngine() Engine {
	return Engine{ID: "llama.cpp", Name: "llama.cpp", Prefix: "llamacpp:", Pattern: "llamacpp:*",
		Source:       "a running llama-server 0.7.0 (b11669)",
		PromptTokens: "llamacpp:prompt_tokens", GenerationTokens: "llamacpp:tokens_predicted",
		CachedPromptTokens: "llamacpp:prompt_tokens_cached", PromptExcludesCached: true,
		SpecDrafts: "llamacpp:spec_decode_num_drafts", SpecDraftTokens: "llamacpp:spec_decode_num_draft_tokens",
		SpecAccepted:  "llamacpp:spec_decode_num_accepted_tokens",
		PromptSeconds: "llamacpp:prompt_seconds", DecodeSeconds: "llamacpp:tokens_predicted_seconds",
		Running: "llamacpp:requests_processing", Waiting: "llamacpp:requests_deferred",
		LimitFlag: "--parallel (-np, the slots)", WaitingMeansFull: true,
		Figures: []Figure{
			{Metric: "llamacpp:n_busy_slots_per_decode", Label: "busy slots per decode", AtEnd: true, Note: "since the server started"},
			{Metric: "llamacpp:n_decode", Label: "decode calls", Unit: "calls"},
			{Metric: "llamacpp:prompt_tokens_seconds", Label: "prompt throughput", Unit: "tokens/s", AtEnd: true,
				Note: "since the previous /metrics call"},
			{Metric: "llamacpp:predicted_tokens_seconds", Label: "generation throughput", Unit: "tokens/s", AtEnd: true,
				Note: "since the previous /metrics call"},
			{Metric: "llamacpp:n_tokens_max", Label: "largest sequence", Unit: "tokens", AtEnd: true, Note: "since the server started"},
		},
	}
}

// sglangEngine is SGLang's names, from its code only:
// python/sglang/srt/metrics/collector.py@00ae9c159 (SchedulerMetricsCollector,
// TokenizerMetricsCollector). sglang:time_per_output_token_seconds is
// older versions' per-request e2e latency / generation tokens;
// sglang:prompt_tokens counts whole prompts, sglang:cached_tokens their
// cached part; a retraction is SGLang's preemption.
func sglangEngine() Engine {
	return Engine{ID: "sglang", Name: "SGLang", Prefix: "sglang:", Pattern: "sglang:*",
		Source: "python/sglang/srt/metrics/collector.py@00ae9c159",
		Histograms: []Hist{
			{RoleTTFT, "sglang:time_to_first_token_seconds", "TTFT", "s", ""},
			{RoleQueue, "sglang:queue_time_seconds", "queue", "s", ""},
			{RoleE2E, "sglang:e2e_request_latency_seconds", "E2E", "s", ""},
			{RoleITL, "sglang:inter_token_latency_seconds", "ITL", "s", ""},
			{RoleTPOT, "sglang:time_per_output_token_seconds", "TPOT (per request)", "s",
				"SGLang's is the request's whole latency over its output tokens, TTFT included"},
			{RolePromptLen, "sglang:prompt_tokens_histogram", "prompt tokens", "tokens", ""},
			{RoleGenerationLen, "sglang:generation_tokens_histogram", "generation tokens", "tokens", ""},
		},
		PromptTokens: "sglang:prompt_tokens", GenerationTokens: "sglang:generation_tokens",
		CachedPromptTokens: "sglang:cached_tokens", HitRateGauge: "sglang:cache_hit_rate",
		Finished: "sglang:num_requests", Preemptions: "sglang:num_retracted_requests", PreemptionWord: "retractions",
		Running: "sglang:num_running_reqs", Waiting: "sglang:num_queue_reqs", KVUsage: "sglang:token_usage",
		LimitFlag: "--max-running-requests",
		Figures: []Figure{
			{Metric: "sglang:gen_throughput", Label: "generation throughput", Unit: "tokens/s", AtEnd: true, Note: "the scheduler's last report"},
			{Metric: "sglang:cache_hit_rate", Label: "prefix-cache hit rate (SGLang's)", AtEnd: true, Note: "the scheduler's last report"},
			{Metric: "sglang:spec_accept_length", Label: "spec-decode acceptance length", AtEnd: true, Note: "the scheduler's last report"},
			{Metric: "sglang:num_aborted_requests", Label: "aborted requests", Unit: "requests"},
		},
	}
}

// tgiEngine is Text Generation Inference's names, from its documentation
// and code only: docs/source/reference/metrics.md@53fdbe617 and
// router/src/server.rs, backends/v3/src/{backend,queue,lib}.rs@db931fcf4
// (metrics-exporter-prometheus: histograms in seconds, counters without
// _total). TGI publishes no time to first token: tgi_request_duration runs
// from the request's arrival, validation (tokenising) and queue included;
// tgi_request_mean_time_per_token_duration is inference time (prefill
// included) over generated tokens.
func tgiEngine() Engine {
	return Engine{ID: "tgi", Name: "TGI", Prefix: "tgi_", Pattern: "tgi_*",
		Source: "docs/source/reference/metrics.md@53fdbe617, router/src/server.rs@db931fcf4",
		Histograms: []Hist{
			{RoleValidation, "tgi_request_validation_duration", "validation", "s", ""},
			{RoleQueue, "tgi_request_queue_duration", "queue", "s", ""},
			{RoleInference, "tgi_request_inference_duration", "inference", "s", ""},
			{RoleE2E, "tgi_request_duration", "E2E", "s", ""},
			{RoleTPOT, "tgi_request_mean_time_per_token_duration", "TPOT (per request)", "s",
				"TGI's is inference time over generated tokens, prefill included"},
			{RolePromptLen, "tgi_request_input_length", "prompt tokens", "tokens", ""},
			{RoleGenerationLen, "tgi_request_generated_tokens", "generation tokens", "tokens", ""},
			{RoleMaxTokens, "tgi_request_max_new_tokens", "max_new_tokens", "tokens", ""},
		},
		Finished: "tgi_request_success",
		Running:  "tgi_batch_current_size", Waiting: "tgi_queue_size",
		KVUsed: "tgi_batch_current_max_tokens", KVCapacity: "tgi_batch_max_total_tokens",
		LimitFlag: "--max-batch-size or --max-batch-total-tokens",
		Figures: []Figure{
			{Metric: "tgi_request_count", Label: "requests received", Unit: "requests"},
			{Metric: "tgi_request_failure", Label: "failed requests", Unit: "requests"},
			{Metric: "tgi_batch_current_max_tokens", Label: "batch token budget in use", Unit: "tokens", AtEnd: true},
			{Metric: "tgi_batch_max_total_tokens", Label: "batch token budget", Unit: "tokens", AtEnd: true},
		},
	}
}

// expectedKind is the kind gobench reads name as (counter or gauge) in
// any engine's table; 0 when no table names it.
func expectedKind(name string) Kind {
	for _, e := range Engines() {
		if slices.Contains(e.counters(), name) {
			return KindCounter
		}
		if slices.Contains(e.gauges(), name) {
			return KindGauge
		}
	}
	return 0
}

// counters lists the engine's counters.
func (e Engine) counters() []string {
	out := nonEmpty(e.PromptTokens, e.GenerationTokens, e.CachedPromptTokens, e.PrefixQueries, e.PrefixHits,
		e.Finished, e.Preemptions, e.SpecDrafts, e.SpecDraftTokens, e.SpecAccepted, e.PromptSeconds, e.DecodeSeconds)
	for _, f := range e.Figures {
		if !f.AtEnd {
			out = append(out, f.Metric)
		}
	}
	return out
}

// gauges lists the engine's gauges.
func (e Engine) gauges() []string {
	out := nonEmpty(e.Running, e.Waiting, e.WaitingByReason, e.KVUsage, e.KVUsed, e.KVCapacity, e.Swapped, e.HitRateGauge)
	for _, f := range e.Figures {
		if f.AtEnd && f.Metric != "llamacpp:n_tokens_max" {
			out = append(out, f.Metric)
		}
	}
	return out
}

// histogramNames lists the engine's histograms.
func (e Engine) histogramNames() []string {
	out := make([]string, 0, len(e.Histograms))
	for _, h := range e.Histograms {
		out = append(out, h.Name)
	}
	return out
}

func nonEmpty(names ...string) []string {
	out := names[:0]
	for _, n := range names {
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}

// readPrefixes are the name prefixes of the families Parse keeps: the
// engines' and the process start time's (restarts).
func readPrefixes() []string {
	out := []string{ProcessStart}
	for _, e := range Engines() {
		out = append(out, e.Prefix)
	}
	return out
}
