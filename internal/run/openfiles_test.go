package run

import (
	"math"
	"strings"
	"testing"
)

// TestInProcessConns: with the server in this process every connection
// holds two descriptors, so the run holds at most half of what the limit
// leaves besides openFilesReserve; an unknown or huge limit bounds
// nothing, and one too small for a single connection is an error that
// names the limit and what to do.
func TestInProcessConns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		limit   uint64
		want    int
		wantErr string
	}{
		{limit: 0, want: 0},
		{limit: 1 << 40, want: 0},
		{limit: 1 << 20, want: (1<<20 - openFilesReserve) / 2},
		{limit: 256, want: 112},
		{limit: openFilesReserve + 2, want: 1},
		{limit: openFilesReserve + 1, wantErr: "may open only 33 files (ulimit -n)"},
		{limit: 8, wantErr: "raise the limit (ulimit -n 4096)"},
	} {
		got, err := inProcessConns(tc.limit)
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("limit %d: err = %v, want %q", tc.limit, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || got != tc.want):
			t.Errorf("limit %d: %d, %v; want %d", tc.limit, got, err, tc.want)
		}
	}
}

// TestWarnOpenFiles: the warning before the run. With the server in this
// process and the bound lowered it says so, with the limit that would let
// every request (or the warm-ups that go at once) through; otherwise it
// warns when --max-concurrency or a run all at once needs more
// descriptors than the limit, and says nothing when the run fits or its
// overlap is not known.
func TestWarnOpenFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name              string
		jobs, mc, warmups int
		rate              float64
		inFlight          int
		fdBound           bool
		limit             uint64
		want              string
	}{
		{name: "in process", jobs: 1000, rate: math.Inf(1), inFlight: 112, fdBound: true, limit: 256,
			want: "at most 112 requests are sent at once, the others wait for a slot as with --max-concurrency 112 (the wait is client queue time). Raise the limit (ulimit -n 2032)"},
		{name: "in process, warm-ups", jobs: 10, mc: 500, warmups: 1000, rate: math.Inf(1), inFlight: 112, fdBound: true, limit: 256,
			want: "Raise the limit (ulimit -n 1032)"},
		{name: "max-concurrency too high", jobs: 600, mc: 500, rate: math.Inf(1), inFlight: 500, limit: 128,
			want: "the run may hold 500 connections (--max-concurrency 500), but this process may open only 128 files"},
		{name: "max-concurrency above the requests", jobs: 600, mc: 1000, rate: math.Inf(1), inFlight: 1000, limit: 128,
			want: "the run may hold 600 connections (every request at once: --request-rate inf, and --max-concurrency 1000 is not below the 600 requests)"},
		{name: "all at once", jobs: 600, rate: math.Inf(1), limit: 128,
			want: "(every request at once: --request-rate inf and no --max-concurrency)"},
		{name: "overlap unknown with max-concurrency", jobs: 600, mc: 1000, rate: 10, limit: 128},
		{name: "fits", jobs: 600, mc: 50, rate: math.Inf(1), inFlight: 50, limit: 128},
		{name: "overlap unknown", jobs: 600, rate: 10, limit: 128},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			p := &Plan{Options: DefaultOptions(), jobs: make([]job, tc.jobs), inFlight: tc.inFlight, fdBound: tc.fdBound}
			p.Options.MaxConcurrency, p.Options.NumWarmups, p.Options.Schedule.RequestRate = tc.mc, tc.warmups, tc.rate
			x := &execution{Plan: p, env: Env{Stderr: &b}}
			x.warnOpenFiles(tc.limit)
			if got := b.String(); tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("warned %q, want %q", got, tc.want)
			}
		})
	}
}
