// Command genbench measures what a run costs before its first request: the
// random dataset's generation (vLLM's algorithm: sample ids, decode,
// re-encode, fix the length) in prompt tokens per second, at each
// GOMAXPROCS asked for; the tokenizer's load; and the start-up of
// `gobench serve` to its first request against the simulator. `make
// bench-gen` runs it.
//
// Generation is timed on the wall clock and on the process's CPU clock
// (user+system from getrusage): on a machine shared with other work the
// wall figure drops while the CPU figure (tokens per CPU-second, i.e. per
// core actually used) stays put, so the two together tell contention from
// a slow-down. Scaling is the wall figure at N procs over the one at 1;
// for more cores pass them to -procs (e.g. -procs 1,2,4,8,16) on a
// machine that has them.
//
// Start-up is the time from starting the serve process to the simulator
// receiving its first completion request, with --num-prompts 1, the median
// of -runs runs; the simulator runs in this process, on 127.0.0.1.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/tokenizer"
)

// Targets of issue 15, printed beside the figures.
const (
	targetTokensPerCore = 3e6
	targetLoad          = 100 * time.Millisecond
	targetStartup       = 50 * time.Millisecond // plus the tokenizer load
)

type config struct {
	tokenizers []string
	procs      []int
	numPrompts int
	inputLen   int
	runs       int
	gobench    string
}

func main() {
	var c config
	var toks, procs string
	flag.StringVar(&toks, "tokenizers", "gobench-builtin,internal/tokenizer/testdata/hf/qwen3", "comma-separated tokenizers: gobench-builtin or a directory with tokenizer.json")
	flag.StringVar(&procs, "procs", "1,2", "comma-separated GOMAXPROCS values to generate at")
	flag.IntVar(&c.numPrompts, "num-prompts", 1000, "prompts to generate")
	flag.IntVar(&c.inputLen, "input-len", 1024, "--random-input-len")
	flag.IntVar(&c.runs, "runs", 3, "runs per figure (the best for generation, the median for load and start-up)")
	flag.StringVar(&c.gobench, "gobench", "", "gobench binary for the start-up figure (none: skip it)")
	flag.Parse()
	c.tokenizers = strings.Split(toks, ",")
	for _, p := range strings.Split(procs, ",") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "genbench: -procs: bad value %q\n", p)
			os.Exit(2)
		}
		c.procs = append(c.procs, n)
	}
	if err := run(c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "genbench:", err)
		os.Exit(1)
	}
}

func run(c config, w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "tokenizer\tfigure\tprocs\tvalue\ttarget\t\n")
	for _, name := range c.tokenizers {
		tok, load, err := loadTimed(name, c.runs)
		if err != nil {
			return err
		}
		short := name[strings.LastIndex(name, "/")+1:]
		fmt.Fprintf(tw, "%s\ttokenizer load\t\t%s\t≤ %s\t\n", short, ms(load), ms(targetLoad))
		for _, p := range c.procs {
			wall, cpu, err := generate(tok, c, p)
			if err != nil {
				return err
			}
			fmt.Fprintf(tw, "%s\trandom gen, wall\t%d\t%s tok/s\t≥ %s tok/s\t\n", short, p, mega(wall), mega(targetTokensPerCore*float64(p)))
			fmt.Fprintf(tw, "%s\trandom gen, per CPU-s\t%d\t%s tok/s\t≥ %s tok/s\t\n", short, p, mega(cpu), mega(targetTokensPerCore))
		}
		if c.gobench != "" {
			d, err := startup(c.gobench, name, c.runs)
			if err != nil {
				return err
			}
			fmt.Fprintf(tw, "%s\tstart-up to 1st request\t\t%s\t≤ %s\t\n", short, ms(d), ms(targetStartup+load))
		}
	}
	return tw.Flush()
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }

func mega(x float64) string { return fmt.Sprintf("%.2f M", x/1e6) }

// loadTimed loads the tokenizer runs times and returns it with the median
// load time (zero for the built-in one, which is compiled in).
func loadTimed(name string, runs int) (tokenizer.Tokenizer, time.Duration, error) {
	if name == tokenizer.BuiltinName {
		start := time.Now()
		tok := tokenizer.Builtin()
		return tok, time.Since(start), nil
	}
	var tok tokenizer.Tokenizer
	var times []time.Duration
	for range max(1, runs) {
		runtime.GC()
		start := time.Now()
		t, err := tokenizer.Load(name)
		if err != nil {
			return nil, 0, fmt.Errorf("load tokenizer %s: %w", name, err)
		}
		times = append(times, time.Since(start))
		tok = t
	}
	return tok, median(times), nil
}

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// generate builds the random dataset at GOMAXPROCS procs, c.runs times, and
// returns the best prompt tokens per wall second and per CPU second.
func generate(tok tokenizer.Tokenizer, c config, procs int) (wall, cpu float64, err error) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	opts := dataset.Options{Name: "random", NumPrompts: c.numPrompts, RandomInputLen: c.inputLen,
		RandomOutputLen: 128, RandomBatchSize: 1}
	for run := range max(1, c.runs) {
		// A seed per run: the prompts differ, so that no run merely reads
		// what the tokenizer's caches kept from the one before.
		opts.Seed = int64(1000*procs + run)
		runtime.GC()
		cpu0, start := cpuTime(), time.Now()
		ss, err := dataset.Load(opts, tok, nil, io.Discard)
		if err != nil {
			return 0, 0, fmt.Errorf("random dataset with %s: %w", tok.Name(), err)
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

// cpuTime is the process's user plus system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// startup runs `gobench serve --num-prompts 1` against an in-process
// simulator runs times and returns the median time from starting the
// process to the simulator receiving the first completion request.
func startup(bin, tok string, runs int) (time.Duration, error) {
	s, err := sim.NewServer(sim.Config{TTFT: time.Millisecond, ITL: time.Millisecond, Tokenizer: tokenizer.Builtin(), Root: tokenizer.BuiltinName})
	if err != nil {
		return 0, fmt.Errorf("simulator: %w", err)
	}
	var mu sync.Mutex
	var first time.Time
	h := s.Handler()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("simulator: %w", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			mu.Lock()
			if first.IsZero() {
				first = time.Now()
			}
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer func() { _ = srv.Shutdown(context.Background()) }()
	base := "http://" + ln.Addr().String()
	var times []time.Duration
	for range max(1, runs) {
		mu.Lock()
		first = time.Time{}
		mu.Unlock()
		cmd := exec.Command(bin, "serve", "--base-url", base, "--model", "gobench/sim", "--tokenizer", tok,
			"--dataset-name", "random", "--num-prompts", "1", "--random-input-len", "1024", "--random-output-len", "4",
			"--disable-tqdm", "--seed", "1")
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return 0, fmt.Errorf("%s serve --tokenizer %s: %w", bin, tok, err)
		}
		mu.Lock()
		f := first
		mu.Unlock()
		if f.IsZero() {
			return 0, errors.New("the serve process sent no completion request")
		}
		times = append(times, f.Sub(start))
	}
	return median(times), nil
}
