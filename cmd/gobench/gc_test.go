package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// TestGCPercentFor: the headroom is half the live heap but at least 16 MB,
// never more than Go's default from 16 MB live, and at most twice the live
// heap below.
func TestGCPercentFor(t *testing.T) {
	t.Parallel()
	const mb = 1 << 20
	tests := []struct {
		live uint64
		want int
	}{
		{0, 200}, {1 * mb, 200}, {8 * mb, 200}, {10 * mb, 160}, {16*mb - 1, 100}, {16 * mb, 100},
		{20 * mb, 80}, {32 * mb, 50}, {500 * mb, 50},
	}
	for _, tc := range tests {
		if got := gcPercentFor(tc.live); got != tc.want {
			t.Errorf("gcPercentFor(%d MB) = %d, want %d", tc.live/mb, got, tc.want)
		}
	}
}

// TestGCControlLeavesSimAndGOGCAlone: the simulator and a GOGC in the
// environment keep the runtime's target. Not parallel: it reads the
// process's GC target (and restores it).
func TestGCControlLeavesSimAndGOGCAlone(t *testing.T) {
	prev := debug.SetGCPercent(123)
	defer debug.SetGCPercent(prev)
	for _, tc := range []struct {
		name, gogc string
		args       []string
	}{
		{"the simulator", "", []string{"sim", "--port", "0"}},
		{"GOGC in the environment", "200", []string{"serve"}},
	} {
		stop := gcControl(func(k string) string {
			if k == "GOGC" {
				return tc.gogc
			}
			return ""
		}, tc.args)
		time.Sleep(3 * gcControlEvery)
		stop()
		if got := debug.SetGCPercent(123); got != 123 {
			t.Errorf("%s: GC percent %d, want it left at 123", tc.name, got)
		}
	}
}

// TestGCControlSetsTheTargetAtOnce: the target is set when gcControl
// starts, not at its first tick, so that a process start (the tokenizer's
// load, the first prompts) runs with it. Not parallel: it reads the
// process's GC target (and restores it).
func TestGCControlSetsTheTargetAtOnce(t *testing.T) {
	prev := debug.SetGCPercent(123)
	defer debug.SetGCPercent(prev)
	// The live heap as of a collection made now, read again after: the
	// target is the one for either reading (a collection between them
	// could move it).
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	before := gcPercentFor(sample[0].Value.Uint64())
	stop := gcControl(func(string) string { return "" }, []string{"serve"})
	stop()
	got := debug.SetGCPercent(123)
	metrics.Read(sample)
	if after := gcPercentFor(sample[0].Value.Uint64()); got != before && got != after {
		t.Errorf("GC percent %d right after gcControl started, want %d (or %d)", got, before, after)
	}
}
