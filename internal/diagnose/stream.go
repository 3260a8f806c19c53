package diagnose

import (
	"fmt"
	"math"

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
	hit := r.Ratios.PrefixCacheHitRate
	f.Evidence = append(f.Evidence, hitEvidence(r.Ratios, t))
	switch {
	case prefill >= t.NoiseFloor && prefillShare >= t.DominantShare && t.ExpectedPrefixHitRate > 0 && hit < t.ExpectedPrefixHitRate:
		f.Status, f.Verdict = Located, PrefillPrefixCache
		f.Conclusion = fmt.Sprintf("Prefill dominates TTFT and the prefix cache serves %s of prompt tokens, less than the %s the workload should give: prompt structure.",
			pct(hit), pct(t.ExpectedPrefixHitRate))
		f.Advice = "Put what prompts share first and keep it byte-identical (system prompt, tools, documents before the question); " +
			"check that prefix caching is on (--enable-prefix-caching) and that the cache is not evicting the shared prefix."
	case front >= t.NoiseFloor && frontShare >= t.DominantShare:
		f.Status, f.Verdict = Located, PrefillFrontend
		f.Conclusion = "Prefill time is fine but TTFT is high: the time is in the frontend."
		f.Advice = "Look at the API server's CPU: tokenising, chat templates, media; more API servers (--api-server-count) or a faster tokenizer."
	default:
		f.Status = RuledOut
		f.Conclusion = "Neither prefill nor the frontend makes TTFT long."
		if prefill >= t.NoiseFloor && prefillShare >= t.DominantShare {
			f.Conclusion = "Prefill dominates TTFT but the prefix cache already serves what it should: the prompts are simply long."
		}
	}
	return f
}

// hitEvidence states the prefix-cache hit rate against the expected one.
func hitEvidence(rt Ratios, t Thresholds) Evidence {
	e := Evidence{Name: "prefix_cache_hit_rate", Value: rt.PrefixCacheHitRate, Threshold: t.ExpectedPrefixHitRate}
	switch {
	case math.IsNaN(rt.PrefixCacheHitRate):
		e.Text = "no prefix-cache counters (or no lookups): the hit rate is not known"
	case rt.HitRateFromGauge:
		e.Text = fmt.Sprintf("prefix-cache hit rate %s (V0's gauge, since start, in blocks); expected %s (--expected-prefix-hit-rate)",
			pct(rt.PrefixCacheHitRate), pct(t.ExpectedPrefixHitRate))
	default:
		e.Text = fmt.Sprintf("prefix-cache hit rate %s of prompt tokens; expected %s (--expected-prefix-hit-rate)",
			pct(rt.PrefixCacheHitRate), pct(t.ExpectedPrefixHitRate))
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
