// Package servermetrics reads a vLLM server's Prometheus /metrics page into
// a small typed model — counters, gauges and histograms with their labels —
// and does the arithmetic the server's side of a benchmark needs: the sum
// of several sources (API-server processes or replicas), the increase over
// a window between two scrapes (with counter resets detected, never turned
// into negative rates), and histogram quantiles.
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
// Samples that are not numbers a server can mean (NaN, ±Inf counters,
// negative or NaN bucket counts) are dropped at parse time with a note, so
// nothing downstream meets them.
package servermetrics
