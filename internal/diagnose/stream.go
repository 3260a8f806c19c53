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
// sums and counts. An engine without TTFT and prefill histograms is asked
// what it can answer (prefillOtherwise).
func prefillFinding(r *Report, t Thresholds) Finding {
	f := Finding{Step: 4, Question: q4}
	ttftRow, prefillRow := r.rowOf(sm.RoleTTFT), r.rowOf(sm.RolePrefill)
	_, hasTTFT := r.Engine.Hist(sm.RoleTTFT)
	_, hasPrefill := r.Engine.Hist(sm.RolePrefill)
	switch {
	case !hasTTFT || !hasPrefill:
		return prefillOtherwise(f, r, t)
	case ttftRow == nil:
		return unanswered(f, "no request reached its first token in the window")
	case prefillRow == nil:
		return unanswered(f, "the server has no prefill-time histogram ("+r.histName(sm.RolePrefill)+")")
	}
	ttft, how := typical(ttftRow)
	prefill, _ := typical(prefillRow)
	queue, _ := typical(r.rowOf(sm.RoleQueue))
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
	if pr := r.rowOf(sm.RolePromptLen); pr != nil && !math.IsNaN(pr.Mean) && !math.IsNaN(prefillRow.Mean) {
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

// prefillOtherwise is question 4 for an engine without both a TTFT and a
// prefill histogram. With a validation-time histogram and the request's
// latency (TGI), the validation's share of the request bounds the
// frontend's share of TTFT from below, which can locate the frontend;
// otherwise the evidence the engine has (its prompt processing rate, its
// hit rate) is given, and the question stays open.
func prefillOtherwise(f Finding, r *Report, t Thresholds) Finding {
	e := r.Engine
	if v := r.rowOf(sm.RoleValidation); v != nil && !math.IsNaN(v.Mean) {
		if e2e := r.rowOf(sm.RoleE2E); e2e != nil && !math.IsNaN(e2e.Mean) {
			share := div(v.Mean, e2e.Mean)
			text := fmt.Sprintf("mean validation %s (%s: tokenising and checking the request) is %s of the mean request %s (%s); "+
				"the least share of TTFT it can be", secs(v.Mean), v.Metric, pct(share), secs(e2e.Mean), e2e.Metric)
			located := dominant(&text, v.Mean, share, t)
			f.Evidence = append(f.Evidence, Evidence{Name: "frontend_share_of_request_mean", Value: share, Threshold: t.DominantShare, Text: text})
			if located {
				f.Status, f.Verdict = Located, PrefillFrontend
				f.Conclusion = "Validation (tokenising) takes most of the request, so of TTFT too: the time is in the frontend."
				f.Advice = "Look at the router's CPU: tokenising and validation; a faster tokenizer or more router replicas."
				return f
			}
		}
	}
	if v := r.Ratios.PromptProcessingPerS; !math.IsNaN(v) {
		f.Evidence = append(f.Evidence, Evidence{Name: "prompt_tokens_per_processing_s", Value: v, Threshold: math.NaN(),
			Text: fmt.Sprintf("prompts were processed at %s tokens per second of prompt processing (%s / %s)", rate(v), e.PromptTokens, e.PromptSeconds)})
	}
	if !math.IsNaN(r.Ratios.PrefixCacheHitRate) {
		f.Evidence = append(f.Evidence, hitEvidence(r.Ratios, t, false))
	}
	_, hasTTFT := e.Hist(sm.RoleTTFT)
	missing := "prefill-time histogram"
	if !hasTTFT {
		missing = "TTFT or prefill-time histogram"
	}
	return unanswered(f, fmt.Sprintf("%s publishes no %s to split TTFT with", e.Name, missing))
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
	case rt.HitRateFromGauge && rt.HitRateFrom == sm.PrefixHitRateV0:
		e.Text = fmt.Sprintf("prefix-cache hit rate %s (V0's gauge, since start, in blocks); %s", pct(rt.PrefixCacheHitRate), expected)
	case rt.HitRateFromGauge:
		e.Text = fmt.Sprintf("prefix-cache hit rate %s (%s, the engine's last report); %s", pct(rt.PrefixCacheHitRate), rt.HitRateFrom, expected)
	case rt.HitRateFrom != "" && !strings.HasPrefix(rt.HitRateFrom, "vllm:"):
		e.Text = fmt.Sprintf("prefix-cache hit rate %s of prompt tokens (%s); %s", pct(rt.PrefixCacheHitRate), rt.HitRateFrom, expected)
	default:
		e.Text = fmt.Sprintf("prefix-cache hit rate %s of prompt tokens; %s", pct(rt.PrefixCacheHitRate), expected)
	}
	if !math.IsNaN(rt.ComputedPrefillShare) {
		e.Text += fmt.Sprintf("; %s of prompt tokens were computed", pct(rt.ComputedPrefillShare))
	}
	return e
}

// streamFinding is question 5: the spread of inter-token latency (one
// sample per streamed output). An engine without an inter-token
// histogram is asked only whether decoding is slow throughout
// (decodeThroughout).
func streamFinding(r *Report, t Thresholds) Finding {
	f := Finding{Step: 5, Question: q5}
	itl := r.rowOf(sm.RoleITL)
	if itl == nil {
		if _, ok := r.Engine.Hist(sm.RoleITL); !ok {
			return decodeThroughout(f, r, t)
		}
		return unanswered(f, "no inter-token latency in the window ("+r.histName(sm.RoleITL)+" is empty or absent)")
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
		// The tail is seen; its cause is the likeliest one, not an observed one.
		f.Unconfirmed = "inferred from the ITL tail; prefill steps are not observed"
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

// decodeThroughout is question 5 for an engine without an inter-token
// histogram: its time per generated token (llama.cpp's time counters, or
// the median of a per-request time-per-token histogram) can show decoding
// slow throughout; how uneven a stream is needs the distribution of its
// gaps, which such an engine does not publish.
func decodeThroughout(f Finding, r *Report, t Thresholds) Finding {
	e := r.Engine
	v, what := r.Ratios.DecodeSPerToken, fmt.Sprintf("%s / %s, each request's time summed", e.DecodeSeconds, e.GenerationTokens)
	if tp := r.rowOf(sm.RoleTPOT); math.IsNaN(v) && tp != nil {
		v, what = tp.P[p50].Value, "the p50 of "+tp.Metric
	}
	if math.IsNaN(v) {
		return unanswered(f, e.Name+" publishes no inter-token latency")
	}
	f.Evidence = append(f.Evidence, Evidence{Name: "decode_s_per_token", Value: v, Threshold: t.ITLHigh,
		Text: fmt.Sprintf("%s per generated token (%s); high throughout from %s (--itl-high)", secs(v), what, secs(t.ITLHigh))})
	if v >= t.ITLHigh {
		f.Status, f.Verdict = Located, StreamBatchOrCPU
		f.Conclusion = "Decoding is slow throughout: the batch is too large for the hardware, or the engine is CPU-bound."
		f.Advice = "Lower " + e.LimitFlag + ", or check that the server has the CPU cores (or GPU) it needs to itself."
		return f
	}
	return unanswered(f, fmt.Sprintf("%s publishes no inter-token latency distribution, so an uneven stream cannot be seen "+
		"(decoding is not slow throughout: %s per token)", e.Name, secs(v)))
}
