// Package servermetrics reads an inference server's Prometheus /metrics
// page into a small typed model — counters, gauges and histograms with
// their labels — and does the arithmetic the server's side of a benchmark
// needs: the sum of several sources (API-server processes or replicas),
// the increase over a window between two scrapes (with counter resets
// detected, never turned into negative rates), and histogram quantiles.
//
// Which server it is comes from the metric names (Detect): vLLM (vllm:*),
// llama.cpp's llama-server (llamacpp:*), SGLang (sglang:*) or TGI (tgi_*).
// Each engine's names are one entry of one table (engines.go, Engine):
// what it publishes for each role (TTFT, queue time, running and waiting
// requests, ...), so that the diagnosis asks the same questions of all.
//
// A page is bounded before it is parsed (page.go): only the families of
// the known engines and process_start_time_seconds are kept, line by line,
// with at most 50,000 samples a family, 200,000 in all and 64 KiB a line;
// Notes says what was dropped. A page of a million series of other
// families then costs a scan of its bytes, not a gigabyte of maps. A
// second # TYPE line of a family, which expfmt refuses with the whole
// page, is dropped with a note too; a family declared the other scalar
// kind than gobench reads it as (a counter typed gauge) is read as
// gobench's; a bucket bound written twice is one bucket (the larger
// count); a histogram without +Inf and counts that go down are noted.
//
// Parsing is prometheus/common's expfmt (the Prometheus text format, and
// OpenMetrics when the page ends with "# EOF"). Names are read in vLLM's
// current V1 spelling whatever the server's version: the V0 and early-V1
// names (vllm:gpu_cache_usage_perc, vllm:time_per_output_token_seconds,
// vllm:gpu_prefix_cache_*) are aliases of the current ones, counters are
// found with or without their _total suffix, untyped samples (a scrape cut
// and pasted without its # TYPE lines) are typed from vLLM's own table, and
// the _created samples of Python's client are ignored.
//
// Quantiles are Prometheus' histogram_quantile for classic histograms
// (promql/quantile.go, bucketQuantile), rewritten here rather than imported:
// the prometheus/prometheus module would bring the whole server in for 80
// lines. The rules are Prometheus': linear interpolation inside the bucket
// that holds the rank, a lower bound of 0 for the lowest bucket when its
// upper bound is positive, the upper bound of the second-highest bucket when
// the rank falls in the +Inf bucket, buckets with equal bounds merged,
// counts within 1e-12 of each other treated as equal and decreasing counts
// raised to the envelope; an empty histogram, one without a +Inf bucket or
// with fewer than two buckets has no quantile (NaN). Each estimate also
// carries the bounds of the bucket it came from, because a quantile in a
// wide bucket is only known to lie inside it.
//
// The run's own counters are read here too: vLLM's speculative-decoding
// counters as vLLM's benchmark client reads them (SpecDecode) and the
// prefix cache's lookups and hits (PrefixCache), so that one parser reads
// every /metrics page gobench fetches.
//
// Samples that are not numbers a server can mean (NaN, ±Inf counters,
// negative or NaN bucket counts) are dropped at parse time with a note, so
// nothing downstream meets them.
package servermetrics
