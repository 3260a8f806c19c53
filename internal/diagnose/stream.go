package diagnose

import (
	"fmt"
	"math"
	"strings"

	sm "github.com/gobench/gobench/internal/servermetrics"
)

// typical is a row's exact mean, or its p50 estimate when the page had no
// sum and count; how says which.
func typical(r *Row) (v float64, how string) {
	if r == nil {
		return math.NaN(), ""
	}
	if !math.IsNaN(r.Mean) {
		return r.Mean, "mean"
	}
	return r.P[p50].Value, "p50"
}

// prefillFinding is question 4: how TTFT splits into queue, prefill and
// the rest (the API server's own time: tokenising, chat templates, media,
// and the trip to the engine and back), and the prefix-cache hit rate.
// Means are exact and add up, so the split uses them when the page has
// sums and counts.
func prefillFinding(r *Report, t Thresholds) Finding {
	f := Finding{Step: 4, Question: q4}
	ttftRow, prefillRow := r.row(sm.TTFT), r.row(sm.Prefill)
	switch {
	case ttftRow == nil:
		return unanswered(f, "no request reached its first token in the window")
	case prefillRow == nil:
		return unanswered(f, "the server has no prefill-time histogram (vllm:request_prefill_time_seconds)")
	}
	ttft, how := typical(ttftRow)
	prefill, _ := typical(prefillRow)
	queue, _ := typical(r.row(sm.Queue))
	if math.IsNaN(queue) {
		queue = 0
	}
	front := math.Max(0, ttft-queue-prefill)
	prefillShare, frontShare := div(prefill, ttft), div(front, ttft)
	f.Evidence = append(f.Evidence,
		Evidence{Name: "prefill_share", Value: prefillShare, Threshold: t.DominantShare,
			Text: fmt.Sprintf("%s prefill %s is %s of %s TTFT %s; it dominates from %s (--dominant-share)", how, secs(prefill),
				pct(prefillShare), how, secs(ttft), pct(t.DominantShare))},
		Evidence{Name: "frontend_share", Value: frontShare, Threshold: t.DominantShare,
			Text: fmt.Sprintf("TTFT - queue - prefill = %s, %s of TTFT: the API server's own time; it dominates from %s (--dominant-share)",
				secs(front), pct(frontShare), pct(t.DominantShare))})
	if pr := r.row(sm.PromptTokensHist); pr != nil && !math.IsNaN(pr.Mean) && !math.IsNaN(prefillRow.Mean) {
		f.Evidence = append(f.Evidence, Evidence{Name: "prefill_s_per_prompt_token", Value: div(prefillRow.Mean, pr.Mean), Threshold: math.NaN(),
			Text: fmt.Sprintf("mean prefill %s for %s prompt tokens on average (%s ms per token)",
				secs(prefillRow.Mean), count(pr.Mean), num3(1000*div(prefillRow.Mean, pr.Mean)))})
	}
	off := prefixCachingOff(r.Gauges)
	f.Evidence = append(f.Evidence, hitEvidence(r.Ratios, t, off))
	slow := prefill >= t.NoiseFloor && prefillShare >= t.DominantShare
	switch {
	case slow && (off || t.ExpectedPrefixHitRate > 0 && r.Ratios.PrefixCacheHitRate < t.ExpectedPrefixHitRate):
		return prefixCache(f, r.Ratios.PrefixCacheHitRate, t, off)
	case front >= t.NoiseFloor && frontShare >= t.DominantShare:
		f.Status, f.Verdict = Located, PrefillFrontend
		f.Conclusion = "Prefill time is fine but TTFT is high: the time is in the frontend."
		f.Advice = "Look at the API server's CPU: tokenising, chat templates, media; more API servers (--api-server-count) or a faster tokenizer."
	case slow && r.Ratios.PrefixCacheHitRate >= t.ExpectedPrefixHitRate && t.ExpectedPrefixHitRate > 0:
		f.Status = RuledOut
		f.Conclusion = "Prefill dominates TTFT but the prefix cache already serves what it should: the prompts are simply long."
	case slow:
		f.Status = RuledOut
		f.Conclusion = "Prefill dominates TTFT, but nothing shows the prefix cache serving less than it should " +
			"(give --expected-prefix-hit-rate, the share the workload's prompts have in common): the prompts are taken to be simply long."
	default:
		f.Status, f.Conclusion = RuledOut, "Neither prefill nor the frontend makes TTFT long."
	}
	return f
}

// prefixCache locates the problem in the prefix cache: turned off, or
// hitting less than the workload should give.
func prefixCache(f Finding, hit float64, t Thresholds, off bool) Finding {
	f.Status, f.Verdict = Located, PrefillPrefixCache
	f.Advice = "Put what prompts share first and keep it byte-identical (system prompt, tools, documents before the question); " +
		"check that prefix caching is on (--enable-prefix-caching) and that the cache is not evicting the shared prefix."
	if off {
		f.Conclusion = "Prefill dominates TTFT and prefix caching is off: every prompt token is computed, what prompts share included."
		f.Advice = "Turn prefix caching on (--enable-prefix-caching, vLLM's default) and put what prompts share first, byte-identical " +
			"(system prompt, tools, documents before the question)."
		return f
	}
	f.Conclusion = fmt.Sprintf("Prefill dominates TTFT and the prefix cache serves %s of prompt tokens, less than the %s the workload should give: prompt structure.",
		pct(hit), pct(t.ExpectedPrefixHitRate))
	return f
}

// prefixCachingOff says the server's vllm:cache_config_info has
// enable_prefix_caching False. vLLM then looks nothing up, so its
// prefix-cache counters stay at zero and the hit rate is not known; the
// label says why.
func prefixCachingOff(g Gauges) bool {
	return strings.EqualFold(g.CacheConfig["enable_prefix_caching"], "false")
}

// hitEvidence states the prefix-cache hit rate against the expected one
// (none when --expected-prefix-hit-rate is 0: not known).
func hitEvidence(rt Ratios, t Thresholds, off bool) Evidence {
	e := Evidence{Name: "prefix_cache_hit_rate", Value: rt.PrefixCacheHitRate, Threshold: t.ExpectedPrefixHitRate}
	expected := fmt.Sprintf("expected %s (--expected-prefix-hit-rate)", pct(t.ExpectedPrefixHitRate))
	if t.ExpectedPrefixHitRate == 0 {
		e.Threshold, expected = math.NaN(), "what the workload should reach is not known (--expected-prefix-hit-rate)"
	}
	switch {
	case off:
		e.Text = "prefix caching is off (vllm:cache_config_info enable_prefix_caching=False): no prompt token can come from the cache"
	case math.IsNaN(rt.PrefixCacheHitRate):
		e.Text = "no prefix-cache counters (or no lookups): the hit rate is not known"
	case rt.HitRateFromGauge:
		e.Text = fmt.Sprintf("prefix-cache hit rate %s (V0's gauge, since start, in blocks); %s", pct(rt.PrefixCacheHitRate), expected)
	default:
		e.Text = fmt.Sprintf("prefix-cache hit rate %s of prompt tokens; %s", pct(rt.PrefixCacheHitRate), expected)
	}
	if !math.IsNaN(rt.ComputedPrefillShare) {
		e.Text += fmt.Sprintf("; %s of prompt tokens were computed", pct(rt.ComputedPrefillShare))
	}
	return e
}

// streamFinding is question 5: the spread of inter-token latency (one
// sample per streamed output).
func streamFinding(r *Report, t Thresholds) Finding {
	f := Finding{Step: 5, Question: q5}
	itl := r.row(sm.ITL)
	if itl == nil {
		return unanswered(f, "no inter-token latency in the window (vllm:inter_token_latency_seconds is empty or absent)")
	}
	lo, hi := itl.P[p50], itl.P[p99]
	tail := div(hi.Value, lo.Value)
	f.Evidence = append(f.Evidence,
		Evidence{Name: "itl_p99_over_p50", Value: tail, Threshold: t.ITLTailRatio,
			Text: fmt.Sprintf("ITL p99 %s (bucket %s) is %s x p50 %s (bucket %s); uneven from %s x (--itl-tail-ratio) with p99 from %s (--itl-high)",
				secs(hi.Value), bucketText(hi, "s"), num3(tail), secs(lo.Value), bucketText(lo, "s"), num3(t.ITLTailRatio), secs(t.ITLHigh))},
		Evidence{Name: "itl_p50", Value: lo.Value, Threshold: t.ITLHigh,
			Text: fmt.Sprintf("ITL p50 %s; high throughout from %s (--itl-high)", secs(lo.Value), secs(t.ITLHigh))})
	switch {
	case hi.Value >= t.ITLHigh && tail >= t.ITLTailRatio:
		f.Status, f.Verdict = Located, StreamPrefillInterference
		f.Conclusion = "p99 is far above p50: prefill chunks share steps with decoders."
		f.Advice = "Lower --max-num-batched-tokens, set --long-prefill-token-threshold, or disaggregate prefill and decode."
	case lo.Value >= t.ITLHigh:
		f.Status, f.Verdict = Located, StreamBatchOrCPU
		f.Conclusion = "The whole distribution is high: the batch is too large for the GPU, or the engine is CPU-bound."
		f.Advice = "Lower --max-num-seqs or --max-num-batched-tokens, or check that the engine core has a full CPU core to itself."
	default:
		f.Status, f.Conclusion = RuledOut, "Streaming is even."
	}
	return f
}
