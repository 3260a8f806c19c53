package run

import (
	"math"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/metrics"
)

// outcomes is a run of ok successful and failed failed requests, each
// failure with text.
func outcomes(ok, failed int, text string) *metrics.Result {
	outs := make([]metrics.Output, ok+failed)
	for i := range outs {
		outs[i].Success = i < ok
		if i >= ok {
			outs[i].Error = text
		}
	}
	r := metrics.Calculate(outs, 1, metrics.Config{})
	return &r
}

func TestMaxFailedRatio(t *testing.T) {
	t.Parallel()
	ratio := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		name       string
		max        *float64
		ok, failed int
		fails      bool
	}{
		{"off", nil, 8, 92, false},
		{"within", ratio(0.1), 90, 10, false},
		{"above", ratio(0.1), 89, 11, true},
		{"zero allows none", ratio(0), 99, 1, true},
		{"zero without failures", ratio(0), 100, 0, false},
	} {
		o := Options{MaxFailedRatio: tc.max}
		err := o.checkFailedRatio(outcomes(tc.ok, tc.failed, "HTTP 503 Service Unavailable"))
		if (err != nil) != tc.fails {
			t.Errorf("%s: err %v, want failing %v", tc.name, err, tc.fails)
		}
		if err != nil && (exitcode.Of(err) != exitcode.AllFailed || !strings.Contains(err.Error(), "--max-failed-ratio")) {
			t.Errorf("%s: err %v (status %d), want status 3 naming the flag", tc.name, err, exitcode.Of(err))
		}
	}
	for _, bad := range []float64{-0.1, 1.5, math.NaN()} {
		o := Options{MaxFailedRatio: &bad}
		if err := o.validateFailedRatio(); err == nil || !strings.Contains(err.Error(), "--max-failed-ratio") {
			t.Errorf("--max-failed-ratio %v: err %v", bad, err)
		}
	}
}

// TestLagWarningWhenTheServerDies: a run whose requests mostly failed on
// broken connections does not blame the client for its schedule lag; a
// healthy run with the same lag does.
func TestLagWarningWhenTheServerDies(t *testing.T) {
	t.Parallel()
	load := &metrics.ClientLoad{Lags: []float64{0.2, 0.3, 0.5}, WarnLag: 0.01}
	for _, tc := range []struct {
		name       string
		ok, failed int
		blames     bool
	}{
		{"healthy", 100, 0, true},
		{"a few failures", 90, 10, true},
		{"server died", 8, 92, false},
	} {
		w := lagWarning(load, outcomes(tc.ok, tc.failed, `Post "http://127.0.0.1:9/v1/completions": unexpected EOF`))
		if w == "" {
			t.Fatalf("%s: no warning", tc.name)
		}
		if blames := strings.Contains(w, "client may have been the bottleneck"); blames != tc.blames {
			t.Errorf("%s: blames the client %v, want %v:\n%s", tc.name, blames, tc.blames, w)
		}
		if !tc.blames && !strings.Contains(w, "92 of 100 requests failed (most: connection closed (unexpected EOF))") {
			t.Errorf("%s: warning does not name the failures:\n%s", tc.name, w)
		}
	}
	calm := &metrics.ClientLoad{Lags: []float64{0.001}, WarnLag: 0.01}
	if w := lagWarning(calm, outcomes(8, 92, "EOF")); w != "" {
		t.Errorf("a lag within bounds warned: %s", w)
	}
}
