package resultkey

import (
	"slices"
	"strings"
)

// Keys of the result file, in file order (internal/report/doc.go describes
// each). The statistic keys are built by StatKey; the metadata keys are the
// user's.
const (
	// Date is the run's local date and time, "YYYYMMDD-HHMMSS".
	Date = "date"
	// EndpointType repeats Backend (vLLM keeps it for backward
	// compatibility).
	EndpointType = "endpoint_type"
	// Backend is --backend.
	Backend = "backend"
	// Label is --label, or null.
	Label = "label"
	// ModelID is the model id.
	ModelID = "model_id"
	// TokenizerID is the tokenizer id, null with --skip-tokenizer-init.
	TokenizerID = "tokenizer_id"
	// NumPrompts is the --num-prompts flag.
	NumPrompts = "num_prompts"
	// RequestRate is --request-rate, or "inf".
	RequestRate = "request_rate"
	// Burstiness is --burstiness.
	Burstiness = "burstiness"
	// MaxConcurrency is --max-concurrency, or null.
	MaxConcurrency = "max_concurrency"
	// RampUpStrategy is --ramp-up-strategy (ramp-up only).
	RampUpStrategy = "ramp_up_strategy"
	// RampUpStartRPS is --ramp-up-start-rps (ramp-up only).
	RampUpStartRPS = "ramp_up_start_rps"
	// RampUpEndRPS is --ramp-up-end-rps (ramp-up only).
	RampUpEndRPS = "ramp_up_end_rps"
	// Duration is the benchmark duration in seconds.
	Duration = "duration"
	// Completed counts the successful requests.
	Completed = "completed"
	// Failed counts the failed requests.
	Failed = "failed"
	// TotalInputTokens sums the prompt lengths of successful requests.
	TotalInputTokens = "total_input_tokens"
	// TotalOutputTokens sums the output lengths.
	TotalOutputTokens = "total_output_tokens"
	// RequestThroughput is completed requests per second.
	RequestThroughput = "request_throughput"
	// RequestGoodput is good requests per second, null without --goodput.
	RequestGoodput = "request_goodput"
	// OutputThroughput is output tokens per second.
	OutputThroughput = "output_throughput"
	// TotalTokenThroughput is input plus output tokens per second.
	TotalTokenThroughput = "total_token_throughput"
	// InputLens lists the prompt lengths (per request, detailed only).
	InputLens = "input_lens"
	// OutputLens lists the output lengths (per request, detailed only).
	OutputLens = "output_lens"
	// TTFTs lists the times to first token (per request, detailed only).
	TTFTs = "ttfts"
	// ITLs lists the inter-token gaps (per request, detailed only).
	ITLs = "itls"
	// Latencies lists the end-to-end latencies (per request, detailed
	// only).
	Latencies = "latencies"
	// StartTimes lists the send times (per request, detailed only).
	StartTimes = "start_times"
	// QueueTimes lists the client queue times (per request, detailed
	// only).
	QueueTimes = "queue_times"
	// GeneratedTexts lists the output texts (per request, detailed only).
	GeneratedTexts = "generated_texts"
	// Errors lists the error texts (per request, detailed only).
	Errors = "errors"
	// ServerQueueTimes lists the server's queue times (per request,
	// detailed only, when the server reports them).
	ServerQueueTimes = "server_queue_times"
	// ServerPromptTimes lists the server's own prompt time of each
	// request (seconds, null where an answer had none; gobench, detailed
	// only): llama.cpp's timings.prompt_ms.
	ServerPromptTimes = "server_prompt_times"
	// ServerDecodeTimes lists the server's own generation time of each
	// request, as ServerPromptTimes: llama.cpp's timings.predicted_ms.
	ServerDecodeTimes = "server_decode_times"
	// ResentRequests counts the requests sent a second time, on a new
	// connection, after the server closed a reused one before answering
	// (gobench, in every result of gobench serve).
	ResentRequests = "resent_requests"
	// FailureKinds groups the failed requests by kind (gobench, in every
	// result of gobench serve): a list of objects with the kind, its
	// count and one error text, the most frequent first.
	FailureKinds = "failure_kinds"
	// ServerTTFTs lists the server's times to first token (per request,
	// detailed only, when the server reports them).
	ServerTTFTs = "server_ttfts"
	// MaxOutputTokensPerS is the peak of token events in a one-second bin.
	MaxOutputTokensPerS = "max_output_tokens_per_s"
	// MaxConcurrentRequests is the peak of overlapping requests.
	MaxConcurrentRequests = "max_concurrent_requests"
	// RTFx is audio seconds per benchmark second.
	RTFx = "rtfx"
	// TotalCachedTokens sums the cached prompt tokens the server reported
	// (--report-cached-tokens).
	TotalCachedTokens = "total_cached_tokens"
	// ProbeCompleted and ProbeFailed count the probe requests of
	// --probe-request-rate (present when one succeeded).
	ProbeCompleted = "probe_completed"
	ProbeFailed    = "probe_failed"
	// ProbeMedianE2ELMS, ProbeP99E2ELMS and ProbeMaxE2ELMS are the
	// successful probes' latencies.
	ProbeMedianE2ELMS = "probe_median_e2el_ms"
	ProbeP99E2ELMS    = "probe_p99_e2el_ms"
	ProbeMaxE2ELMS    = "probe_max_e2el_ms"
	// RPSChangeEvents lists the ramp-up's rate changes (ramp-up only).
	RPSChangeEvents = "rps_change_events"
	// SpecDecodeAcceptanceRate is the draft acceptance rate in percent.
	SpecDecodeAcceptanceRate = "spec_decode_acceptance_rate"
	// SpecDecodeAcceptanceLength is 1 + accepted tokens per draft.
	SpecDecodeAcceptanceLength = "spec_decode_acceptance_length"
	// SpecDecodeNumDrafts counts the drafts.
	SpecDecodeNumDrafts = "spec_decode_num_drafts"
	// SpecDecodeDraftTokens counts the draft tokens.
	SpecDecodeDraftTokens = "spec_decode_draft_tokens"
	// SpecDecodeAcceptedTokens counts the accepted draft tokens.
	SpecDecodeAcceptedTokens = "spec_decode_accepted_tokens"
	// SpecDecodePerPositionAcceptanceRates lists the acceptance rate per
	// draft position (fractions).
	SpecDecodePerPositionAcceptanceRates = "spec_decode_per_position_acceptance_rates"
	// NumWarmups is --num-warmups.
	NumWarmups = "num_warmups"
	// GobenchWorkload is gobench's record of the workload (an object of
	// the Workload* keys), in every result of gobench serve: vLLM's result
	// keys do not say which dataset, lengths, seed, SLOs or sampling
	// parameters made the load.
	GobenchWorkload = "gobench_workload"
	// ScheduledOffsets lists the planned arrival offsets (gobench,
	// detailed only).
	ScheduledOffsets = "scheduled_offsets"
	// GobenchVersion is gobench's version (`gobench version`), next to
	// the workload: which binary measured matters when two runs differ.
	GobenchVersion = "gobench_version"
	// ServerView is the server's own account of the run from its
	// /metrics, beside the client's figures, with the diagnosis and its
	// verdict (package serverview); present when the server has /metrics.
	ServerView = "server_view"
	// GobenchSteadyState is the run's figures over its steady-state
	// window, ramp-up and drain left out (gobench only; metrics.Steady):
	// the window, its requests, throughputs and latency statistics.
	GobenchSteadyState = "gobench_steady_state"
	// GobenchClient is the client's own load over the run (gobench
	// only; metrics.ClientLoad): schedule lag p50, p99 and max, the
	// process's CPU share, and whether it may have been the bottleneck.
	GobenchClient = "gobench_client"
	// ScheduleLags lists each request's schedule lag in seconds (gobench,
	// detailed only), aligned with the per-request lists.
	ScheduleLags = "schedule_lags"
	// EndReason is "completed" or "interrupted" (detailed only).
	EndReason = "end_reason"
	// MultiTurn is a --multi-turn run's object (gobench only): the
	// conversations and a row of figures per turn index (per_turn).
	MultiTurn = "multi_turn"
	// ConversationIDs lists each request's conversation (--multi-turn,
	// detailed only), aligned with the per-request lists.
	ConversationIDs = "conversation_ids"
	// TurnIndices lists each request's turn index in its conversation
	// (--multi-turn, detailed only), aligned with the per-request lists.
	TurnIndices = "turn_indices"
)

// FailedRatio is a derived key: failed / (completed + failed), which the
// readers compute (resultfile.Run.Number) so that thresholds and
// comparisons can name it like a saved key. It is never written.
const FailedRatio = "failed_ratio"

// when says under which configuration a key is present.
type when int

const (
	// always: in every result.
	always when = iota
	// withRampUp: with --ramp-up-strategy.
	withRampUp
	// perRequest: vLLM's per-request lists, written by benchmark() and
	// removed by main_async unless --save-detailed.
	perRequest
	// perRequestServer: per-request lists present with --save-detailed
	// when the server reported per-request metrics.
	perRequestServer
	// cachedTokens: with --report-cached-tokens when the server reported
	// cached tokens.
	cachedTokens
	// withProbes: with --probe-request-rate, when a probe succeeded
	// (vllm/benchmarks/serve.py@009e6d4a benchmark, probe_stats).
	withProbes
	// server: when the server exposes the figures (spec-decode counters).
	server
	// statistics: the place of the statistic keys.
	statistics
	// detailedOnly: gobench's keys added with --save-detailed.
	detailedOnly
	// endReason: in gobench serve's results (Selection.Workload), and
	// in every detailed result.
	endReason
	// workload: gobench's record of the workload, in the results of
	// gobench serve (Selection.Workload).
	workload
	// multiTurn: in the results of --multi-turn runs (Selection.MultiTurn).
	multiTurn
	// multiTurnDetailed: in the detailed results of --multi-turn runs.
	multiTurnDetailed
	// steadyState: in the results of gobench serve's generation runs
	// (Selection.SteadyState).
	steadyState
	// clientLoad: in the results of gobench serve's runs on a schedule
	// (Selection.ClientLoad).
	clientLoad
	// clientLoadDetailed: clientLoad's per-request list, with
	// --save-detailed.
	clientLoadDetailed
	// sharded: in the results of a shard (Selection.Shard).
	sharded
	// merged: in the results of gobench merge (Selection.Merged).
	merged
)

// row is one key of the schema.
type row struct {
	key  string
	when when
	// setting: the key describes how the run was set up rather than what
	// it measured (compare lists settings side by side).
	setting bool
	// better is the direction of improvement of a measurement.
	better Better
	// zeroMeaningful: a zero is itself a finding (no request failed), so
	// a comparison shows the key even when every run has 0.
	zeroMeaningful bool
	// generation: the key is in the results of generation backends only;
	// vLLM's pooling result (serve.py@11dfa3169 benchmark, the
	// EmbedBenchmarkMetrics branch) has none of these.
	generation bool
}

// schema lists the result file's keys in file order (serve.py@009e6d4a
// main_async and benchmark(), with the later keys pinned by vLLM's tests;
// gobench's detailed keys last). It is read-only.
var schema = [...]row{
	{key: Date, setting: true},
	{key: EndpointType, setting: true},
	{key: Backend, setting: true},
	{key: Label, setting: true},
	{key: ModelID, setting: true},
	{key: TokenizerID, setting: true},
	{key: NumPrompts, setting: true},
	{key: RequestRate, setting: true},
	{key: Burstiness, setting: true},
	{key: MaxConcurrency, setting: true},
	{key: RampUpStrategy, when: withRampUp, setting: true},
	{key: RampUpStartRPS, when: withRampUp, setting: true},
	{key: RampUpEndRPS, when: withRampUp, setting: true},
	{key: Duration, better: Lower},
	{key: Completed, better: Higher, zeroMeaningful: true},
	{key: Failed, better: Lower, zeroMeaningful: true, generation: true},
	{key: TotalInputTokens},
	{key: TotalOutputTokens, generation: true},
	{key: RequestThroughput, better: Higher},
	{key: RequestGoodput, better: Higher, generation: true},
	{key: OutputThroughput, better: Higher, generation: true},
	{key: TotalTokenThroughput, better: Higher},
	{key: InputLens, when: perRequest},
	{key: OutputLens, when: perRequest, generation: true},
	{key: TTFTs, when: perRequest, generation: true},
	{key: ITLs, when: perRequest, generation: true},
	{key: Latencies, when: perRequest, generation: true},
	{key: StartTimes, when: perRequest, generation: true},
	{key: QueueTimes, when: perRequest, generation: true},
	{key: GeneratedTexts, when: perRequest, generation: true},
	{key: Errors, when: perRequest},
	{key: ServerQueueTimes, when: perRequestServer, generation: true},
	{key: ServerTTFTs, when: perRequestServer, generation: true},
	{key: ServerPromptTimes, when: perRequestServer, generation: true},
	{key: ServerDecodeTimes, when: perRequestServer, generation: true},
	{key: MaxOutputTokensPerS, better: Higher, generation: true},
	{key: MaxConcurrentRequests, generation: true},
	{key: RTFx, better: Higher, generation: true},
	{key: TotalCachedTokens, when: cachedTokens, generation: true},
	{key: ProbeCompleted, when: withProbes},
	{key: ProbeFailed, when: withProbes, better: Lower},
	{key: ProbeMedianE2ELMS, when: withProbes},
	{key: ProbeP99E2ELMS, when: withProbes},
	{key: ProbeMaxE2ELMS, when: withProbes},
	{key: RPSChangeEvents, when: withRampUp},
	{key: SpecDecodeAcceptanceRate, when: server, better: Higher},
	{key: SpecDecodeAcceptanceLength, when: server, better: Higher},
	{key: SpecDecodeNumDrafts, when: server},
	{key: SpecDecodeDraftTokens, when: server},
	{key: SpecDecodeAcceptedTokens, when: server},
	{key: SpecDecodePerPositionAcceptanceRates, when: server},
	{when: statistics},
	{key: NumWarmups, setting: true},
	{key: GobenchWorkload, when: workload, setting: true},
	{key: GobenchVersion, when: workload, setting: true},
	{key: ResentRequests, when: workload, better: Lower, zeroMeaningful: true},
	{key: FailureKinds, when: workload},
	{key: ServerView, when: server},
	{key: ScheduledOffsets, when: detailedOnly},
	{key: EndReason, when: endReason, setting: true},
	{key: GobenchSteadyState, when: steadyState, generation: true},
	{key: GobenchClient, when: clientLoad},
	{key: ScheduleLags, when: clientLoadDetailed},
	{key: MultiTurn, when: multiTurn},
	{key: ConversationIDs, when: multiTurnDetailed},
	{key: TurnIndices, when: multiTurnDetailed},
	{key: GobenchShard, when: sharded},
	{key: GobenchMerge, when: merged},
}

// otherKeys are keys the schema does not hold whose direction is known:
// the derived key, and keys of other writers' result files.
var otherKeys = [...]row{
	{key: FailedRatio, better: Lower, zeroMeaningful: true},
	{key: "input_throughput", better: Higher},
}

// lookup returns the row of key.
func lookup(key string) (row, bool) {
	for _, rows := range [...][]row{schema[:], otherKeys[:]} {
		for _, r := range rows {
			if r.key == key && r.when != statistics {
				return r, true
			}
		}
	}
	return row{}, false
}

// IsSetting reports whether key describes how a run was set up (flags,
// model, date, gobench's version) rather than what it measured.
func IsSetting(key string) bool {
	r, ok := lookup(key)
	return ok && r.setting
}

// ZeroIsMeaningful reports whether a zero in key is itself a finding
// (completed, failed, failed_ratio: the health of the run), unlike the
// zero of a figure that does not apply to the run (rtfx without audio),
// which a comparison may leave out.
func ZeroIsMeaningful(key string) bool {
	r, _ := lookup(key)
	return r.zeroMeaningful
}

// GenerationKeys returns the keys that only the results of generation
// backends have, in file order: a pooling result is a generation result
// without them (serve.py@11dfa3169 benchmark).
func GenerationKeys() []string {
	var keys []string
	for _, r := range schema {
		if r.generation {
			keys = append(keys, r.key)
		}
	}
	return keys
}

// RequestLists returns the per-request list keys that vLLM writes and
// keeps only with --save-detailed, the server's lists included, in file
// order.
func RequestLists() []string {
	var keys []string
	for _, r := range schema {
		if r.when == perRequest || r.when == perRequestServer {
			keys = append(keys, r.key)
		}
	}
	return keys
}

// Better says which direction of a key's value is an improvement.
type Better int

// Directions of improvement.
const (
	// Neither: the value describes the workload or is a count whose
	// direction depends on the goal (tokens sent, peak concurrency).
	Neither Better = iota
	// Lower is better: latencies, failures, duration.
	Lower
	// Higher is better: throughputs, goodput, completed requests.
	Higher
)

// String returns "lower", "higher" or "".
func (b Better) String() string { return [...]string{"", "lower", "higher"}[b] }

// Direction returns which direction of key's value is better. Every key
// ending in _ms is a latency in milliseconds, lower being better.
func Direction(key string) Better {
	if strings.HasSuffix(key, "_ms") {
		return Lower
	}
	// A figure inside one of gobench's objects goes the way the result key
	// of its name does ("gobench_steady_state.request_throughput").
	if head, inner, dotted := strings.Cut(key, "."); dotted && slices.Contains(objectKeys, head) {
		return Direction(inner)
	}
	r, _ := lookup(key)
	return r.better
}

// Figures returns the dotted paths of the figures a comparison shows from
// one of gobench's objects: those of its keys (given in the file's order)
// whose direction of improvement is known, so that window bounds and
// counts stay out. It returns nil for any other key.
func Figures(key string, inner []string) []string {
	if key != GobenchSteadyState && key != GobenchClient {
		return nil
	}
	var out []string
	for _, k := range inner {
		// The warning's threshold is a setting, not a figure.
		if Direction(k) != Neither && k != ClientLagWarnMS {
			out = append(out, key+"."+k)
		}
	}
	return out
}

// WellFormed reports whether key is spelled as result keys are: a letter
// or '_' first, then letters, digits, '_' and the other characters of
// percentile labels ('.', '-', '+': "p99.9_ttft_ms", "p1e-05_ttft_ms").
// Every key of the schema and every statistic key is well formed; metadata
// keys need not be.
func WellFormed(key string) bool {
	if key == "" {
		return false
	}
	for i, r := range key {
		ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' ||
			i > 0 && (r >= '0' && r <= '9' || r == '.' || r == '-' || r == '+')
		if !ok {
			return false
		}
	}
	return true
}

// Selection is what decides a result's keys: the parts of a run's
// configuration the schema depends on.
type Selection struct {
	// PercentileMetrics are the --percentile-metrics names, matched
	// exactly (unknown names select nothing, as in vLLM).
	PercentileMetrics []string
	// Percentiles are the --metric-percentiles values, in order.
	Percentiles []float64
	// Tokenizer: the run counts tokens (no --skip-tokenizer-init), so the
	// ttft, tpot and itl sections can be reported.
	Tokenizer bool
	// ClientQueue: the client queue is measured (--max-concurrency set),
	// which adds the client queue sections.
	ClientQueue bool
	// RampUp is --ramp-up-strategy.
	RampUp bool
	// Detailed is --save-detailed.
	Detailed bool
	// ReportCachedTokens is --report-cached-tokens.
	ReportCachedTokens bool
	// Workload: the result records its workload (GobenchWorkload), as
	// every result of gobench serve does; analyze's recomputation of a
	// file without it, and vLLM's files, have none.
	Workload bool
	// MultiTurn: a --multi-turn run (MultiTurn; with Detailed also
	// ConversationIDs and TurnIndices).
	MultiTurn bool
	// Pooling: the backend is a pooling one (embeddings, pooling, rerank):
	// vLLM's pooling result has no generation key and only the e2el
	// section.
	Pooling bool
	// Probe is --probe-request-rate > 0: the probe keys may be present.
	Probe bool
	// SteadyState: the result holds gobench's steady-state figures
	// (GobenchSteadyState), as gobench serve's generation runs do.
	SteadyState bool
	// ClientLoad: the result holds the client's load (GobenchClient; with
	// Detailed also ScheduleLags), as gobench serve's runs on a schedule
	// (not --multi-turn) do.
	ClientLoad bool
	// Shard: a shard's result (serve --num-shards or --start-at:
	// GobenchShard). Merged: gobench merge's result (GobenchMerge).
	Shard, Merged bool
}

// Sections returns the latency sections of a result of s, in order (vLLM's
// serve.py@009e6d4a benchmark): ttft, tpot and itl (only with a
// tokenizer), e2el, each when PercentileMetrics names it; then
// client_queue_time and e2el_including_client_queue whenever the client
// queue is measured, selected or not and at any rate, as the pinned
// upstream test test_serve_queue_time.py@0e913f02 asserts (it selects only
// "ttft,e2el", sends at rate inf with max_concurrency 1, and expects
// mean/p99_client_queue_time_ms and mean/p99_e2el_including_client_queue_ms).
func (s Selection) Sections() []Metric {
	var out []Metric
	for _, m := range metricTable {
		present := slices.Contains(s.PercentileMetrics, m.Key) && (s.Tokenizer || !m.NeedsTokenizer)
		if m.ClientQueue {
			present = s.ClientQueue
		}
		if s.Pooling {
			// serve.py@11dfa3169 benchmark: process_one_metric("e2el") only.
			present = m.Key == MetricE2EL && slices.Contains(s.PercentileMetrics, m.Key)
		}
		if present {
			out = append(out, m)
		}
	}
	return out
}

// StatKeys returns the statistic keys of a result of s, in file order.
func (s Selection) StatKeys() []string {
	var keys []string
	for _, m := range s.Sections() {
		for _, st := range SectionStats(s.Percentiles) {
			keys = append(keys, StatKey(m.Key, st))
		}
	}
	return keys
}

// Key is one key of a result.
type Key struct {
	// Name is the key.
	Name string
	// Server: the key is present only when the server reports what it
	// holds (spec-decode counters, cached tokens, per-request server
	// metrics).
	Server bool
}

// Keys returns the keys a result of s has, in file order, metadata keys
// left out; those marked Server may be missing.
func (s Selection) Keys() []Key {
	var keys []Key
	for _, r := range schema {
		if s.Pooling && r.generation {
			continue
		}
		var present, byServer bool
		switch r.when {
		case always:
			present = true
		case withRampUp:
			present = s.RampUp
		case perRequest, detailedOnly:
			present = s.Detailed
		case endReason:
			present = s.Detailed || s.Workload
		case perRequestServer:
			present, byServer = s.Detailed, true
		case cachedTokens:
			present, byServer = s.ReportCachedTokens, true
		case withProbes:
			// Absent when no probe succeeded, as when the server holds
			// a figure back.
			present, byServer = s.Probe, true
		case workload:
			present = s.Workload
		case multiTurn:
			present = s.MultiTurn
		case multiTurnDetailed:
			present = s.MultiTurn && s.Detailed
		case steadyState:
			present = s.SteadyState
		case clientLoad:
			present = s.ClientLoad
		case clientLoadDetailed:
			present = s.ClientLoad && s.Detailed
		case sharded:
			present = s.Shard
		case merged:
			present = s.Merged
		case server:
			present, byServer = true, true
		case statistics:
			for _, k := range s.StatKeys() {
				keys = append(keys, Key{Name: k})
			}
		}
		if present {
			keys = append(keys, Key{Name: r.key, Server: byServer})
		}
	}
	return keys
}

// Has reports whether a result of s can have key: one of Keys (those the
// server may add included) or the derived FailedRatio, which needs failed
// (a pooling result has none).
func (s Selection) Has(key string) bool {
	if key == FailedRatio {
		return !s.Pooling
	}
	// A dotted path into one of gobench's objects
	// ("gobench_steady_state.p99_ttft_ms") is there when its object is;
	// which keys the object holds the run decides.
	if head, _, dotted := strings.Cut(key, "."); dotted && slices.Contains(objectKeys, head) {
		return s.Has(head)
	}
	return slices.ContainsFunc(s.Keys(), func(k Key) bool { return k.Name == key })
}

// objectKeys are gobench's keys whose value is an object that thresholds
// and comparisons can reach into by a dotted path (server_view has its
// own rule: only the run finds out whether the server has /metrics).
var objectKeys = []string{GobenchSteadyState, GobenchClient, MultiTurn, GobenchWorkload}

// CanCompute reports whether key is a latency statistic that a result of s
// lacks but whose metric the run measures, so that it can be computed from
// the run's per-request data (as gobench analyze computes it) although
// --percentile-metrics or --metric-percentiles did not select it.
func (s Selection) CanCompute(key string) bool {
	metric, st, ok := ParseStatKey(key)
	if !ok || s.Has(key) || s.Pooling {
		// A pooling result keeps no per-request latencies (vLLM's pooling
		// lists are input_lens and errors): nothing can be computed.
		return false
	}
	wide := s
	wide.PercentileMetrics, wide.Percentiles = []string{metric}, nil
	if st.Kind == Percentile {
		wide.Percentiles = []float64{st.P}
	}
	return wide.Has(StatKey(metric, st))
}
