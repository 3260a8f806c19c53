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
	// Metric is the family's name in the engine's table (vLLM's current
	// name), Exposed the name the server used (an older alias on an
	// older vLLM).
	Metric, Exposed string
	// Role is what the histogram measures, whatever the engine.
	Role sm.Role
	// Label is a short name for tables ("TTFT", "prompt tokens").
	Label string
	// Unit is "s" for latencies, "tokens" or "" for request shapes.
	Unit string
	// Latency says the row is a latency (else a request shape).
	Latency bool
	// Differs says how the engine's interval differs from the one the
	// role names as the client measures it ("" when it is the same).
	Differs string
	// P holds p50, p90, p95 and p99.
	P [4]sm.Estimate
	// Count is the number of observations in the window.
	Count float64
	// Mean is the exact mean (sum / count); NaN when the page lacked them.
	Mean float64
}

// rows computes the quantiles of every histogram of the engine's table
// the window has observations of, in the table's order (latencies from
// arrival to the last token, then the request shapes); an empty or
// absent histogram has no row.
func rows(d *sm.Scrape, e sm.Engine) []*Row {
	var out []*Row
	for _, spec := range e.Histograms {
		h, ok := d.Histogram(spec.Name)
		if !ok || !(h.Total() > 0) {
			continue
		}
		r := &Row{Metric: spec.Name, Exposed: d.Exposed(spec.Name), Role: spec.Role, Label: spec.Label, Unit: spec.Unit,
			Latency: spec.Latency(), Differs: spec.Differs, Count: h.Total(), Mean: math.NaN()}
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
	// PrefixCacheHitRate is the share of prompt tokens served from the
	// prefix cache: hits over queries (vLLM), cached over prompt tokens
	// (SGLang, llama.cpp), or the engine's own gauge.
	PrefixCacheHitRate float64
	// HitRateFromGauge says the hit rate is the engine's gauge (vLLM V0's
	// since start, in blocks; SGLang's last report) because the server
	// has no counters for the window; HitRateFrom names what it came from.
	HitRateFromGauge bool
	HitRateFrom      string
	// PromptToGeneration is prompt tokens over generation tokens.
	PromptToGeneration float64
	// Finished is the number of finished requests, FinishedShare their
	// shares by finished_reason (empty when the engine does not split).
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
	// PromptProcessingPerS is the prompt tokens computed per second spent
	// on prompts, and DecodeSPerToken the seconds spent per generated
	// token, each request's time summed (llama.cpp's time counters).
	PromptProcessingPerS, DecodeSPerToken float64
}

// ratios computes the ratios of a window's increases d over seconds
// (0: unknown), from the engine's counters.
func ratios(d *sm.Scrape, seconds float64, e sm.Engine) Ratios {
	nan := math.NaN()
	r := Ratios{PrefixCacheHitRate: nan, PromptToGeneration: nan, Finished: nan, Preemptions: nan,
		PreemptionsPerS: nan, PreemptionsPerFinished: nan, ComputedPrefillShare: nan, SpecAcceptance: nan,
		SpecAcceptanceLength: nan, PromptTokens: nan, GenerationTokens: nan, PromptTokensPerS: nan,
		GenerationTokensPerS: nan, RequestsPerS: nan, PromptProcessingPerS: nan, DecodeSPerToken: nan}
	perS := func(v float64) float64 {
		if seconds > 0 {
			return div(v, seconds)
		}
		return nan
	}
	r.PrefixCacheHitRate, r.HitRateFromGauge, r.HitRateFrom = hitRate(d, e)
	if p, ok := promptTokens(d, e); ok {
		r.PromptTokens, r.PromptTokensPerS = p, perS(p)
	}
	if g, ok := counter(d, e.GenerationTokens); ok {
		r.GenerationTokens, r.GenerationTokensPerS = g, perS(g)
		r.PromptToGeneration = div(r.PromptTokens, g)
	}
	r.Finished, r.FinishedShare = finished(d, e)
	r.RequestsPerS = perS(r.Finished)
	if p, ok := counter(d, e.Preemptions); ok {
		r.Preemptions, r.PreemptionsPerS, r.PreemptionsPerFinished = p, perS(p), div(p, r.Finished)
	}
	r.ComputedPrefillShare = computedShare(d)
	if drafts, ok := counter(d, e.SpecDraftTokens); ok {
		acc, _ := counter(d, e.SpecAccepted)
		r.SpecAcceptance = div(acc, drafts)
		if n, ok := counter(d, e.SpecDrafts); ok {
			r.SpecAcceptanceLength = 1 + div(acc, n)
		}
	}
	r.PromptProcessingPerS = counterRatio(d, e.PromptTokens, e.PromptSeconds)
	r.DecodeSPerToken = counterRatio(d, e.DecodeSeconds, e.GenerationTokens)
	return r
}

// counter is the counter name of d; not ok when name is "" or absent.
func counter(d *sm.Scrape, name string) (float64, bool) {
	if name == "" {
		return 0, false
	}
	return d.Counter(name)
}

// counterRatio is counter a over counter b, NaN when either is missing or
// b is 0.
func counterRatio(d *sm.Scrape, a, b string) float64 {
	x, okA := counter(d, a)
	y, okB := counter(d, b)
	if !okA || !okB {
		return math.NaN()
	}
	return div(x, y)
}

// promptTokens is every prompt token, cached ones included (llama.cpp
// counts those apart).
func promptTokens(d *sm.Scrape, e sm.Engine) (float64, bool) {
	p, ok := counter(d, e.PromptTokens)
	if ok && e.PromptExcludesCached {
		c, _ := counter(d, e.CachedPromptTokens)
		p += c
	}
	return p, ok
}

// finished is the finished requests and their shares by the engine's
// label (vLLM's finished_reason); NaN without a counter.
func finished(d *sm.Scrape, e sm.Engine) (float64, map[string]float64) {
	if e.FinishedLabel == "" {
		if n, ok := counter(d, e.Finished); ok {
			return n, map[string]float64{}
		}
		return math.NaN(), nil
	}
	by := d.CounterBy(e.Finished, e.FinishedLabel)
	if len(by) == 0 {
		return math.NaN(), nil
	}
	total, shares := 0.0, map[string]float64{}
	for _, n := range by {
		total += n
	}
	for reason, n := range by {
		shares[reason] = div(n, total)
	}
	return total, shares
}

// hitRate is the share of prompt tokens the prefix cache served in the
// window (hits over queries, or cached over prompt tokens), or the
// engine's own gauge when it has no counters; from names where it came
// from.
func hitRate(d *sm.Scrape, e sm.Engine) (rate float64, fromGauge bool, from string) {
	q, okQ := counter(d, e.PrefixQueries)
	h, okH := counter(d, e.PrefixHits)
	if okQ && okH {
		return div(h, q), false, e.PrefixHits + " / " + e.PrefixQueries
	}
	c, okC := counter(d, e.CachedPromptTokens)
	p, okP := promptTokens(d, e)
	if okC && okP {
		from = e.CachedPromptTokens + " / " + e.PromptTokens
		if e.PromptExcludesCached {
			from = e.CachedPromptTokens + " / (" + e.CachedPromptTokens + " + " + e.PromptTokens + ")"
		}
		return div(c, p), false, from
	}
	if e.HitRateGauge != "" {
		if g, ok := d.Gauge(e.HitRateGauge); ok {
			return g.Mean, true, e.HitRateGauge
		}
	}
	return math.NaN(), false, ""
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

// div is a/b, NaN when b is 0, either is NaN or the quotient is not
// finite.
func div(a, b float64) float64 {
	if b == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	q := a / b
	if math.IsInf(q, 0) {
		return math.NaN()
	}
	return q
}
