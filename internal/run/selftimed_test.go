package run

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/schedule"
)

// TestSelfTimedArrivals: each request is due at its timestamp, absolute
// and not normalised, rate 0 as vLLM yields it; a request without one is
// due at once; a timestamp no run can wait for is refused.
func TestSelfTimedArrivals(t *testing.T) {
	t.Parallel()
	ts := func(v float64) *float64 { return &v }
	got, err := selfTimedArrivals([]dataset.Sample{{Timestamp: ts(5)}, {}, {Timestamp: ts(0.25)}, {Timestamp: ts(7.5)}})
	if err != nil {
		t.Fatal(err)
	}
	want := []schedule.Arrival{{Offset: 5}, {Offset: 0}, {Offset: 0.25}, {Offset: 7.5}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("arrivals (-want +got):\n%s", diff)
	}
	if _, err := selfTimedArrivals([]dataset.Sample{{Timestamp: ts(1e12)}}); err == nil || !strings.Contains(err.Error(), "292 years") {
		t.Errorf("a timestamp of 1e12 s: error %v", err)
	}
}
