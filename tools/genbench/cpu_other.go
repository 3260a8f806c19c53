//go:build !unix

package main

import "time"

// cpuTime is 0 where getrusage is missing: the CPU-second figures then
// read +Inf, and only the wall figures mean anything.
func cpuTime() time.Duration { return 0 }
