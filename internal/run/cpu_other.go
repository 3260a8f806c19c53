//go:build !unix

package run

// processCPU reports that the CPU time is not known: the platform has no
// getrusage (Windows, wasm), and the run prints no CPU share.
func processCPU() (seconds float64, ok bool) { return 0, false }
