package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/gobench/gobench/tools/internal/benchrow"
)

// machine is what the notes say of the machine: its cores and the load
// average when genbench started (other work on it slows the wall figures).
func machine() string {
	load := "unknown"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			load = f[0]
		}
	}
	return fmt.Sprintf("%d-core machine, load average %s at the start", runtime.NumCPU(), load)
}

// generationRows are one dataset's rows: the prompt tokens per CPU-second
// at one proc against the per-core target, then each larger proc count's
// wall figure against the target times the procs, with its scaling.
func generationRows(tok, ds, shared string, figs []genFigure) []benchrow.Row {
	var rows []benchrow.Row
	var one *genFigure
	for i, f := range figs {
		if f.procs == 1 {
			one = &figs[i]
			rows = append(rows, benchrow.Row{Group: "generation", Figure: fmt.Sprintf("%s, %s, per core", ds, tok),
				Value: f.cpu / 1e6, Unit: "Mtok/s", Target: ">= 3 Mtok/s per core", Met: benchrow.Judged(f.cpu >= targetTokensPerCore),
				Note: fmt.Sprintf("prompt tokens per CPU-second, 1 core; %s", shared)})
		}
	}
	for _, f := range figs {
		if f.procs == 1 {
			continue
		}
		note := fmt.Sprintf("prompt tokens per wall second; %.2f Mtok/s per CPU-second; %s", f.cpu/1e6, shared)
		if one != nil {
			note += fmt.Sprintf("; %.2fx the 1-core wall figure", f.wall/one.wall)
		}
		target := targetTokensPerCore * float64(f.procs)
		rows = append(rows, benchrow.Row{Group: "generation", Figure: fmt.Sprintf("%s, %s, %d cores", ds, tok, f.procs),
			Value: f.wall / 1e6, Unit: "Mtok/s", Target: fmt.Sprintf(">= %g Mtok/s (3 per core)", target/1e6),
			Met: benchrow.Judged(f.wall >= target), Note: note})
	}
	return rows
}

// loadRows are the tokenizer's load time and the heap it keeps.
func loadRows(tok, shared string, load time.Duration, heap uint64) []benchrow.Row {
	return []benchrow.Row{
		{Group: "startup", Figure: tok + " tokenizer load", Value: float64(load) / 1e6, Unit: "ms",
			Target: "<= 100 ms", Met: benchrow.Judged(load <= targetLoad), Note: "tokenizer.Load of tokenizer.json, median; " + shared},
		{Group: "memory", Figure: tok + " tokenizer, live heap", Value: float64(heap) / 1e6, Unit: "MB",
			Note: "heap in use after loading it, after a garbage collection"},
	}
}

// startupRow is the time to the first request against its target.
func startupRow(tok, shared string, d, load time.Duration) benchrow.Row {
	target := targetStartup + load
	return benchrow.Row{Group: "startup", Figure: "start-up to 1st request, " + tok, Value: float64(d) / 1e6, Unit: "ms",
		Target: fmt.Sprintf("<= 50 ms + load (%.0f ms)", float64(target)/1e6), Met: benchrow.Judged(d <= target),
		Note: "serve --num-prompts 1 to the simulator's first request, median; simulator and client share the " + shared}
}
