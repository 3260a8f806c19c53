package report

import (
	"errors"
	"math"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultkey"
)

// End reasons saved as end_reason in gobench serve's results.
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
	// Workload is saved as gobench_workload (Workload.Object); nil leaves
	// the key out (analyze's recomputation of a file that has none).
	Workload *pyjson.Object
	// ServerView is saved as server_view (package serverview: the
	// server's /metrics over the run and its diagnosis); nil leaves it out.
	ServerView *pyjson.Object
	// SaveDetailed keeps the per-request lists (--save-detailed) and adds
	// gobench's detailed keys below.
	SaveDetailed bool
	// ScheduledOffsets are the planned arrival offsets in seconds from the
	// start of the run, per request (gobench; detailed results only).
	ScheduledOffsets []float64
	// Version is gobench's version (gobench_version, written with the
	// workload).
	Version string
	// EndReason is EndCompleted or EndInterrupted (end_reason, written
	// with the workload or SaveDetailed; "" writes none).
	EndReason string
	// MultiTurn is a --multi-turn run's per-turn figures (multi_turn, and
	// with SaveDetailed conversation_ids and turn_indices); nil otherwise.
	MultiTurn *MultiTurn
	// Steady is saved as gobench_steady_state (SteadyObject); nil leaves
	// it out.
	Steady *metrics.SteadyState
	// Client is saved as gobench_client (ClientObject), and with
	// SaveDetailed its lags as schedule_lags; nil leaves them out.
	Client *metrics.ClientLoad
	// Shard is saved as gobench_shard (a shard's identity and anchors);
	// Merge as gobench_merge (gobench merge's shards and skew); nil leaves
	// them out.
	Shard, Merge *pyjson.Object
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
// keys pinned by tests); see the package documentation for the list. The
// keys and their order are resultkey's schema (TestSchemaMatchesWriter
// holds the two together).
// Metadata and benchmark keys are merged as Python's {**setup, **bench}:
// a repeated key keeps its first position and takes the later value.
// Unless run.SaveDetailed, the per-request lists are removed afterwards.
func ResultObject(r *metrics.Result, run *Run) *pyjson.Object {
	o := pyjson.NewObject()
	o.Set(resultkey.Date, run.Date)
	o.Set(resultkey.EndpointType, run.Backend) // "for backward compatibility"
	o.Set(resultkey.Backend, run.Backend)
	o.Set(resultkey.Label, nullIfEmpty(run.Label))
	o.Set(resultkey.ModelID, run.ModelID)
	o.Set(resultkey.TokenizerID, nullIfEmpty(run.TokenizerID))
	o.Set(resultkey.NumPrompts, run.NumPrompts)
	for _, kv := range run.Metadata {
		o.Set(kv.Key, kv.Value)
	}
	if math.IsInf(r.RequestRate, 1) {
		o.Set(resultkey.RequestRate, "inf")
	} else {
		o.Set(resultkey.RequestRate, r.RequestRate)
	}
	o.Set(resultkey.Burstiness, run.Burstiness)
	if r.MaxConcurrency > 0 {
		o.Set(resultkey.MaxConcurrency, r.MaxConcurrency)
	} else {
		o.Set(resultkey.MaxConcurrency, nil)
	}
	if run.RampUp != nil {
		o.Set(resultkey.RampUpStrategy, run.RampUp.Strategy)
		o.Set(resultkey.RampUpStartRPS, run.RampUp.StartRPS)
		o.Set(resultkey.RampUpEndRPS, run.RampUp.EndRPS)
	}
	setBenchmarkKeys(o, r, run)
	if r.Pooling {
		// vLLM's pooling result: duration, completed, total_input_tokens,
		// request_throughput, total_token_throughput, input_lens, errors
		// and the e2el statistics (serve.py@11dfa3169 benchmark).
		for _, k := range resultkey.GenerationKeys() {
			o.Delete(k)
		}
	}
	o.Set(resultkey.NumWarmups, run.NumWarmups)
	if run.Workload != nil {
		o.Set(resultkey.GobenchWorkload, run.Workload)
		o.Set(resultkey.GobenchVersion, run.Version)
		o.Set(resultkey.ResentRequests, r.Resent)
		o.Set(resultkey.FailureKinds, failureKindsList(r.Failures))
	}
	if run.ServerView != nil {
		o.Set(resultkey.ServerView, run.ServerView)
	}
	if run.SaveDetailed {
		o.Set(resultkey.ScheduledOffsets, run.ScheduledOffsets)
	} else {
		for _, k := range resultkey.RequestLists() {
			o.Delete(k)
		}
	}
	if run.EndReason != "" && (run.SaveDetailed || run.Workload != nil) {
		// Whether the run was cut short matters to every reader of a
		// result, detailed or not.
		o.Set(resultkey.EndReason, run.EndReason)
	}
	setGobench(o, r, run)
	run.MultiTurn.set(o, run.SaveDetailed)
	if run.Shard != nil {
		o.Set(resultkey.GobenchShard, run.Shard)
	}
	if run.Merge != nil {
		o.Set(resultkey.GobenchMerge, run.Merge)
	}
	return o
}

// setBenchmarkKeys adds the keys of benchmark()'s result dict in its order.
func setBenchmarkKeys(o *pyjson.Object, r *metrics.Result, run *Run) {
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
	o.Set(resultkey.Duration, r.Duration)
	o.Set(resultkey.Completed, r.Completed)
	o.Set(resultkey.Failed, r.Failed)
	o.Set(resultkey.TotalInputTokens, r.TotalInput)
	o.Set(resultkey.TotalOutputTokens, r.TotalOutput)
	o.Set(resultkey.RequestThroughput, r.RequestThroughput)
	if r.GoodputEnabled {
		o.Set(resultkey.RequestGoodput, r.RequestGoodput)
	} else {
		o.Set(resultkey.RequestGoodput, nil)
	}
	o.Set(resultkey.OutputThroughput, r.OutputThroughput)
	o.Set(resultkey.TotalTokenThroughput, r.TotalTokenThroughput)
	o.Set(resultkey.InputLens, inputLens)
	o.Set(resultkey.OutputLens, r.ActualOutputLens)
	o.Set(resultkey.TTFTs, ttfts)
	o.Set(resultkey.ITLs, itls)
	o.Set(resultkey.Latencies, latencies)
	o.Set(resultkey.StartTimes, startTimes)
	o.Set(resultkey.QueueTimes, queueTimes)
	o.Set(resultkey.GeneratedTexts, texts)
	o.Set(resultkey.Errors, errs)
	setServerMetrics(o, r.Outputs)
	o.Set(resultkey.MaxOutputTokensPerS, r.MaxOutputTokensPerS)
	o.Set(resultkey.MaxConcurrentRequests, r.MaxConcurrentRequests)
	o.Set(resultkey.RTFx, r.RTFx)
	if r.ReportCachedTokens && r.TotalCached != nil {
		o.Set(resultkey.TotalCachedTokens, *r.TotalCached)
	}
	if pr := r.Probe; pr != nil {
		o.Set(resultkey.ProbeCompleted, pr.Completed)
		o.Set(resultkey.ProbeFailed, pr.Failed)
		o.Set(resultkey.ProbeMedianE2ELMS, pr.MedianE2ELMS)
		o.Set(resultkey.ProbeP99E2ELMS, pr.P99E2ELMS)
		o.Set(resultkey.ProbeMaxE2ELMS, pr.MaxE2ELMS)
	}
	if len(run.RPSChangeEvents) > 0 {
		events := make([]*pyjson.Object, len(run.RPSChangeEvents))
		for i, e := range run.RPSChangeEvents {
			events[i] = pyjson.NewObject()
			events[i].Set("rps", e.RPS)
			events[i].Set("timestamp", e.Timestamp)
		}
		o.Set(resultkey.RPSChangeEvents, events)
	}
	if s := run.SpecDecode; s != nil {
		o.Set(resultkey.SpecDecodeAcceptanceRate, s.AcceptanceRate)
		o.Set(resultkey.SpecDecodeAcceptanceLength, s.AcceptanceLength)
		o.Set(resultkey.SpecDecodeNumDrafts, s.NumDrafts)
		o.Set(resultkey.SpecDecodeDraftTokens, s.DraftTokens)
		o.Set(resultkey.SpecDecodeAcceptedTokens, s.AcceptedTokens)
		o.Set(resultkey.SpecDecodePerPositionAcceptanceRates, s.PerPositionAcceptanceRates)
	}
	for _, s := range r.Sections() {
		setStats(o, s.Key, s.Stats)
	}
}

// setStats adds a metric's statistic keys (mean, median, std, then each
// percentile) in vLLM's order.
func setStats(o *pyjson.Object, metric string, st metrics.Stats) {
	key := func(k resultkey.Stat) string { return resultkey.StatKey(metric, k) }
	o.Set(key(resultkey.Stat{Kind: resultkey.Mean}), st.Mean)
	o.Set(key(resultkey.Stat{Kind: resultkey.Median}), st.Median)
	o.Set(key(resultkey.Stat{Kind: resultkey.Std}), st.Std)
	for _, pv := range st.Percentiles {
		o.Set(key(resultkey.Stat{Kind: resultkey.Percentile, P: pv.P}), pv.Value)
	}
}

// setServerMetrics adds server_queue_times and server_ttfts (seconds, null
// where a response had none) when at least one response carried vLLM's
// per-request metrics object (later upstream _get_server_metrics_results,
// test_server_metrics.py@4c365ec6: absent when every value is None), and
// gobench's server_prompt_times and server_decode_times when at least one
// answer carried llama.cpp's timings.
func setServerMetrics(o *pyjson.Object, outputs []metrics.Output) {
	pick := func(f func(*metrics.Output) *float64) ([]any, bool) {
		list, found := make([]any, len(outputs)), false
		for i := range outputs {
			if v := f(&outputs[i]); v != nil {
				list[i], found = *v, true
			}
		}
		return list, found
	}
	queues, q := pick(func(o *metrics.Output) *float64 { return o.ServerQueueTime })
	ttfts, t := pick(func(o *metrics.Output) *float64 { return o.ServerTTFT })
	if q || t {
		o.Set(resultkey.ServerQueueTimes, queues)
		o.Set(resultkey.ServerTTFTs, ttfts)
	}
	prompts, p := pick(func(o *metrics.Output) *float64 { return o.ServerPromptTime })
	decodes, d := pick(func(o *metrics.Output) *float64 { return o.ServerDecodeTime })
	if p || d {
		o.Set(resultkey.ServerPromptTimes, prompts)
		o.Set(resultkey.ServerDecodeTimes, decodes)
	}
}

// RequestLists returns r's per-request lists (input_lens to errors, and
// the server's when it reported them) as --save-detailed saves them, for
// a reader that needs a run's per-request data although its result object
// left them out (serve's thresholds on a statistic the run did not
// select).
func RequestLists(r *metrics.Result) *pyjson.Object {
	full := ResultObject(r, &Run{SaveDetailed: true})
	o := pyjson.NewObject()
	for _, k := range resultkey.RequestLists() {
		if v, ok := full.Get(k); ok {
			o.Set(k, v)
		}
	}
	return o
}
