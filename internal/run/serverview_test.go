package run

import (
	"math"
	"testing"
)

// TestExpectedPrefixHitRate: a random workload with a shared prefix of P
// tokens before I random ones should hit 80 % of P/(P+I); other workloads
// leave the expectation unknown (0).
func TestExpectedPrefixHitRate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		prefix, input int
		dataset       string
		want          float64
	}{
		{"no prefix", 0, 1024, "random", 0},
		{"2000 of 2032 shared", 2000, 32, "random", 0.8 * 2000 / 2032},
		{"half shared", 512, 512, "random", 0.4},
		{"not random", 512, 512, "sharegpt", 0},
	} {
		o := DefaultOptions()
		o.Dataset.Name, o.Dataset.RandomPrefixLen, o.Dataset.RandomInputLen = tc.dataset, tc.prefix, tc.input
		if got := expectedPrefixHitRate(&o); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
