package metrics

// Probe is the account of the probe requests of --probe-request-rate:
// one-token "Hi" requests sent one at a time beside the run, whose latency
// shows how long a newcomer waits while the server is loaded (head-of-line
// blocking), apart from the run's own figures.
type Probe struct {
	// Completed and Failed count the probes.
	Completed, Failed int
	// MedianE2ELMS, P99E2ELMS and MaxE2ELMS are the successful probes'
	// end-to-end latencies in milliseconds.
	MedianE2ELMS, P99E2ELMS, MaxE2ELMS float64
}

// CalculateProbe returns the probes' statistics as vLLM computes them
// (vllm/benchmarks/serve.py@009e6d4a benchmark, probe_stats):
// np.median and np.percentile(…, 99) of the successful probes' latencies,
// times 1000, and their max. It returns nil when no probe succeeded: vLLM
// then prints no probe section and saves no probe keys.
func CalculateProbe(outputs []Output) *Probe {
	var lats []float64
	for i := range outputs {
		if outputs[i].Success {
			lats = append(lats, outputs[i].Latency)
		}
	}
	if len(lats) == 0 {
		return nil
	}
	top := lats[0]
	for _, l := range lats[1:] {
		top = max(top, l)
	}
	return &Probe{
		Completed: len(lats), Failed: len(outputs) - len(lats),
		MedianE2ELMS: Median(lats) * 1000, P99E2ELMS: Percentile(lats, 99) * 1000, MaxE2ELMS: top * 1000,
	}
}
