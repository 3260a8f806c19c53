package metrics

// calculatePooling reproduces vLLM's calculate_metrics_for_embeddings
// (vllm/benchmarks/serve.py@11dfa3169), used for the pooling backends
// (Config.Pooling):
//
//   - For each successful output, in request order: its Latency enters
//     the E2EL statistics, Completed counts it and TotalInput adds its
//     PromptLen (the server's usage.prompt_tokens). Failed outputs count
//     in Failed only.
//   - RequestThroughput is Completed / duration and TotalTokenThroughput
//     TotalInput / duration: a pooling request generates nothing.
//   - No TTFT, TPOT, ITL, goodput, peak or client queue figures: vLLM
//     computes none for pooling, and its block prints only E2EL.
//
// The failure list and the warnings (all failed, read timeouts) are
// gobench's as for generation.
func calculatePooling(outputs []Output, duration float64, cfg Config) Result {
	r := Result{
		Outputs:           outputs,
		Duration:          duration,
		ActualOutputLens:  make([]int, len(outputs)),
		HasTokenizer:      cfg.CountTokens != nil,
		PercentileMetrics: cfg.PercentileMetrics,
		Percentiles:       cfg.Percentiles,
		MaxConcurrency:    cfg.MaxConcurrency,
		RequestRate:       cfg.RequestRate,
		Pooling:           true,
	}
	var e2els []float64
	timedOut := 0
	for i := range outputs {
		o := &outputs[i]
		if !o.Success {
			if r.countFailure(o) {
				timedOut++
			}
			continue
		}
		e2els = append(e2els, o.Latency)
		r.Completed++
		r.TotalInput += o.PromptLen
	}
	r.RequestThroughput = float64(r.Completed) / duration
	r.TotalTokenThroughput = float64(r.TotalInput) / duration
	r.E2EL = Summarize(e2els, cfg.Percentiles)
	r.warnFailures(timedOut)
	return r
}
