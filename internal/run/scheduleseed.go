package run

import "github.com/gobench/gobench/internal/numpyrand"

// scheduleRNG is the generator the arrival gaps are drawn from: vLLM's
// global NumPy generator, continued where the dataset left it
// (vllm/benchmarks/serve.py@11dfa3169 get_request), or, with
// Options.ScheduleSeed, a legacy generator of the schedule's own, so that
// a repeated run keeps the dataset's prompts and draws fresh arrivals.
// For every dataset that leaves the global generator alone (all but
// prefix_repetition), ScheduleSeed s gives the arrivals of a run with
// --seed s.
func (p *Plan) scheduleRNG() *numpyrand.Legacy {
	if s := p.Options.ScheduleSeed; s != nil {
		return numpyrand.NewLegacy(uint32(*s))
	}
	return p.global.NumPy
}
