package run

import (
	"fmt"

	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/schedule"
)

// selfTimedArrivals is vLLM's --self-timed schedule
// (vllm/benchmarks/serve.py@11dfa3169 get_request): each request is sent
// at its trace timestamp, seconds from the start (absolute, neither
// cumulated nor normalised; rate 0), a request without one at once (the
// later upstream's 0.0, where the pinned code crashed). No gamma is drawn.
func selfTimedArrivals(samples []dataset.Sample) ([]schedule.Arrival, error) {
	out := make([]schedule.Arrival, len(samples))
	for i, s := range samples {
		if s.Timestamp == nil {
			continue
		}
		if !metrics.FitsDuration(*s.Timestamp) {
			return nil, fmt.Errorf("--self-timed: request %d's timestamp %v s is beyond what a run can wait (292 years)", i, *s.Timestamp)
		}
		out[i].Offset = *s.Timestamp
	}
	return out, nil
}
