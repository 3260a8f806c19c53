// Command genbench measures what a run costs before its first request:
// dataset generation in prompt tokens per second (the random dataset,
// vLLM's algorithm: sample ids, decode, re-encode, fix the length; and the
// other datasets that tokenize: sharegpt, sonnet, prefix_repetition and
// hf), at each GOMAXPROCS asked for; the tokenizer's load and the heap it
// keeps; and the start-up of `gobench serve` to its first request against
// the simulator. `make bench-gen` runs it; with -rows FILE it also appends
// its figures as rows of `make bench`'s table (tools/benchtable).
//
// Each generation run starts with a freshly loaded tokenizer, so that its
// caches start empty as in a real run (the load itself is not timed), and
// draws other prompts (another seed). Generation is timed on the wall clock and on the process's CPU clock
// (user+system from getrusage): on a machine shared with other work the
// wall figure drops while the CPU figure (tokens per CPU-second, i.e. per
// core actually used) stays put, so the two together tell contention from
// a slow-down. Scaling is the wall figure at N procs over the one at 1.
// For more cores pass them to -procs (e.g. -procs 1,2,4,8,16) on a
// machine that has them: the per-core target holds when the CPU figure
// stays at or above it at every N and the wall figure grows with N.
//
// The sharegpt and hf (mt-bench's class) inputs are written to a temporary
// directory: conversations and questions made of lines of vLLM's
// sonnet.txt, a fixed pseudo-random choice, so that every run measures the
// same text. Datasets other than random run with the tokenizers that have
// a chat template (sonnet and hf format their prompts with it), so not
// with the built-in one.
//
// Start-up is the time from starting the serve process to the simulator
// receiving its first completion request, with --num-prompts 1, the median
// of -runs runs; the simulator runs in this process, on 127.0.0.1.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gobench/gobench/tools/internal/benchrow"
)

// Targets, printed beside the figures.
const (
	targetTokensPerCore = 3e6
	targetLoad          = 100 * time.Millisecond
	targetStartup       = 50 * time.Millisecond // plus the tokenizer load
)

type config struct {
	tokenizers []string
	datasets   []string
	procs      []int
	numPrompts int
	inputLen   int
	runs       int
	gobench    string
	rows       string
	cpuProfile string
}

func main() {
	var c config
	var toks, procs, sets string
	flag.StringVar(&toks, "tokenizers", "gobench-builtin,internal/tokenizer/testdata/hf/qwen3", "comma-separated tokenizers: gobench-builtin or a directory with tokenizer.json")
	flag.StringVar(&sets, "datasets", "random,sharegpt,sonnet,prefix_repetition,hf", "comma-separated datasets to generate")
	flag.StringVar(&procs, "procs", "1,2", "comma-separated GOMAXPROCS values to generate at")
	flag.IntVar(&c.numPrompts, "num-prompts", 1000, "prompts to generate")
	flag.IntVar(&c.inputLen, "input-len", 1024, "--random-input-len")
	flag.IntVar(&c.runs, "runs", 3, "runs per figure (the best for generation, the median for load and start-up)")
	flag.StringVar(&c.gobench, "gobench", "", "gobench binary for the start-up figure (none: skip it)")
	flag.StringVar(&c.rows, "rows", "", "append the figures to this file as JSON lines for tools/benchtable")
	flag.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the generation runs to this file")
	flag.Parse()
	c.tokenizers = strings.Split(toks, ",")
	c.datasets = strings.Split(sets, ",")
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
	dir, err := os.MkdirTemp("", "genbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := writeInputs(dir, c.numPrompts); err != nil {
		return err
	}
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "tokenizer\tfigure\tprocs\tvalue\ttarget\t\n")
	var rows []benchrow.Row
	shared := machine()
	for _, name := range c.tokenizers {
		r, err := measureTokenizer(tw, c, dir, name, shared)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if c.rows == "" {
		return nil
	}
	return benchrow.Append(c.rows, rows)
}

// measureTokenizer prints and returns the figures of one tokenizer.
func measureTokenizer(tw io.Writer, c config, dir, name, shared string) ([]benchrow.Row, error) {
	load, heap, err := loadTimed(name, c.runs)
	if err != nil {
		return nil, err
	}
	short := shortName(name)
	builtin := short == "gobench-builtin"
	fmt.Fprintf(tw, "%s\ttokenizer load\t\t%s\t≤ %s\t\n", short, ms(load), ms(targetLoad))
	fmt.Fprintf(tw, "%s\tlive heap after load\t\t%.1f MB\t\t\n", short, float64(heap)/1e6)
	var rows []benchrow.Row
	if !builtin {
		rows = append(rows, loadRows(short, shared, load, heap)...)
	}
	for _, ds := range c.datasets {
		if ds != "random" && builtin {
			continue // no chat template
		}
		var figs []genFigure
		for _, p := range c.procs {
			wall, cpu, err := generate(name, genOptions(ds, dir, c), p, c.runs)
			if err != nil {
				return nil, err
			}
			figs = append(figs, genFigure{procs: p, wall: wall, cpu: cpu})
			fmt.Fprintf(tw, "%s\t%s gen, wall\t%d\t%s tok/s\t≥ %s tok/s\t\n", short, ds, p, mega(wall), mega(targetTokensPerCore*float64(p)))
			fmt.Fprintf(tw, "%s\t%s gen, per CPU-s\t%d\t%s tok/s\t≥ %s tok/s\t\n", short, ds, p, mega(cpu), mega(targetTokensPerCore))
		}
		rows = append(rows, generationRows(short, ds, shared, figs)...)
	}
	if c.gobench != "" {
		d, err := startup(c.gobench, name, c.runs)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(tw, "%s\tstart-up to 1st request\t\t%s\t≤ %s\t\n", short, ms(d), ms(targetStartup+load))
		rows = append(rows, startupRow(short, shared, d, load))
	}
	return rows, nil
}

// shortName is the tokenizer's directory name.
func shortName(name string) string { return name[strings.LastIndex(name, "/")+1:] }

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }

func mega(x float64) string { return fmt.Sprintf("%.2f M", x/1e6) }
