package servermetrics

import "strings"

// The vLLM families gobench reads, in their current V1 spelling (counters
// without the _total suffix that Python's client adds on exposition). They
// are defined in vllm/v1/metrics/loggers.py@005a810bc (PrometheusStatLogger)
// and, for the V0 engine, vllm/engine/metrics.py@00c33e81b; Aliases lists
// the older spellings each is also found under.
const (
	// TTFT is the time to first token, from arrival in the API server.
	TTFT = "vllm:time_to_first_token_seconds"
	// ITL is the inter-token latency, one sample per streamed output
	// (V0 and early V1: vllm:time_per_output_token_seconds).
	ITL = "vllm:inter_token_latency_seconds"
	// TPOT is the time per output token, one sample per request.
	TPOT = "vllm:request_time_per_output_token_seconds"
	// E2E is the end-to-end request latency.
	E2E = "vllm:e2e_request_latency_seconds"
	// Queue is the time from arrival in the engine to first scheduling.
	Queue = "vllm:request_queue_time_seconds"
	// Prefill is the time from first scheduling to the first token.
	Prefill = "vllm:request_prefill_time_seconds"
	// Decode is the time from the first to the last token.
	Decode = "vllm:request_decode_time_seconds"
	// Inference is prefill plus decode.
	Inference = "vllm:request_inference_time_seconds"

	// PromptTokensHist is the prompt length per finished request.
	PromptTokensHist = "vllm:request_prompt_tokens"
	// GenerationTokensHist is the output length per finished request.
	GenerationTokensHist = "vllm:request_generation_tokens"
	// MaxTokensParam is the max_tokens request parameter.
	MaxTokensParam = "vllm:request_params_max_tokens"
	// NParam is the n request parameter.
	NParam = "vllm:request_params_n"
	// MaxGenerationTokens is the largest number of tokens a request asked for.
	MaxGenerationTokens = "vllm:request_max_num_generation_tokens"
	// IterationTokens is the number of tokens per engine step (a histogram
	// whose name ends in _total: it is not a counter).
	IterationTokens = "vllm:iteration_tokens_total"
	// PrefillKVComputed is the prompt tokens actually computed per request,
	// after prefix-cache hits.
	PrefillKVComputed = "vllm:request_prefill_kv_computed_tokens"

	// PromptTokens counts prompt tokens processed.
	PromptTokens = "vllm:prompt_tokens"
	// GenerationTokens counts output tokens.
	GenerationTokens = "vllm:generation_tokens"
	// PrefixQueries counts prefix-cache lookups, in tokens (blocks in
	// some early V1 versions: the hit rate is a ratio either way).
	PrefixQueries = "vllm:prefix_cache_queries"
	// PrefixHits counts prefix-cache hits, in the unit of PrefixQueries.
	PrefixHits = "vllm:prefix_cache_hits"
	// Preemptions counts requests preempted by the scheduler.
	Preemptions = "vllm:num_preemptions"
	// RequestSuccess counts finished requests by their finished_reason.
	RequestSuccess = "vllm:request_success"
	// SpecDrafts counts speculative-decoding drafts.
	SpecDrafts = "vllm:spec_decode_num_drafts"
	// SpecDraftTokens counts draft tokens proposed.
	SpecDraftTokens = "vllm:spec_decode_num_draft_tokens"
	// SpecAcceptedTokens counts draft tokens accepted.
	SpecAcceptedTokens = "vllm:spec_decode_num_accepted_tokens"
	// SpecAcceptedPerPos counts draft tokens accepted by their position
	// in the draft (the position label, from 0).
	SpecAcceptedPerPos = "vllm:spec_decode_num_accepted_tokens_per_pos"

	// Running is the number of requests in the running batch.
	Running = "vllm:num_requests_running"
	// Waiting is the number of requests waiting to be scheduled.
	Waiting = "vllm:num_requests_waiting"
	// WaitingByReason splits Waiting by its reason label (capacity,
	// deferred).
	WaitingByReason = "vllm:num_requests_waiting_by_reason"
	// KVUsage is the KV-cache usage, 1 meaning full (V0:
	// vllm:gpu_cache_usage_perc).
	KVUsage = "vllm:kv_cache_usage_perc"
	// Swapped is V0's number of requests swapped to CPU.
	Swapped = "vllm:num_requests_swapped"
	// PrefixHitRateV0 is V0's prefix-cache hit rate gauge (since start).
	PrefixHitRateV0 = "vllm:gpu_prefix_cache_hit_rate"
	// CacheConfigInfo is an info metric: value 1, the cache config in its
	// labels (block_size, num_gpu_blocks, enable_prefix_caching, ...).
	CacheConfigInfo = "vllm:cache_config_info"
	// ProcessStart is the Python client's process start time: when it
	// changes between two scrapes, the server restarted.
	ProcessStart = "process_start_time_seconds"
)

// Aliases returns the older names of the family name, in the order they
// are tried when name itself is absent: V0 and early V1 spellings that
// vLLM renamed (a server in transition exposes both, with equal values).
func Aliases(name string) []string {
	switch name {
	case KVUsage:
		return []string{"vllm:gpu_cache_usage_perc"}
	case PrefixQueries:
		return []string{"vllm:gpu_prefix_cache_queries"}
	case PrefixHits:
		return []string{"vllm:gpu_prefix_cache_hits"}
	case ITL:
		return []string{"vllm:time_per_output_token_seconds"}
	}
	return nil
}

// knownCounter reports whether an untyped family (a scrape pasted without
// its # TYPE lines) is one of vLLM's counters, named without _total.
func knownCounter(name string) bool {
	switch name {
	case PromptTokens, GenerationTokens, PrefixQueries, PrefixHits, Preemptions, RequestSuccess,
		SpecDrafts, SpecDraftTokens, SpecAcceptedTokens, SpecAcceptedPerPos,
		"vllm:spec_decode_num_emitted_tokens", "vllm:gpu_prefix_cache_queries", "vllm:gpu_prefix_cache_hits",
		"vllm:prompt_tokens_by_source", "vllm:prompt_tokens_cached", "vllm:corrupted_requests",
		"vllm:external_prefix_cache_queries", "vllm:external_prefix_cache_hits":
		return true
	}
	return false
}

// counterName is a counter family's name without the _total suffix.
func counterName(name string) string { return strings.TrimSuffix(name, "_total") }
