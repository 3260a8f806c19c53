package main

import (
	"runtime/debug"
	"testing"
)

// TestSetGC: gobench's GC target applies to its commands, not to the
// simulator, and a GOGC in the environment wins. Not parallel: it sets the
// process's GC target (and restores it).
func TestSetGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	tests := []struct {
		name string
		gogc string
		args []string
		want int
	}{
		{"serve", "", []string{"serve", "--sim"}, gcPercent},
		{"no command", "", nil, gcPercent},
		{"the simulator keeps Go's default", "", []string{"sim", "--port", "0"}, 100},
		{"GOGC in the environment wins", "200", []string{"serve"}, 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			debug.SetGCPercent(100)
			setGC(func(k string) string {
				if k == "GOGC" {
					return tc.gogc
				}
				return ""
			}, tc.args)
			if got := debug.SetGCPercent(100); got != tc.want {
				t.Errorf("GC percent %d, want %d", got, tc.want)
			}
		})
	}
}
