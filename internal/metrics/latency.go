package metrics

import "github.com/gobench/gobench/internal/resultkey"

// requestLatencies says how each latency metric of resultkey's table
// (resultkey.Metrics) is read off one successful request, in seconds, as
// calculate_metrics defines it: the values the request adds to the
// metric's statistics. Calculate builds the same lists in one pass
// (TestRequestLatenciesMatchCalculate); compare's per-request values and
// analyze's recomputations read them here. It is read-only.
var requestLatencies = [...]struct {
	metric string
	values func(o *Output, outputLen int) []float64
}{
	{resultkey.MetricTTFT, func(o *Output, _ int) []float64 { return []float64{o.TTFT} }},
	// Only requests of more than one token have a TPOT.
	{resultkey.MetricTPOT, func(o *Output, n int) []float64 {
		if n > 1 {
			return []float64{(o.Latency - o.TTFT) / float64(n-1)}
		}
		return nil
	}},
	{resultkey.MetricITL, func(o *Output, _ int) []float64 { return o.ITL }},
	{resultkey.MetricE2EL, func(o *Output, _ int) []float64 { return []float64{o.Latency} }},
	{resultkey.MetricClientQueueTime, func(o *Output, _ int) []float64 { return []float64{o.ClientQueueTime} }},
	{resultkey.MetricE2ELIncludingClientQueue, func(o *Output, _ int) []float64 { return []float64{o.Latency + o.ClientQueueTime} }},
}

// RequestLatencies returns what the successful request o adds to the
// statistics of the latency metric (a resultkey metric name), in seconds:
// one value, none (TPOT of a one-token answer) or one per gap (ITL; the
// request's own slice, not a copy). outputLen is the output length the
// metrics count (Result.ActualOutputLens). ok is false for a metric
// resultkey does not define.
func RequestLatencies(o *Output, outputLen int, metric string) (values []float64, ok bool) {
	for _, l := range requestLatencies {
		if l.metric == metric {
			return l.values(o, outputLen), true
		}
	}
	return nil, false
}
