//go:build linux

package sim

import "golang.org/x/sys/unix"

// clockName is the system clock record times are read on.
const clockName = "CLOCK_MONOTONIC"

// readSystemClock reads CLOCK_MONOTONIC in nanoseconds: one clock for every
// process on the machine, never stepped, and the clock of Python's
// time.perf_counter() and time.monotonic() on Linux, so the instants of a
// record compare directly with vllm bench serve's start_times.
func readSystemClock() (int64, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0, false
	}
	return ts.Nano(), true
}
