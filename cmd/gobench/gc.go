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
// CPU. So the headroom is half the live heap but at least minHeadroom (and
// at most Go's default): GOGC 100 up to 16 MB live, falling to 50 from 32
// MB. gcControl follows the live heap, so the dataset's generation (large,
// garbage-heavy tokenizer work, nothing timed) and a large run get the
// smaller headroom (136.9 and 145.2 MB peaks with the built-in and Qwen3
// tokenizers), a small run nearly Go's default (32 collections in the
// 512-stream run). A GOGC in the environment wins, as the runtime reads
// it.
const (
	minHeadroom  = 16 << 20
	minGCPercent = 50
)

// gcPercentFor is the GC target for a live heap of live bytes: headroom
// max(live/2, minHeadroom), at most live (GOGC 100).
func gcPercentFor(live uint64) int {
	if live == 0 {
		return 100
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
