//go:build !unix

package sim

import "time"

// processCPU is not measured on this platform; benchmarks then omit the
// CPU metric.
func processCPU() time.Duration { return 0 }
