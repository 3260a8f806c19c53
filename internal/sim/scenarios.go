package sim

import "time"

// The scenarios: one server per verdict of the diagnosis, each the 8B
// engine model (engine8B) with the one setting that makes it sick, and the
// load that shows it. Every other signal is kept far from its threshold, so
// that the verdict does not depend on a noisy machine: the engine's
// intervals are model times, and the loads leave a wide margin.

// queuePresets are the scenarios in which time to first token is queue
// time, and why the queue is there.
func queuePresets() []Preset {
	return []Preset{
		{Name: "seq-limit", Aliases: []string{"saturated"}, Verdict: "queue/seq-limit",
			Description: "The 8B server with room for only 8 running sequences: under load requests queue, queue time " +
				"dominates TTFT, num_requests_running sits at max_num_seqs (8) while the KV cache is nearly empty and " +
				"nothing is preempted.",
			Load: random("128", "16", "150", "--request-rate", "100"),
			Apply: func(c *Config) {
				engine8B(c)
				c.Scheduler.MaxNumSeqs = 8
			}},
		{Name: "kv-thrashing", Aliases: []string{"small-cache"}, Verdict: "queue/memory-thrashing",
			Description: "The 8B server with a KV cache too small (512 blocks of 16 tokens, 8192 tokens) for its load: " +
				"short prompts are admitted by the dozen, then grow while they decode until kv_cache_usage_perc is near 1 " +
				"and the newest are preempted, recomputed and preempted again; requests wait for blocks.",
			Load: random("32", "128", "150", "--request-rate", "100"),
			Apply: func(c *Config) {
				engine8B(c)
				c.Scheduler.NumGPUBlocks = 512
				c.MaxModelLen = 4096
			}},
		{Name: "kv-full", Verdict: "queue/memory-full",
			Description: "The 8B server with a KV cache of 66 blocks of 32 tokens (2,112 tokens) and requests that fill it " +
				"without growing: 33 running requests of 33-token prompts hold every block, and their outputs (at most 29 " +
				"tokens) fit in the last block each already holds, so kv_cache_usage_perc stays near 1 and the rest wait " +
				"for capacity (num_requests_waiting_by_reason{reason=\"capacity\"}) with nothing preempted: the cache is " +
				"full of useful work.",
			Load: random("33", "24", "300", "--random-range-ratio", `{"input": 0, "output": 0.2}`),
			Apply: func(c *Config) {
				engine8B(c)
				c.Scheduler.BlockSize = 32
				c.Scheduler.NumGPUBlocks = 66
				c.MaxModelLen = 2048
			}},
		{Name: "head-of-line", Verdict: "queue/head-of-line",
			Description: "The 8B server with a step budget of 1024 tokens (--max-num-batched-tokens) and prompts of 150 " +
				"to 2,850 tokens sent at once: a long prompt takes every token of up to three steps while it is " +
				"prefilled, and every request behind it waits, though few run and the KV cache is nearly empty.",
			Load: random("1500", "16", "32", "--random-range-ratio", `{"input": 0.9, "output": 0}`),
			Apply: func(c *Config) {
				engine8B(c)
				c.Scheduler.MaxNumBatchedTokens = 1024
			}},
	}
}

// latencyPresets are the healthy server and the scenarios in which the
// time is not spent in the queue: prefill, the front end, streaming.
func latencyPresets() []Preset {
	return []Preset{
		{Name: "healthy", Verdict: "healthy",
			Description: "A server with headroom: a 15 ms step (a larger model than 8b-1gpu), no queue, a KV cache " +
				"nearly empty, no preemption, steady inter-token latency. The prompts are short (16 tokens), so that " +
				"no step lasts 100 ms even if every request arrives at once (a client that falls behind its schedule).",
			Load: random("16", "32", "60", "--request-rate", "30"),
			Apply: func(c *Config) {
				engine8B(c)
				c.Scheduler.StepBase = 15 * time.Millisecond
			}},
		{Name: "prefix-hostile", Verdict: "prefill/prefix-cache",
			Description: "The 8B server with prefix caching off (--no-enable-prefix-caching) under a workload whose " +
				"prompts share a 2,000-token prefix: every prompt is computed in full (no prefix cache queries, " +
				"request_prefill_kv_computed_tokens equal to the prompt), so TTFT is ~110 ms of prefill that a cache " +
				"would cut to ~10 ms.",
			Load: random("32", "4", "24", "--random-prefix-len", "2000", "--request-rate", "6", "--burstiness", "inf"),
			Apply: func(c *Config) {
				engine8B(c)
				c.Scheduler.EnablePrefixCaching = false
			}},
		{Name: "frontend-delay", Verdict: "prefill/frontend",
			Description: "The 8B server behind a front end that takes 1 s per request (--frontend-latency: chat " +
				"template, tokenisation, media) before the engine sees it: TTFT is over a second while queue and " +
				"prefill time are milliseconds.",
			Load: random("64", "16", "60", "--request-rate", "30"),
			Apply: func(c *Config) {
				engine8B(c)
				c.FrontendLatency = time.Second
			}},
		{Name: "prefill-interference", Verdict: "stream/prefill-interference",
			Description: "The 8B server with long prompts arriving while others decode: each 2,500-token prefill " +
				"shares a step with the decoders and stretches that step from ~7 ms to ~130 ms, so the p99 of " +
				"inter_token_latency_seconds is twenty times its median, while each prompt is prefilled long before " +
				"the next arrives (no queue).",
			Load:  random("2500", "48", "20", "--request-rate", "4", "--burstiness", "inf"),
			Apply: engine8B},
		{Name: "batch-overload", Verdict: "stream/batch-or-cpu",
			Description: "The 8B server with steps of 100 ms plus 3 ms per running sequence (a model too large for " +
				"its GPU, or an engine core short of CPU): with ~30 running, every step takes ~190 ms and none less " +
				"than 100 ms, so the whole inter-token latency distribution is high while requests wait no longer " +
				"than the step in progress (a third of TTFT on average).",
			Load: random("64", "8", "60", "--request-rate", "18", "--burstiness", "inf"),
			Apply: func(c *Config) {
				engine8B(c)
				c.Scheduler.StepBase = 100 * time.Millisecond
				c.Scheduler.StepPerSeq = 3 * time.Millisecond
			}},
	}
}
