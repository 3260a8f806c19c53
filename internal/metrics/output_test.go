package metrics

import (
	"math"
	"testing"
	"time"
)

// TestFitsDuration: a time.Duration holds ±2**63 ns, about ±9.22e9 s.
func TestFitsDuration(t *testing.T) {
	t.Parallel()
	for v, want := range map[float64]bool{0: true, 1: true, -1: true, 9.2e9: true, 9.3e9: false, math.Inf(1): false, math.NaN(): false, 1e300: false} {
		if got := FitsDuration(v); got != want {
			t.Errorf("FitsDuration(%v) = %t", v, got)
		}
	}
	if got := Duration(1.5); got != 1500*time.Millisecond {
		t.Errorf("Duration(1.5) = %v", got)
	}
}
