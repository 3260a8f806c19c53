package diagnose

import (
	"math"

	sm "github.com/gobench/gobench/internal/servermetrics"
)

// Percentiles are the quantiles reported for every histogram, in percent.
func Percentiles() [4]float64 { return [4]float64{50, 90, 95, 99} }

// Index of each reported percentile in Row.P.
const (
	p50 = iota
	p90
	p95
	p99
)

// Row is one histogram of the window: its quantiles with their buckets,
// its observations and their exact mean.
type Row struct {
	// Metric is the family's current vLLM name, Exposed the name the
	// server used (an older alias on an older vLLM).
	Metric, Exposed string
	// Label is a short name for tables ("TTFT", "prompt tokens").
	Label string
	// Unit is "s" for latencies, "tokens" or "" for request shapes.
	Unit string
	// Latency says the row is a latency (else a request shape).
	Latency bool
	// P holds p50, p90, p95 and p99.
	P [4]sm.Estimate
	// Count is the number of observations in the window.
	Count float64
	// Mean is the exact mean (sum / count); NaN when the page lacked them.
	Mean float64
}

// histogramSpec names a histogram the report reads.
type histogramSpec struct {
	metric, label, unit string
	latency             bool
}

// histograms lists the histograms the report reads, in table order:
// latencies from arrival to the last token, then the request shapes.
func histograms() []histogramSpec {
	return []histogramSpec{
		{sm.TTFT, "TTFT", "s", true},
		{sm.Queue, "queue", "s", true},
		{sm.Prefill, "prefill", "s", true},
		{sm.Decode, "decode", "s", true},
		{sm.Inference, "inference", "s", true},
		{sm.E2E, "E2E", "s", true},
		{sm.ITL, "ITL", "s", true},
		{sm.TPOT, "TPOT (per request)", "s", true},
		{sm.PromptTokensHist, "prompt tokens", "tokens", false},
		{sm.GenerationTokensHist, "generation tokens", "tokens", false},
		{sm.MaxTokensParam, "max_tokens", "tokens", false},
		{sm.NParam, "n", "", false},
		{sm.MaxGenerationTokens, "max generation tokens", "tokens", false},
		{sm.PrefillKVComputed, "computed prefill tokens", "tokens", false},
		{sm.IterationTokens, "tokens per engine step", "tokens", false},
	}
}

// rows computes the quantiles of every histogram the window has
// observations of; an empty or absent histogram has no row.
func rows(d *sm.Scrape) []*Row {
	var out []*Row
	for _, spec := range histograms() {
		h, ok := d.Histogram(spec.metric)
		if !ok || h.Total() <= 0 {
			continue
		}
		r := &Row{Metric: spec.metric, Exposed: d.Exposed(spec.metric), Label: spec.label, Unit: spec.unit,
			Latency: spec.latency, Count: h.Total(), Mean: math.NaN()}
		if m, ok := h.Mean(); ok {
			r.Mean = m
		}
		for i, p := range Percentiles() {
			r.P[i] = h.Quantile(p / 100)
		}
		out = append(out, r)
	}
	return out
}

// Ratios are the window's ratios and counts; NaN is "not known" (the
// server lacks the counters, or the window is unknown for rates).
type Ratios struct {
	// PrefixCacheHitRate is hits over queries, in tokens.
	PrefixCacheHitRate float64
	// HitRateFromGauge says the hit rate is V0's gauge (since start, in
	// blocks) because the server has no prefix-cache counters.
	HitRateFromGauge bool
	// PromptToGeneration is prompt tokens over generation tokens.
	PromptToGeneration float64
	// Finished is the number of finished requests, FinishedShare their
	// shares by finished_reason.
	Finished      float64
	FinishedShare map[string]float64
	// Preemptions in the window, per second and per finished request.
	Preemptions, PreemptionsPerS, PreemptionsPerFinished float64
	// ComputedPrefillShare is the prompt tokens actually computed (after
	// cache hits) over all prompt tokens, from the per-request histograms.
	ComputedPrefillShare float64
	// SpecAcceptance is accepted draft tokens over draft tokens;
	// SpecAcceptanceLength is 1 + accepted per draft (vLLM's mean
	// acceptance length).
	SpecAcceptance, SpecAcceptanceLength float64
	// Token counts and throughputs.
	PromptTokens, GenerationTokens         float64
	PromptTokensPerS, GenerationTokensPerS float64
	RequestsPerS                           float64
}

// ratios computes the ratios of a window's increases d over seconds
// (0: unknown).
func ratios(d *sm.Scrape, seconds float64) Ratios {
	nan := math.NaN()
	r := Ratios{PrefixCacheHitRate: nan, PromptToGeneration: nan, Finished: nan, Preemptions: nan,
		PreemptionsPerS: nan, PreemptionsPerFinished: nan, ComputedPrefillShare: nan, SpecAcceptance: nan,
		SpecAcceptanceLength: nan, PromptTokens: nan, GenerationTokens: nan, PromptTokensPerS: nan,
		GenerationTokensPerS: nan, RequestsPerS: nan}
	perS := func(v float64) float64 {
		if seconds > 0 {
			return v / seconds
		}
		return nan
	}
	r.PrefixCacheHitRate, r.HitRateFromGauge = hitRate(d)
	if p, ok := d.Counter(sm.PromptTokens); ok {
		r.PromptTokens, r.PromptTokensPerS = p, perS(p)
	}
	if g, ok := d.Counter(sm.GenerationTokens); ok {
		r.GenerationTokens, r.GenerationTokensPerS = g, perS(g)
		r.PromptToGeneration = div(r.PromptTokens, g)
	}
	if by := d.CounterBy(sm.RequestSuccess, "finished_reason"); len(by) > 0 {
		r.Finished, r.FinishedShare = 0, map[string]float64{}
		for _, n := range by {
			r.Finished += n
		}
		for reason, n := range by {
			r.FinishedShare[reason] = div(n, r.Finished)
		}
		r.RequestsPerS = perS(r.Finished)
	}
	if p, ok := d.Counter(sm.Preemptions); ok {
		r.Preemptions, r.PreemptionsPerS, r.PreemptionsPerFinished = p, perS(p), div(p, r.Finished)
	}
	r.ComputedPrefillShare = computedShare(d)
	if drafts, ok := d.Counter(sm.SpecDraftTokens); ok {
		acc, _ := d.Counter(sm.SpecAcceptedTokens)
		r.SpecAcceptance = div(acc, drafts)
		if n, ok := d.Counter(sm.SpecDrafts); ok {
			r.SpecAcceptanceLength = 1 + div(acc, n)
		}
	}
	return r
}

// hitRate is prefix-cache hits over queries, or V0's hit-rate gauge when
// the server has no counters.
func hitRate(d *sm.Scrape) (float64, bool) {
	q, okQ := d.Counter(sm.PrefixQueries)
	h, okH := d.Counter(sm.PrefixHits)
	if okQ && okH {
		return div(h, q), false
	}
	if g, ok := d.Gauge(sm.PrefixHitRateV0); ok {
		return g.Mean, true
	}
	return math.NaN(), false
}

// computedShare is the sum of vllm:request_prefill_kv_computed_tokens over
// the sum of vllm:request_prompt_tokens.
func computedShare(d *sm.Scrape) float64 {
	c, okC := d.Histogram(sm.PrefillKVComputed)
	p, okP := d.Histogram(sm.PromptTokensHist)
	if !okC || !okP || !c.HasSum || !p.HasSum {
		return math.NaN()
	}
	return div(c.Sum, p.Sum)
}

// div is a/b, NaN when b is 0 or either is NaN.
func div(a, b float64) float64 {
	if b == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return a / b
}
