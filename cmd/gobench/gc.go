package main

import (
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// The garbage collector's headroom for gobench's own work. Go's default
// (GOGC=100) lets the heap grow to twice what is live; but what a
// benchmark client keeps live is mostly data that lives for the whole run
// and is never garbage (the prompts, the tokenizer's tables while the
// dataset is built, a buffer and goroutines per connection), so on a large
// workload that headroom doubled the client's memory to let comparatively
// little garbage pile up: at 4,096 prompts of 1,024 tokens and 1,400
// streams the run keeps about 60 MB live, and its peak resident set was
// 155-158 MB at GOGC=100 against 135-138 MB at 50 (make bench-mem). On a
// small heap, though, halving the headroom means collecting twice as
// often for a few megabytes: at 512 streams of 100 events (a 15 MB live
// heap) GOGC=50 made 61-63 collections instead of 26-28, about 5 % more
// CPU. So the headroom is half the live heap but at least minHeadroom,
// and at most Go's default once 16 MB are live: GOGC 100 at 16 MB, falling
// to 50 from 32 MB. Below 16 MB it is up to twice the live heap (GOGC
// maxGCPercent), set before anything runs: a process start with the
// built-in tokenizer then collects first after its first request, at 8
// MB, where it collected three times before it, at 4-5 MB, and reaches
// that request 5-8 ms sooner (genbench, paired: 60.5/60.8/59.0/56.1/53.6/
// 54.1 -> 48.7/56.7/55.6/48.4/48.0/49.0 ms). More slowed Qwen3's start: at
// 400 its load (45 MB allocated, 28 MB of it garbage) collected too late
// to reuse its garbage and touched that many more fresh pages (paired
// 200/209/203/209 -> 209/238/249/247 ms); at 200 it is unchanged, and so
// are make bench-mem's peaks. gcControl follows the live heap, so the
// dataset's generation (large, garbage-heavy tokenizer work, nothing
// timed) and a large run get the smaller headroom (136.9 and 145.2 MB
// peaks with the built-in and Qwen3 tokenizers), a small run nearly Go's
// default (32 collections in the 512-stream run). A GOGC in the
// environment wins, as the runtime reads it.
const (
	minHeadroom  = 16 << 20
	minGCPercent = 50
	maxGCPercent = 200
)

// gcPercentFor is the GC target for a live heap of live bytes: headroom
// max(live/2, minHeadroom), at most live (GOGC 100) once the heap holds
// minHeadroom, and at most maxGCPercent before.
func gcPercentFor(live uint64) int {
	if live < minHeadroom {
		return int(min(maxGCPercent, 100*uint64(minHeadroom)/max(live, 1)))
	}
	return int(min(100, max(minGCPercent, 100*uint64(minHeadroom)/live)))
}

// gcControlEvery is how often gcControl reads the live heap: a read of
// runtime/metrics, no stop of the world.
const gcControlEvery = 100 * time.Millisecond

// gcControl sets the GC target from the live heap (gcPercentFor) until
// stop is called, unless the environment sets GOGC or the command is the
// simulator (`gobench sim`), whose heap is its streams' own short-lived
// state and whose timing is the benchmark's ground truth. The target is
// changed only when it moves by 5 points or reaches a bound, so a heap
// that wavers does not make it change at every tick.
func gcControl(getenv func(string) string, args []string) (stop func()) {
	if getenv("GOGC") != "" || (len(args) > 0 && args[0] == "sim") {
		return func() {}
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	cur := 100
	adjust := func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		p := gcPercentFor(sample[0].Value.Uint64())
		if d := p - cur; d >= 5 || d <= -5 || (d != 0 && (p == minGCPercent || p == 100)) {
			debug.SetGCPercent(p)
			cur = p
		}
	}
	adjust()
	return every(gcControlEvery, adjust)
}

// every calls f every d on a goroutine of its own until stop is called
// (gcControl, the heap profile's peak watcher).
func every(d time.Duration, f func()) (stop func()) {
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(d)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				f()
			}
		}
	}()
	return func() { close(done) }
}
