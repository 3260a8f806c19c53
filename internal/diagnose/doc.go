// Package diagnose turns an inference server's /metrics into an account an
// operator can use and a reason: for a window (two scrapes of every source
// some seconds apart, or one scrape: totals since the server started) it
// computes the quantiles of every latency and request-shape histogram, the
// ratios that matter (prefix-cache hit rate, prompt : generation,
// finished-reason shares, preemptions, computed-prefill share, speculative
// acceptance) and the state gauges, then asks five questions in a fixed
// order — queue, why waiting, thrashing, prefill, streaming — each answered
// with the numbers it used and the thresholds it compared them with. The
// first question that locates the problem gives the verdict, one of a fixed
// list scripts can rely on (Verdicts). healthy needs questions answered that
// ruled their layers out; when none could be (no metrics of a known engine,
// an idle window, histograms the engine does not publish) the verdict is
// unknown, with the reason.
//
// The engine is told by its metric names (servermetrics.Detect) and read by
// its table's names: vLLM, llama.cpp, SGLang, TGI. Each question uses what
// the engine has and names the metric: queue time against TTFT (vLLM,
// SGLang), against the whole request, the least share of TTFT it can be
// (TGI: no TTFT), or llama.cpp's deferred requests (it defers a request only
// when no slot is free, so any deferred request shows the slots binding;
// their number is not published and is never claimed).
//
// The procedure is the one vLLM's metrics are designed for: queue time
// against time to first token, running requests against max_num_seqs and
// KV-cache usage, the preemption rate, prefill time and the prefix-cache
// hit rate, and the spread of inter-token latency. The intervals it reads
// are vLLM's (vllm/v1/metrics/stats.py@005a810bc: queued = scheduled -
// queued, prefill = first token - scheduled, decode = last token - first
// token), so TTFT - queue - prefill is the API server's own time.
//
// The procedure's words become these rules (each threshold a flag, Knobs):
//
//   - "Queue time dominates" TTFT (question 1): the queue's exact mean
//     (sum / count) is at least --dominant-share of TTFT's, or its p50,
//     p95 or p99 is that share of TTFT's same quantile — tails count, as
//     the procedure's own reading of its sample does. A quantile inside
//     the queue histogram's lowest bucket (vLLM's ends at 0.3 s) never
//     counts: interpolation puts every such p50, p95 and p99 at 0.15,
//     0.285 and 0.297 s whatever the queue was. Nothing below
//     --noise-floor counts. So a server whose requests wait for the step
//     in progress (a third of TTFT, every quantile under 0.3 s) is not
//     called saturated, and one whose queue is short but most of TTFT is.
//   - "Memory binds" (question 2): the peak KV-cache usage over the
//     samples reaches --kv-high, or requests were preempted in the window
//     at all: vLLM preempts only when the cache is full, so the samples
//     (seconds apart) missed it.
//   - "Hit rate lower than the workload should give" (question 4) needs
//     what the workload should give, which only its author knows
//     (--expected-prefix-hit-rate; not assumed by default, as a benchmark
//     of random prompts shares nothing). Prefix caching turned off
//     (vllm:cache_config_info) is named whatever it says, when prefill
//     dominates TTFT.
//   - Streaming is uneven (question 5) when ITL's p99 is --itl-tail-ratio
//     times its p50 and at least --itl-high; high throughout when its p50
//     is. ITL's lowest bucket ends at 10 ms, so a p50 inside it is under
//     its true value and the ratio alone would overstate a tail: the p99
//     floor keeps it honest.
//
// FromScrapes diagnoses scrapes a caller already has (gobench serve's
// before and after its run); Collector scrapes live sources over a window
// and samples their gauges on the way. Report renders as text, Markdown or
// a JSON object.
package diagnose
