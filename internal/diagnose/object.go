package diagnose

import (
	"bytes"
	"math"

	"github.com/gobench/gobench/internal/pyjson"
	sm "github.com/gobench/gobench/internal/servermetrics"
)

// Object is the report as a JSON object, the schema `gobench diagnose
// --format json` prints and docs/server-view.md documents: window_s, quantiles
// (metric -> {"p50","p90","p95","p99"} in the metric's unit), ratios,
// gauges, findings and verdict, with since_start, model, sources, server
// (the engine and the names read), quantile_buckets, histograms,
// engine_figures, verdict_reason and notes beside them. Unknown numbers
// are null: no NaN or infinity is ever written.
func (r *Report) Object() *pyjson.Object {
	o := pyjson.NewObject()
	if r.Seconds > 0 {
		o.Set("window_s", finite(r.Seconds))
	} else {
		o.Set("window_s", nil)
	}
	o.Set("since_start", r.SinceStart)
	o.Set("model", nilIfEmpty(r.Model))
	o.Set("sources", append([]string{}, r.Sources...))
	o.Set("server", serverObject(r.Engine))
	quantiles, buckets, hists := pyjson.NewObject(), pyjson.NewObject(), pyjson.NewObject()
	for _, row := range r.Rows {
		q, b := pyjson.NewObject(), pyjson.NewObject()
		for i, e := range row.P {
			q.Set(pctName(i), finite(e.Value))
			b.Set(pctName(i), []any{finite(e.Lower), boundJSON(e.Upper)})
		}
		quantiles.Set(row.Metric, q)
		buckets.Set(row.Metric, b)
		h := pyjson.NewObject()
		h.Set("count", finite(row.Count))
		h.Set("mean", finite(row.Mean))
		h.Set("unit", row.Unit)
		h.Set("exposed_as", row.Exposed)
		hists.Set(row.Metric, h)
	}
	o.Set("quantiles", quantiles)
	o.Set("quantile_buckets", buckets)
	o.Set("histograms", hists)
	o.Set("ratios", r.Ratios.object())
	o.Set("gauges", r.Gauges.object())
	o.Set("engine_figures", figuresObject(r.Figures))
	findings := make([]*pyjson.Object, 0, len(r.Findings))
	for _, f := range r.Findings {
		findings = append(findings, f.object())
	}
	o.Set("findings", findings)
	o.Set("verdict", string(r.Verdict))
	o.Set("verdict_reason", nilIfEmpty(r.VerdictReason))
	o.Set("verdict_unconfirmed", nilIfEmpty(r.VerdictUnconfirmed))
	o.Set("notes", append([]string{}, r.Notes...))
	return o
}

// serverObject names the engine and the metrics the state was read from
// (null where the engine publishes none).
func serverObject(e sm.Engine) *pyjson.Object {
	o := pyjson.NewObject()
	o.Set("engine", e.ID)
	o.Set("name", e.Name)
	o.Set("metrics", nilIfEmpty(e.Pattern))
	kv := e.KVUsage
	if kv == "" && e.KVUsed != "" {
		kv = e.KVUsed + " / " + e.KVCapacity
	}
	o.Set("running_metric", nilIfEmpty(e.Running))
	o.Set("waiting_metric", nilIfEmpty(e.Waiting))
	o.Set("kv_cache_usage_metric", nilIfEmpty(kv))
	return o
}

// figuresObject is the engine's own figures: metric, label, value, unit
// and what the value covers.
func figuresObject(figs []EngineFigure) []*pyjson.Object {
	out := make([]*pyjson.Object, 0, len(figs))
	for _, f := range figs {
		o := pyjson.NewObject()
		o.Set("metric", f.Metric)
		o.Set("label", f.Label)
		o.Set("value", finite(f.Value))
		o.Set("unit", nilIfEmpty(f.Unit))
		o.Set("covers", nilIfEmpty(f.Note))
		out = append(out, o)
	}
	return out
}

// JSON is Object in Python's json.dump layout, with a final newline.
func (r *Report) JSON() ([]byte, error) {
	var b bytes.Buffer
	if err := pyjson.WritePython(&b, r.Object()); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// boundJSON is a bucket's upper bound: "+Inf" for the +Inf bucket (JSON
// has no infinity), null when unknown.
func boundJSON(v float64) any {
	if math.IsInf(v, 1) {
		return "+Inf"
	}
	return finite(v)
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (rt Ratios) object() *pyjson.Object {
	o := pyjson.NewObject()
	o.Set("prefix_cache_hit_rate", finite(rt.PrefixCacheHitRate))
	o.Set("prefix_cache_hit_rate_from_v0_gauge", rt.HitRateFromGauge && rt.HitRateFrom == sm.PrefixHitRateV0)
	o.Set("prefix_cache_hit_rate_from", nilIfEmpty(rt.HitRateFrom))
	o.Set("prompt_to_generation_ratio", finite(rt.PromptToGeneration))
	shares := pyjson.NewObject()
	for _, k := range sortedKeys(rt.FinishedShare) {
		shares.Set(k, finite(rt.FinishedShare[k]))
	}
	o.Set("finished_reason_share", shares)
	o.Set("finished_requests", finite(rt.Finished))
	o.Set("preemptions", finite(rt.Preemptions))
	o.Set("preemptions_per_s", finite(rt.PreemptionsPerS))
	o.Set("preemptions_per_finished_request", finite(rt.PreemptionsPerFinished))
	o.Set("computed_prefill_share", finite(rt.ComputedPrefillShare))
	o.Set("spec_decode_acceptance_rate", finite(rt.SpecAcceptance))
	o.Set("spec_decode_acceptance_length", finite(rt.SpecAcceptanceLength))
	o.Set("prompt_tokens", finite(rt.PromptTokens))
	o.Set("generation_tokens", finite(rt.GenerationTokens))
	o.Set("prompt_tokens_per_s", finite(rt.PromptTokensPerS))
	o.Set("generation_tokens_per_s", finite(rt.GenerationTokensPerS))
	o.Set("requests_per_s", finite(rt.RequestsPerS))
	o.Set("prompt_tokens_per_processing_s", finite(rt.PromptProcessingPerS))
	o.Set("decode_s_per_token", finite(rt.DecodeSPerToken))
	return o
}

func (g Gauges) object() *pyjson.Object {
	o := pyjson.NewObject()
	o.Set("num_requests_running", finite(g.End.Running))
	o.Set("num_requests_waiting", finite(g.End.Waiting))
	by := pyjson.NewObject()
	for _, k := range sortedKeys(g.WaitingByReason) {
		by.Set(k, finite(g.WaitingByReason[k]))
	}
	o.Set("num_requests_waiting_by_reason", by)
	o.Set("kv_cache_usage_perc", finite(g.End.KVMean))
	o.Set("kv_cache_usage_perc_max_engine", finite(g.End.KVMax))
	o.Set("num_requests_swapped", finite(g.Swapped))
	o.Set("engines", g.Engines)
	peak := pyjson.NewObject()
	peak.Set("samples", g.Samples)
	peak.Set("num_requests_running", finite(g.Peak.Running))
	peak.Set("num_requests_waiting", finite(g.Peak.Waiting))
	peak.Set("kv_cache_usage_perc", finite(g.Peak.KVMean))
	peak.Set("kv_cache_usage_perc_max_engine", finite(g.Peak.KVMax))
	o.Set("peak", peak)
	cc := pyjson.NewObject()
	for _, k := range sortedKeys(g.CacheConfig) {
		cc.Set(k, g.CacheConfig[k])
	}
	o.Set("cache_config", cc)
	return o
}

func (f Finding) object() *pyjson.Object {
	o := pyjson.NewObject()
	o.Set("step", f.Step)
	o.Set("question", f.Question)
	o.Set("status", string(f.Status))
	ev := make([]*pyjson.Object, 0, len(f.Evidence))
	for _, e := range f.Evidence {
		x := pyjson.NewObject()
		x.Set("name", e.Name)
		x.Set("value", finite(e.Value))
		x.Set("threshold", finite(e.Threshold))
		x.Set("text", e.Text)
		ev = append(ev, x)
	}
	o.Set("evidence", ev)
	o.Set("conclusion", f.Conclusion)
	o.Set("advice", nilIfEmpty(f.Advice))
	o.Set("verdict", nilIfEmpty(string(f.Verdict)))
	o.Set("unconfirmed", nilIfEmpty(f.Unconfirmed))
	return o
}
