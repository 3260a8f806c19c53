package main

import "runtime/debug"

// gcPercent is the garbage collector's target for gobench's own work
// (GOGC: how far the heap grows past the live heap before the next
// collection). Go's default, 100, lets the heap grow to twice what is
// live; but what a benchmark client keeps live is mostly data that lives
// for the whole run and is never garbage (the prompts, the tokenizer's
// tables while the dataset is built, a buffer and goroutines per
// connection), so that headroom doubled the client's memory to let
// comparatively little garbage pile up. At 4,096 prompts of 1,024 tokens
// and 1,400 streams the run keeps about 60 MB live, and its peak resident
// set was 155-158 MB at 100 against 135-138 MB at 50 (make bench-mem). 50
// costs a collection per half the live heap allocated instead of per the
// whole: while the dataset is generated (garbage-heavy tokenizer work,
// nothing timed) 5-10 % more CPU; while requests are out, whose
// allocations are small (a stream's events), one or two more concurrent
// collections per run, which make bench's CPU per event and timing errors
// at 64 and 512 streams did not tell apart from GOGC=100 (both within the
// run-to-run noise). A GOGC in the environment wins, as the runtime reads
// it.
const gcPercent = 50

// setGC applies gcPercent unless the environment sets GOGC or the command
// is the simulator (`gobench sim`), whose heap is its streams' own
// short-lived state and whose timing is the benchmark's ground truth.
func setGC(getenv func(string) string, args []string) {
	if getenv("GOGC") != "" || (len(args) > 0 && args[0] == "sim") {
		return
	}
	debug.SetGCPercent(gcPercent)
}
