package metrics

import (
	"fmt"
	"strings"

	"github.com/gobench/gobench/internal/resultkey"
)

// Config is what Calculate needs besides the outputs: the parts of the
// command line that calculate_metrics and benchmark() read.
type Config struct {
	// CountTokens returns the number of tokens of a generated text, as
	// len(tokenizer(text, add_special_tokens=False).input_ids). It is used
	// only for successful outputs whose OutputTokens is 0. nil means "no
	// tokenizer" (--skip-tokenizer-init): such outputs count as 1 token,
	// and the token lines and the TTFT/TPOT/ITL sections are not reported.
	CountTokens func(text string) int
	// Goodput holds the SLOs in milliseconds from ParseGoodput; empty
	// disables goodput (request_goodput is then null in the result file).
	Goodput map[string]float64
	// PercentileMetrics is the --percentile-metrics selection
	// (ParsePercentileMetrics).
	PercentileMetrics []string
	// Percentiles is the --metric-percentiles selection
	// (ParseMetricPercentiles).
	Percentiles []float64
	// MaxConcurrency is --max-concurrency; 0 means unset (later vLLM
	// rejects values <= 0 with "--max-concurrency must be greater than 0").
	// When set, client queue statistics are computed.
	MaxConcurrency int
	// RequestRate is --request-rate in requests per second (+Inf when
	// unlimited). It decides the "Request rate configured" line and whether
	// the queue-inclusive E2EL section is reported.
	RequestRate float64
	// ReportCachedTokens is --report-cached-tokens: total_cached_tokens is
	// saved and a warning is issued when no successful output reported
	// cached tokens.
	ReportCachedTokens bool
	// Pooling: the backend is one of vLLM's pooling backends (embeddings,
	// pooling, rerank), whose metrics are calculate_metrics_for_embeddings'
	// (see CalculatePooling).
	Pooling bool
}

// Result is calculate_metrics' BenchmarkMetrics plus what benchmark()
// derives from the outputs for printing and saving. Durations of the Stats
// are milliseconds, every other time is seconds.
type Result struct {
	// Outputs are the per-request records Calculate was given, in request
	// order (shared, not copied). The detailed result lists come from them.
	Outputs []Output
	// Duration is the benchmark duration in seconds.
	Duration float64

	// Completed counts successful outputs, Failed the others.
	Completed, Failed int
	// Resent counts the outputs whose request was sent a second time
	// because the server closed a reused connection before answering
	// (Output.Resent): each is still one request.
	Resent int
	// TotalInput is the sum of PromptLen over successful outputs.
	TotalInput int
	// TotalOutput is the sum of ActualOutputLens.
	TotalOutput int
	// ActualOutputLens holds, per output, the output length used for the
	// metrics: OutputTokens, or its fallback, and 0 for failed outputs.
	ActualOutputLens []int

	// RequestThroughput is Completed / Duration.
	RequestThroughput float64
	// RequestGoodput is good requests / Duration (meaningful only when
	// GoodputEnabled).
	RequestGoodput float64
	// GoodRequests is the number of successful requests meeting every SLO.
	GoodRequests int
	// OutputThroughput is TotalOutput / Duration.
	OutputThroughput float64
	// TotalTokenThroughput is (TotalInput + TotalOutput) / Duration.
	TotalTokenThroughput float64

	// TTFT, TPOT, ITL and E2EL are the statistics of the successful
	// outputs' TTFTs, TPOTs (outputs with more than one token only), all
	// inter-token gaps, and latencies.
	TTFT, TPOT, ITL, E2EL Stats
	// ClientQueue and E2ELInclQueue are the statistics of the successful
	// outputs' ClientQueueTime and Latency+ClientQueueTime; both are nil
	// unless MaxConcurrency is set.
	ClientQueue, E2ELInclQueue *Stats

	// MaxOutputTokensPerS is the peak number of token events in a one-second
	// bin (vLLM's max_output_tokens_per_s, which counts chunks).
	MaxOutputTokensPerS float64
	// MaxConcurrentRequests is the exact peak of overlapping requests
	// (CalculateConcurrency).
	MaxConcurrentRequests int
	// RTFx is the sum of InputAudioDuration over successful outputs divided
	// by Duration (0 unless audio was benchmarked).
	RTFx float64
	// TotalCached is the sum of CachedTokens over successful outputs, nil
	// when no successful output reported cached tokens.
	TotalCached *int

	// Probe is the probe requests' account (--probe-request-rate), set by
	// the run beside Calculate; nil without probes or when none
	// succeeded.
	Probe *Probe

	// Failures are the Error texts of the failed outputs, in order.
	Failures []string
	// Warnings are the UserWarnings vLLM's calculate_metrics and main_async
	// would issue (all requests failed, read timeouts, missing cached
	// tokens), in that order.
	Warnings []string

	// HasTokenizer, GoodputEnabled, PercentileMetrics, Percentiles,
	// MaxConcurrency, RequestRate and ReportCachedTokens echo the Config
	// that produced the Result, for the renderers.
	HasTokenizer       bool
	GoodputEnabled     bool
	PercentileMetrics  []string
	Percentiles        []float64
	MaxConcurrency     int
	RequestRate        float64
	ReportCachedTokens bool
	// Pooling: the Result is calculate_metrics_for_embeddings' (see
	// CalculatePooling); only the counts, TotalInput, RequestThroughput,
	// TotalTokenThroughput and E2EL are meaningful.
	Pooling bool
}

// Messages of the warnings Calculate records in Result.Warnings.
const (
	// WarnAllFailed is calculate_metrics' UserWarning when no request
	// succeeded (serve.py).
	WarnAllFailed = "All requests failed. This is likely due to a " +
		"misconfiguration on the benchmark arguments."
	// warnTimedOutFormat is the read-timeout warning; later vLLM only pins
	// that it matches "timed out" (test_serve_timeout.py@04a5ccf4), so the
	// rest of the wording is gobench's.
	warnTimedOutFormat = "%d request(s) timed out while waiting for data " +
		"from the server and were counted as failed."
	// warnResentFormat says how many requests were sent twice; gobench's
	// own (vLLM's aiohttp client re-sends no POST).
	warnResentFormat = "%d request(s) were sent again, once, on a new connection: " +
		"the server closed a reused keep-alive connection before answering them. " +
		"Each counts once (resent_requests)."
	// WarnNoCachedTokens is issued with --report-cached-tokens when requests
	// succeeded but none reported cached tokens; later vLLM pins only that
	// it contains "enable-prompt-tokens-details"
	// (test_serve_cached_tokens.py@3f9a4671).
	WarnNoCachedTokens = "--report-cached-tokens is set but the server " +
		"reported no usage.prompt_tokens_details.cached_tokens; start the " +
		"server with --enable-prompt-tokens-details to report them."
)

// IsReadTimeout reports whether a failed request's error text describes a
// timeout while waiting for the server, the case for which later vLLM warns
// "timed out" (test_serve_timeout.py@04a5ccf4 uses aiohttp's
// "ServerTimeoutError: Timeout on reading data from socket" and expects no
// warning for "Internal Server Error"). Besides aiohttp's texts it
// recognises Go's net and context timeouts ("i/o timeout", "deadline
// exceeded", "Client.Timeout") and any text saying "timed out".
func IsReadTimeout(errText string) bool {
	e := strings.ToLower(errText)
	for _, s := range [...]string{
		"timed out",
		"servertimeouterror",
		"timeout on reading data",
		"i/o timeout",
		"deadline exceeded",
		"client.timeout",
	} {
		if strings.Contains(e, s) {
			return true
		}
	}
	return false
}

// Calculate reproduces vLLM's calculate_metrics for generation tasks
// (serve.py, baseline 11dfa3169 plus the later fixes) and the statistics
// benchmark() adds:
//
//   - For each successful output, in request order: output_len =
//     OutputTokens, or CountTokens(GeneratedText) when that is 0, or 1
//     without a tokenizer; TotalInput += PromptLen; tpot = (Latency -
//     TTFT)/(output_len - 1) enters the TPOT statistics only when
//     output_len > 1, but every output has a tpot for goodput (0 for one
//     token); ITL gaps are pooled; TTFT and Latency are collected. A
//     failed output contributes 0 to ActualOutputLens only.
//   - Goodput: a successful request is good iff slo/1000 >= value for every
//     SLO given, taken in the fixed order ttft, tpot, e2el (inclusive).
//   - Throughputs divide by duration. vLLM has no zero guard and would
//     raise ZeroDivisionError; here a zero duration yields Inf or NaN,
//     which the renderers print as inf/nan.
//   - Peak output token events per second (one-second bins) and the exact
//     sweep-line peak concurrency over [start, start+latency).
//   - With MaxConcurrency set, the client queue time and the queue-inclusive
//     E2EL (Latency + ClientQueueTime) of successful outputs
//     (serve.py@009e6d4a benchmark; test_serve_queue_time.py).
//   - Cached tokens, the failure list and the warnings.
//
// Every Stats is Summarize of the seconds, i.e. np.mean/np.median/np.std/
// np.percentile of `xs or 0` times 1000.
func Calculate(outputs []Output, duration float64, cfg Config) Result {
	if cfg.Pooling {
		return calculatePooling(outputs, duration, cfg)
	}
	r := Result{
		Outputs:            outputs,
		Duration:           duration,
		ActualOutputLens:   make([]int, len(outputs)),
		HasTokenizer:       cfg.CountTokens != nil,
		GoodputEnabled:     len(cfg.Goodput) > 0,
		PercentileMetrics:  cfg.PercentileMetrics,
		Percentiles:        cfg.Percentiles,
		MaxConcurrency:     cfg.MaxConcurrency,
		RequestRate:        cfg.RequestRate,
		ReportCachedTokens: cfg.ReportCachedTokens,
	}
	s := collect(outputs, cfg, &r)
	if len(cfg.Goodput) > 0 {
		r.GoodRequests = countGood(cfg.Goodput, s.ttfts, s.allTPOTs, s.e2els)
	}

	r.RequestThroughput = float64(r.Completed) / duration
	r.RequestGoodput = float64(r.GoodRequests) / duration
	r.OutputThroughput = float64(r.TotalOutput) / duration
	r.TotalTokenThroughput = float64(r.TotalInput+r.TotalOutput) / duration
	r.RTFx = s.audio / duration

	ps := cfg.Percentiles
	r.TTFT = Summarize(s.ttfts, ps)
	r.TPOT = Summarize(s.tpots, ps)
	r.ITL = SummarizeInPlace(s.itls, ps) // the run's largest list, and nothing reads it after
	r.E2EL = Summarize(s.e2els, ps)
	if cfg.MaxConcurrency > 0 {
		q := Summarize(s.queue, ps)
		e := Summarize(s.e2elsInclQueue, ps)
		r.ClientQueue, r.E2ELInclQueue = &q, &e
	}

	r.MaxOutputTokensPerS = peakOutputTokensPerSecond(outputs)
	r.MaxConcurrentRequests, _, _ = CalculateConcurrency(s.intervals, s.minStart)
	if s.anyCached {
		r.TotalCached = &s.cached
	}

	r.warnFailures(s.timedOut)
	if r.Resent > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf(warnResentFormat, r.Resent))
	}
	if cfg.ReportCachedTokens && r.Completed > 0 && !s.anyCached {
		r.Warnings = append(r.Warnings, WarnNoCachedTokens)
	}
	return r
}

// countFailure records a failed output in r and reports whether it timed
// out waiting for the server.
func (r *Result) countFailure(o *Output) (timedOut bool) {
	r.Failed++
	r.Failures = append(r.Failures, o.Error)
	return IsReadTimeout(o.Error)
}

// warnFailures adds the warnings about failures: all requests failed,
// timedOut requests timed out.
func (r *Result) warnFailures(timedOut int) {
	if r.Completed == 0 {
		r.Warnings = append(r.Warnings, WarnAllFailed)
	}
	if timedOut > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf(warnTimedOutFormat, timedOut))
	}
}

// samples are the per-metric lists calculate_metrics builds while walking
// the outputs, all over successful outputs in request order.
type samples struct {
	ttfts, tpots, allTPOTs, e2els, itls []float64
	queue, e2elsInclQueue               []float64
	intervals                           [][2]float64
	minStart, audio                     float64
	cached                              int
	anyCached                           bool
	timedOut                            int
}

// collect is calculate_metrics' loop over the outputs (by index, in
// request order); it fills the counters and ActualOutputLens of r and
// returns the sample lists.
func collect(outputs []Output, cfg Config, r *Result) samples {
	var s samples
	nITL := 0
	for i := range outputs {
		nITL += len(outputs[i].ITL)
	}
	s.itls = make([]float64, 0, nITL)
	for i := range outputs {
		o := &outputs[i]
		if o.Resent {
			r.Resent++
		}
		if !o.Success {
			if r.countFailure(o) {
				s.timedOut++
			}
			continue
		}
		outputLen := o.OutputTokens
		if outputLen == 0 {
			// vLLM re-tokenises when usage is absent or reports 0 tokens,
			// and assumes one token without a tokenizer.
			if cfg.CountTokens == nil {
				outputLen = 1
			} else {
				outputLen = cfg.CountTokens(o.GeneratedText)
			}
		}
		r.ActualOutputLens[i] = outputLen
		r.TotalOutput += outputLen
		r.TotalInput += o.PromptLen
		tpot := 0.0
		if outputLen > 1 {
			tpot = (o.Latency - o.TTFT) / float64(outputLen-1)
			s.tpots = append(s.tpots, tpot)
		}
		s.allTPOTs = append(s.allTPOTs, tpot) // 0 for one token: goodput only
		s.itls = append(s.itls, o.ITL...)
		s.ttfts = append(s.ttfts, o.TTFT)
		s.e2els = append(s.e2els, o.Latency)
		s.audio += o.InputAudioDuration
		if r.Completed == 0 {
			s.minStart = o.StartTime
		}
		s.minStart = min(s.minStart, o.StartTime)
		s.intervals = append(s.intervals, [2]float64{o.StartTime, o.StartTime + o.Latency})
		if cfg.MaxConcurrency > 0 {
			s.queue = append(s.queue, o.ClientQueueTime)
			s.e2elsInclQueue = append(s.e2elsInclQueue, o.Latency+o.ClientQueueTime)
		}
		if o.CachedTokens != nil {
			s.anyCached = true
			s.cached += *o.CachedTokens
		}
		r.Completed++
	}
	return s
}

// countGood counts the requests meeting every SLO, as calculate_metrics:
// the SLOs present among ttft, tpot, e2el (in that order) are converted
// from milliseconds (value / 1000) and a request is good iff slo >= value
// for each (inclusive; a NaN value is never good). tpots must be the
// all_tpots list, with 0 for single-token outputs.
func countGood(slos map[string]float64, ttfts, tpots, e2els []float64) int {
	type check struct {
		limit  float64
		values []float64
	}
	var checks []check
	for _, c := range [...]struct {
		name   string
		values []float64
	}{{resultkey.MetricTTFT, ttfts}, {resultkey.MetricTPOT, tpots}, {resultkey.MetricE2EL, e2els}} {
		if v, ok := slos[c.name]; ok {
			checks = append(checks, check{v / 1000, c.values})
		}
	}
	if len(checks) == 0 {
		// Only unknown names: zip() of nothing yields no request.
		return 0
	}
	good := 0
	for i := range ttfts {
		ok := true
		for _, c := range checks {
			if !(c.limit >= c.values[i]) {
				ok = false
				break
			}
		}
		if ok {
			good++
		}
	}
	return good
}

// Section is one percentile block of the printed result and of the result
// file (vLLM's process_one_metric): the metric (its key, label name and
// header, from resultkey) and its statistics.
type Section struct {
	resultkey.Metric
	// Stats are the values, in milliseconds.
	Stats Stats
}

// Sections returns the percentile blocks to print and save, in order:
// those resultkey.Selection.Sections gives for the selection, tokenizer
// and client queue of the Result. The client queue sections appear when
// their statistics exist (ClientQueue and E2ELInclQueue are set).
func (r *Result) Sections() []Section {
	sel := resultkey.Selection{
		PercentileMetrics: r.PercentileMetrics,
		Tokenizer:         r.HasTokenizer,
		ClientQueue:       r.ClientQueue != nil && r.E2ELInclQueue != nil,
		Pooling:           r.Pooling,
	}
	var out []Section
	for _, m := range sel.Sections() {
		out = append(out, Section{Metric: m, Stats: r.stats(m.Key)})
	}
	return out
}

// stats returns the statistics of a metric named by resultkey.
func (r *Result) stats(metric string) Stats {
	switch metric {
	case resultkey.MetricTTFT:
		return r.TTFT
	case resultkey.MetricTPOT:
		return r.TPOT
	case resultkey.MetricITL:
		return r.ITL
	case resultkey.MetricE2EL:
		return r.E2EL
	case resultkey.MetricClientQueueTime:
		return *r.ClientQueue
	case resultkey.MetricE2ELIncludingClientQueue:
		return *r.E2ELInclQueue
	}
	panic("metrics: no statistics for metric " + metric)
}
