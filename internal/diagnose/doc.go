// Package diagnose turns a vLLM server's /metrics into an account an
// operator can use and a reason: for a window (two scrapes of every source
// some seconds apart, or one scrape: totals since the server started) it
// computes the quantiles of every latency and request-shape histogram, the
// ratios that matter (prefix-cache hit rate, prompt : generation,
// finished-reason shares, preemptions, computed-prefill share, speculative
// acceptance) and the state gauges, then asks five questions in a fixed
// order — queue, why waiting, thrashing, prefill, streaming — each answered
// with the numbers it used and the thresholds it compared them with. The
// first question that locates the problem gives the verdict, one of a fixed
// list scripts can rely on (Verdicts).
//
// The procedure is the one vLLM's metrics are designed for: queue time
// against time to first token, running requests against max_num_seqs and
// KV-cache usage, the preemption rate, prefill time and the prefix-cache
// hit rate, and the spread of inter-token latency. The intervals it reads
// are vLLM's (vllm/v1/metrics/stats.py@005a810bc: queued = scheduled -
// queued, prefill = first token - scheduled, decode = last token - first
// token), so TTFT - queue - prefill is the API server's own time.
//
// FromScrapes diagnoses scrapes a caller already has (gobench serve's
// before and after its run); Collector scrapes live sources over a window
// and samples their gauges on the way. Report renders as text, Markdown or
// a JSON object.
package diagnose
