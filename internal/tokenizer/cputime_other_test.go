//go:build !unix

package tokenizer

import "time"

// cpuTime is 0 where getrusage is missing: the per-CPU-second benchmark
// figures then read +Inf.
func cpuTime() time.Duration { return 0 }
