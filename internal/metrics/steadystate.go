package metrics

// SteadyState is a run's figures over its steady-state window
// (FindSteadyWindow), gobench's addition beside vLLM's whole-run figures:
// a run's ramp-up and drain, when the server is less loaded than in its
// plateau, flatter both the throughput and the latencies.
type SteadyState struct {
	// Found tells whether a window was found; Reason says why not.
	Found  bool
	Reason string
	// Window is the window found.
	Window SteadyWindow
	// RunStart is the earliest successful start, which the printed and
	// saved window bounds are relative to.
	RunStart float64
	// Started counts the successful requests that started in the window,
	// Completed those that ended in it, Inside those whose whole
	// [start, end) lies in it.
	Started, Completed, Inside int
	// RequestThroughput is Completed / the window's length.
	RequestThroughput float64
	// InputThroughput is the prompt tokens of the requests started in the
	// window per second of it.
	InputThroughput float64
	// OutputThroughput is the output tokens received in the window per
	// second of it: each token event in the window carries its request's
	// output length / its number of events.
	OutputThroughput float64
	// TotalTokenThroughput is InputThroughput + OutputThroughput.
	TotalTokenThroughput float64
	// TTFT, TPOT, ITL and E2EL are the statistics (milliseconds, the run's
	// percentiles) of the requests inside the window: the requests that
	// lived through the steady state alone.
	TTFT, TPOT, ITL, E2EL Stats
}

// Duration is the window's length in seconds.
func (s *SteadyState) Duration() float64 { return s.Window.End - s.Window.Start }

// Steady computes the steady-state figures of a Result of Calculate from
// its outputs, its output lengths, --max-concurrency and its percentiles.
// Only successful requests count, as in the concurrency vLLM reports.
func Steady(r *Result) *SteadyState {
	var intervals [][2]float64
	s := &SteadyState{}
	for i := range r.Outputs {
		o := &r.Outputs[i]
		if !o.Success {
			continue
		}
		if len(intervals) == 0 || o.StartTime < s.RunStart {
			s.RunStart = o.StartTime
		}
		intervals = append(intervals, [2]float64{o.StartTime, o.StartTime + o.Latency})
	}
	w, reason, ok := FindSteadyWindow(intervals, r.MaxConcurrency)
	s.Window, s.Found, s.Reason = w, ok, reason
	if !ok {
		return s
	}
	var ttfts, tpots, itls, e2els []float64
	var input, output float64
	for i := range r.Outputs {
		o := &r.Outputs[i]
		if !o.Success {
			continue
		}
		start, end := o.StartTime, o.StartTime+o.Latency
		if w.Start <= start && start < w.End {
			s.Started++
			input += float64(o.PromptLen)
		}
		if w.Start <= end && end < w.End {
			s.Completed++
		}
		output += tokensIn(o, r.ActualOutputLens[i], w)
		if start < w.Start || end > w.End {
			continue
		}
		s.Inside++
		ttfts = append(ttfts, o.TTFT)
		e2els = append(e2els, o.Latency)
		itls = append(itls, o.ITL...)
		if n := r.ActualOutputLens[i]; n > 1 {
			tpots = append(tpots, (o.Latency-o.TTFT)/float64(n-1))
		}
	}
	if s.Inside == 0 {
		// A window shorter than any request: nothing to say of its latencies.
		return &SteadyState{Window: w, RunStart: s.RunStart, Reason: "no request lived wholly inside the window"}
	}
	d := s.Duration()
	s.RequestThroughput = float64(s.Completed) / d
	s.InputThroughput = input / d
	s.OutputThroughput = output / d
	s.TotalTokenThroughput = s.InputThroughput + s.OutputThroughput
	ps := r.Percentiles
	s.TTFT, s.TPOT, s.ITL, s.E2EL = Summarize(ttfts, ps), Summarize(tpots, ps), SummarizeInPlace(itls, ps), Summarize(e2els, ps)
	return s
}

// tokensIn is the share of an output's tokens whose events arrived in the
// window: its first event at StartTime + TTFT, then one per ITL gap, each
// carrying outputLen / events tokens (one token each when the server sends
// one per event).
func tokensIn(o *Output, outputLen int, w SteadyWindow) float64 {
	events := 1 + len(o.ITL)
	t := o.StartTime + o.TTFT
	in := 0
	if w.Start <= t && t < w.End {
		in++
	}
	for _, gap := range o.ITL {
		t += gap
		if t >= w.End {
			break
		}
		if t >= w.Start {
			in++
		}
	}
	return float64(outputLen) * float64(in) / float64(events)
}
