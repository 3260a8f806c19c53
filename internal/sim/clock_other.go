//go:build !linux

package sim

// clockName is the system clock record times are read on.
const clockName = "CLOCK_REALTIME"

// readSystemClock has no portable monotonic clock shared between processes
// outside Linux; the record falls back to wall-clock nanoseconds.
func readSystemClock() (int64, bool) { return 0, false }
