package report

import (
	"errors"
	"math"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/metrics"
)

// End reasons saved as end_reason in detailed results.
const (
	// EndCompleted: every scheduled request was sent and finished.
	EndCompleted = "completed"
	// EndInterrupted: the run was stopped (first SIGINT) and reported the
	// requests that had been sent.
	EndInterrupted = "interrupted"
)

// KV is one --metadata KEY=VALUE pair.
type KV struct {
	Key, Value string
}

// RampUp is the --ramp-up-strategy configuration; nil when unused.
type RampUp struct {
	// Strategy is "linear" or "exponential".
	Strategy string
	// StartRPS and EndRPS are --ramp-up-start-rps and --ramp-up-end-rps
	// (integers in vLLM).
	StartRPS, EndRPS int
}

// RPSChangeEvent is one element of rps_change_events: the instant the
// ramp-up reached a new integer request rate.
type RPSChangeEvent struct {
	// RPS is the integer rate reached.
	RPS int
	// Timestamp is the wall-clock time, formatted as Python's
	// datetime.now().isoformat() ("2026-01-01T01:02:03.123456").
	Timestamp string
}

// Run carries what main_async and benchmark() know besides the metrics,
// for the result file.
type Run struct {
	// Date is the run's local start time as "%Y%m%d-%H%M%S" (DateString).
	Date string
	// Backend is --backend; it is saved as both endpoint_type and backend.
	Backend string
	// Label is --label; "" is saved as null.
	Label string
	// ModelID is the model id (--model or the server's first model).
	ModelID string
	// TokenizerID is the tokenizer id; "" (--skip-tokenizer-init) is saved
	// as null.
	TokenizerID string
	// NumPrompts is the --num-prompts flag (not the number of requests).
	NumPrompts int
	// Metadata are the --metadata pairs in flag order (ParseMetadata); they
	// are saved as top-level string keys and may replace earlier keys.
	Metadata []KV
	// Burstiness is --burstiness (saved as "inf" when infinite).
	Burstiness float64
	// RampUp adds ramp_up_strategy, ramp_up_start_rps and ramp_up_end_rps.
	RampUp *RampUp
	// RPSChangeEvents is saved as rps_change_events when non-empty.
	RPSChangeEvents []RPSChangeEvent
	// SpecDecode adds the spec_decode_* keys when non-nil.
	SpecDecode *SpecDecode
	// NumWarmups is --num-warmups, saved as num_warmups
	// (test_skip_tokenizer_init.py@73a038ad).
	NumWarmups int
	// SaveDetailed keeps the per-request lists (--save-detailed) and adds
	// gobench's detailed keys below.
	SaveDetailed bool
	// ScheduledOffsets are the planned arrival offsets in seconds from the
	// start of the run, per request (gobench; detailed results only).
	ScheduledOffsets []float64
	// Version is gobench's version (gobench_version; detailed only).
	Version string
	// EndReason is EndCompleted or EndInterrupted (end_reason; detailed
	// only).
	EndReason string
}

// detailedKeys are the per-request lists removed unless --save-detailed
// (serve.py main_async, plus latencies and queue_times per
// test_skip_tokenizer_init.py@73a038ad).
var detailedKeys = [...]string{
	"input_lens", "output_lens", "start_times", "ttfts", "itls",
	"generated_texts", "errors", "latencies", "queue_times",
	"server_queue_times", "server_ttfts",
}

// DateString formats t as vLLM's datetime.now().strftime("%Y%m%d-%H%M%S"),
// used for the date key and the file name.
func DateString(t time.Time) string { return t.Format("20060102-150405") }

// ParseMetadata parses --metadata items as main_async does: each must
// contain "=", split at the first one, key and value stripped of
// surrounding whitespace; otherwise "Invalid metadata format. Please use
// KEY=VALUE format.".
func ParseMetadata(items []string) ([]KV, error) {
	kvs := make([]KV, 0, len(items))
	for _, item := range items {
		k, v, ok := strings.Cut(item, "=")
		if !ok {
			return nil, errors.New("Invalid metadata format. Please use KEY=VALUE format.")
		}
		kvs = append(kvs, KV{Key: strings.TrimSpace(k), Value: strings.TrimSpace(v)})
	}
	return kvs, nil
}

// nullIfEmpty maps "" to JSON null, for vLLM's None-valued flags.
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// ResultObject builds the result file's object with vLLM's keys in vLLM's
// order (main_async and benchmark() of serve.py@009e6d4a, with the later
// keys pinned by tests); see the package documentation for the list.
// Metadata and benchmark keys are merged as Python's {**setup, **bench}:
// a repeated key keeps its first position and takes the later value.
// Unless run.SaveDetailed, the per-request lists are removed afterwards.
func ResultObject(r *metrics.Result, run *Run) *Object {
	o := NewObject()
	o.Set("date", run.Date)
	o.Set("endpoint_type", run.Backend) // "for backward compatibility"
	o.Set("backend", run.Backend)
	o.Set("label", nullIfEmpty(run.Label))
	o.Set("model_id", run.ModelID)
	o.Set("tokenizer_id", nullIfEmpty(run.TokenizerID))
	o.Set("num_prompts", run.NumPrompts)
	for _, kv := range run.Metadata {
		o.Set(kv.Key, kv.Value)
	}
	if math.IsInf(r.RequestRate, 1) {
		o.Set("request_rate", "inf")
	} else {
		o.Set("request_rate", r.RequestRate)
	}
	o.Set("burstiness", run.Burstiness)
	if r.MaxConcurrency > 0 {
		o.Set("max_concurrency", r.MaxConcurrency)
	} else {
		o.Set("max_concurrency", nil)
	}
	if run.RampUp != nil {
		o.Set("ramp_up_strategy", run.RampUp.Strategy)
		o.Set("ramp_up_start_rps", run.RampUp.StartRPS)
		o.Set("ramp_up_end_rps", run.RampUp.EndRPS)
	}
	setBenchmarkKeys(o, r, run)
	o.Set("num_warmups", run.NumWarmups)
	if run.SaveDetailed {
		o.Set("scheduled_offsets", run.ScheduledOffsets)
		o.Set("gobench_version", run.Version)
		o.Set("end_reason", run.EndReason)
	} else {
		for _, k := range detailedKeys {
			o.Delete(k)
		}
	}
	return o
}

// setBenchmarkKeys adds the keys of benchmark()'s result dict in its order.
func setBenchmarkKeys(o *Object, r *metrics.Result, run *Run) {
	n := len(r.Outputs)
	inputLens := make([]int, n)
	ttfts := make([]float64, n)
	itls := make([][]float64, n)
	latencies := make([]float64, n)
	startTimes := make([]float64, n)
	queueTimes := make([]float64, n)
	texts := make([]string, n)
	errs := make([]string, n)
	for i := range r.Outputs {
		out := &r.Outputs[i]
		inputLens[i] = out.PromptLen
		ttfts[i] = out.TTFT
		itls[i] = out.ITL
		latencies[i] = out.Latency
		startTimes[i] = out.StartTime
		queueTimes[i] = out.ClientQueueTime
		texts[i] = out.GeneratedText
		errs[i] = out.Error
	}
	o.Set("duration", r.Duration)
	o.Set("completed", r.Completed)
	o.Set("failed", r.Failed)
	o.Set("total_input_tokens", r.TotalInput)
	o.Set("total_output_tokens", r.TotalOutput)
	o.Set("request_throughput", r.RequestThroughput)
	if r.GoodputEnabled {
		o.Set("request_goodput", r.RequestGoodput)
	} else {
		o.Set("request_goodput", nil)
	}
	o.Set("output_throughput", r.OutputThroughput)
	o.Set("total_token_throughput", r.TotalTokenThroughput)
	o.Set("input_lens", inputLens)
	o.Set("output_lens", r.ActualOutputLens)
	o.Set("ttfts", ttfts)
	o.Set("itls", itls)
	o.Set("latencies", latencies)
	o.Set("start_times", startTimes)
	o.Set("queue_times", queueTimes)
	o.Set("generated_texts", texts)
	o.Set("errors", errs)
	setServerMetrics(o, r.Outputs)
	o.Set("max_output_tokens_per_s", r.MaxOutputTokensPerS)
	o.Set("max_concurrent_requests", r.MaxConcurrentRequests)
	o.Set("rtfx", r.RTFx)
	if r.ReportCachedTokens && r.TotalCached != nil {
		o.Set("total_cached_tokens", *r.TotalCached)
	}
	if len(run.RPSChangeEvents) > 0 {
		events := make([]*Object, len(run.RPSChangeEvents))
		for i, e := range run.RPSChangeEvents {
			events[i] = NewObject()
			events[i].Set("rps", e.RPS)
			events[i].Set("timestamp", e.Timestamp)
		}
		o.Set("rps_change_events", events)
	}
	if s := run.SpecDecode; s != nil {
		o.Set("spec_decode_acceptance_rate", s.AcceptanceRate)
		o.Set("spec_decode_acceptance_length", s.AcceptanceLength)
		o.Set("spec_decode_num_drafts", s.NumDrafts)
		o.Set("spec_decode_draft_tokens", s.DraftTokens)
		o.Set("spec_decode_accepted_tokens", s.AcceptedTokens)
		o.Set("spec_decode_per_position_acceptance_rates", s.PerPositionAcceptanceRates)
	}
	for _, s := range r.Sections() {
		o.Set("mean_"+s.Key+"_ms", s.Stats.Mean)
		o.Set("median_"+s.Key+"_ms", s.Stats.Median)
		o.Set("std_"+s.Key+"_ms", s.Stats.Std)
		for _, pv := range s.Stats.Percentiles {
			o.Set("p"+metrics.PercentileLabel(pv.P)+"_"+s.Key+"_ms", pv.Value)
		}
	}
}

// setServerMetrics adds server_queue_times and server_ttfts (seconds, null
// where a response had none) when at least one response carried vLLM's
// per-request metrics object (later upstream _get_server_metrics_results,
// test_server_metrics.py@4c365ec6: absent when every value is None).
func setServerMetrics(o *Object, outputs []metrics.Output) {
	queues := make([]any, len(outputs))
	ttfts := make([]any, len(outputs))
	found := false
	for i, out := range outputs {
		if out.ServerQueueTime != nil {
			queues[i], found = *out.ServerQueueTime, true
		}
		if out.ServerTTFT != nil {
			ttfts[i], found = *out.ServerTTFT, true
		}
	}
	if found {
		o.Set("server_queue_times", queues)
		o.Set("server_ttfts", ttfts)
	}
}
