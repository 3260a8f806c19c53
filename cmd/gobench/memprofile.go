package main

import (
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/gobench/gobench/internal/atomicfile"
)

// memProfileEnv names the hidden, documented (README "Client overhead")
// environment variable that makes gobench write a Go heap profile: to the
// file it names, rewritten whenever the live heap grows past its previous
// peak by a tenth, and once more at exit, so that the file shows where the
// memory was at the run's peak (go tool pprof -sample_index=inuse_space).
// It is an environment variable, not a flag, because vLLM has no such flag.
const memProfileEnv = "GOBENCH_MEMPROFILE"

// startMemProfile starts the peak watcher when GOBENCH_MEMPROFILE is set
// and returns the function that writes the last profile at exit.
func startMemProfile(path string) (stop func()) {
	if path == "" {
		return func() {}
	}
	runtime.MemProfileRate = 64 << 10
	// Replaced whole, never truncated in place: a reader (or the exit)
	// never meets half a profile.
	write := func() {
		p, err := atomicfile.Prepare(filepath.Dir(path), filepath.Base(path))
		if err != nil {
			return
		}
		if err := pprof.Lookup("heap").WriteTo(p, 0); err != nil {
			p.Abort()
			return
		}
		_ = p.Commit(path)
	}
	var peak uint64
	var ms runtime.MemStats
	return every(100*time.Millisecond, func() {
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > peak+peak/10 {
			peak = ms.HeapAlloc
			write()
		}
	})
}
