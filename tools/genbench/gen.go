package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/gobench/gobench/datasets"
	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/tokenizer"
)

// genFigure is one dataset's generation speed at one GOMAXPROCS: prompt
// tokens per wall second and per CPU second.
type genFigure struct {
	procs     int
	wall, cpu float64
}

// loadTimed loads the tokenizer runs times and returns the median load
// time (zero for the built-in one, which is compiled in) and the live
// heap the loaded tokenizer holds (after a garbage collection) once the
// tables it builds on its own goroutine after the load are complete
// (tokenizer.WaitBuilt) and it has encoded a few words, so that the figure
// does not depend on how far they got.
func loadTimed(name string, runs int) (time.Duration, uint64, error) {
	if name == tokenizer.BuiltinName {
		start := time.Now()
		tokenizer.Builtin()
		return time.Since(start), 0, nil
	}
	var times []time.Duration
	var heap uint64
	for range max(1, runs) {
		before := liveHeap()
		start := time.Now()
		t, err := tokenizer.Load(name)
		if err != nil {
			return 0, 0, fmt.Errorf("load tokenizer %s: %w", name, err)
		}
		times = append(times, time.Since(start))
		tokenizer.WaitBuilt(t)
		t.Encode("Hello, world: the tokenizer is ready.", false)
		after := liveHeap()
		heap = after - min(before, after)
		runtime.KeepAlive(t)
	}
	return median(times), heap, nil
}

// liveHeap is the heap in use after a garbage collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// genOptions are the options of dataset name: c's prompt count and, for
// random, its input length; the other lengths are vLLM's defaults.
func genOptions(name, dir string, c config) dataset.Options {
	opts := dataset.DefaultOptions()
	opts.Name, opts.NumPrompts, opts.RequestIDPrefix = name, c.numPrompts, "b-"
	switch name {
	case "random":
		opts.RandomInputLen, opts.RandomOutputLen = c.inputLen, 128
	case "sharegpt":
		opts.Path = filepath.Join(dir, "sharegpt.json")
	case "hf":
		opts.Path, opts.HFName, opts.Backend = dir, "philschmid/mt-bench", "openai-chat"
	}
	return opts
}

// newTokenizer returns the tokenizer name: loaded again for a file, so
// that its caches start empty as in a run; the built-in one is one shared
// value, whose caches stay warm from run to run (its 8,192 tokens fill
// them in the first).
func newTokenizer(name string) (tokenizer.Tokenizer, error) {
	if name == tokenizer.BuiltinName {
		return tokenizer.Builtin(), nil
	}
	tok, err := tokenizer.Load(name)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", name, err)
	}
	return tok, nil
}

// generate builds the dataset at GOMAXPROCS procs, runs times, each with
// a freshly loaded tokenizer (newTokenizer), and returns the best prompt
// tokens per wall second and per CPU second; the load is not timed.
func generate(name string, opts dataset.Options, procs, runs int) (wall, cpu float64, err error) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	for run := range max(1, runs) {
		// A seed per run: the prompts differ from run to run.
		opts.Seed = int64(1000*procs + run)
		tok, err := newTokenizer(name)
		if err != nil {
			return 0, 0, err
		}
		// Let the tables the load builds in the background finish
		// outside the timed part.
		tokenizer.WaitBuilt(tok)
		runtime.GC()
		cpu0, start := cpuTime(), time.Now()
		ss, err := dataset.Load(opts, tok, nil, io.Discard)
		if err != nil {
			return 0, 0, fmt.Errorf("%s dataset with %s: %w", opts.Name, tok.Name(), err)
		}
		el, cpuEl := time.Since(start), cpuTime()-cpu0
		tokens := 0
		for _, s := range ss {
			tokens += s.PromptLen
		}
		wall = max(wall, float64(tokens)/el.Seconds())
		cpu = max(cpu, float64(tokens)/cpuEl.Seconds())
	}
	return wall, cpu, nil
}

// writeInputs writes the sharegpt file (2n conversations, so that some
// are filtered out and n remain) and the hf directory (mt-bench's layout:
// train.jsonl with n questions) into dir, made of sonnet.txt's lines.
func writeInputs(dir string, n int) error {
	lines := strings.SplitAfter(datasets.Sonnet, "\n")
	r := rand.New(rand.NewPCG(15, 15))
	text := func(k int) string {
		var b strings.Builder
		for range k {
			b.WriteString(lines[r.IntN(len(lines))])
		}
		return b.String()
	}
	type turn struct {
		From  string `json:"from"`
		Value string `json:"value"`
	}
	type conv struct {
		ID            string `json:"id"`
		Conversations []turn `json:"conversations"`
	}
	convs := make([]conv, 2*n)
	for i := range convs {
		convs[i] = conv{ID: fmt.Sprint(i), Conversations: []turn{{"human", text(4 + r.IntN(60))}, {"gpt", text(2 + r.IntN(30))}}}
	}
	b, err := json.Marshal(convs)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "sharegpt.json"), b, 0o600); err != nil {
		return err
	}
	var jl strings.Builder
	for range n {
		q, err := json.Marshal(map[string][]string{"turns": {text(4 + r.IntN(40)), "x"}})
		if err != nil {
			return err
		}
		jl.Write(q)
		jl.WriteByte('\n')
	}
	return os.WriteFile(filepath.Join(dir, "train.jsonl"), []byte(jl.String()), 0o600)
}
