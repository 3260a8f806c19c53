package metrics

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCalculateProbe checks the probe statistics against NumPy:
// np.median([0.1, 0.3, 0.2, 0.4])*1000 = 250.0,
// np.percentile([0.1, 0.3, 0.2, 0.4], 99)*1000 = 397.0, max*1000 = 400.0;
// np.median([0.05])*1000 = np.percentile([0.05], 99)*1000 = 50.0.
func TestCalculateProbe(t *testing.T) {
	t.Parallel()
	ok := func(l float64) Output { return Output{Success: true, Latency: l} }
	failed := Output{Error: "boom"}
	tests := []struct {
		name    string
		outputs []Output
		want    *Probe
	}{
		{"four and a failure", []Output{ok(0.1), failed, ok(0.3), ok(0.2), ok(0.4)},
			&Probe{Completed: 4, Failed: 1, MedianE2ELMS: 250, P99E2ELMS: 397, MaxE2ELMS: 400}},
		{"one", []Output{ok(0.05)}, &Probe{Completed: 1, MedianE2ELMS: 50, P99E2ELMS: 50, MaxE2ELMS: 50}},
		// vLLM prints and saves nothing when no probe succeeded.
		{"all failed", []Output{failed, failed}, nil},
		{"none", nil, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, CalculateProbe(tt.outputs)); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.name, diff)
		}
	}
}
