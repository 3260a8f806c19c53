// Command membench prints gobench's memory table (make bench-mem): the
// client's peak resident set in `serve` and `--dry-run` for 4,096 random
// prompts of 1,024 tokens, 16 out, at --max-concurrency 1400 (with the
// built-in tokenizer, and with Qwen3's when its test copy is there), the
// bytes a planned request keeps beyond its prompt, and the client's bytes
// per idle stream with 10,000 streams open, each figure beside its
// target. The figures are measurements of this machine, printed and never
// asserted; with -rows FILE they are also appended to FILE as rows of
// `make bench`'s table (tools/benchtable).
//
// Peak resident sets come from the kernel (wait4's ru_maxrss) of the real
// binary given with -gobench, the median of -runs runs. `serve` is measured
// against `gobench sim` in a process of its own, so that the figure is the
// client's alone, as the target and its bar (vLLM's Rust client,
// under 100 MB at 1,400 concurrent requests) are; `serve --sim`, which runs
// the simulator and its 1,400 server-side streams inside the client's
// process, is printed beside it for information (-insim). The bytes per
// request are measured in this process: the live heap after a garbage
// collection with a planned 4,096-request dry run held, minus the heap
// before and minus the prompts' own bytes, divided by the requests, plus the
// size of the record each request's measurement becomes (metrics.Output,
// without its ITL samples and generated text). The bytes per idle stream
// are the client's peak resident set with 10,000 streams open (the
// simulator in a process of its own, tokens two seconds apart) minus its
// peak with one, divided by 9,999, the median of -runs such runs.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/run"
	"github.com/gobench/gobench/internal/tokenizer"
	"github.com/gobench/gobench/tools/internal/benchrow"
)

// The workload of the memory figures.
const (
	numPrompts     = 4096
	inputLen       = 1024
	outputLen      = 16
	maxConcurrency = 1400
)

// The targets.
const (
	targetPeakMB    = 150
	targetPerReqB   = 2048
	targetPerIdleKB = 30
)

// config is the command line.
type config struct {
	bin, qwen, rows string
	streams, runs   int
	inSim           bool
	// engines are the --client-engine values the idle streams are
	// measured with, a row each; idleOnly skips the other figures.
	engines  []string
	idleOnly bool
}

func main() {
	var c config
	flag.StringVar(&c.bin, "gobench", "bin/gobench", "the gobench binary to measure")
	flag.StringVar(&c.qwen, "qwen3", "internal/tokenizer/testdata/hf/qwen3", "Qwen3's tokenizer folder (rows skipped when absent)")
	flag.IntVar(&c.streams, "streams", 10000, "idle streams to hold open (0 skips the row)")
	flag.IntVar(&c.runs, "runs", 3, "runs of each peak resident set; the median is printed")
	flag.BoolVar(&c.inSim, "insim", true, "also measure serve --sim (client and simulator in one process), for information")
	flag.StringVar(&c.rows, "rows", "", "append the figures to this file as JSON lines for tools/benchtable")
	engines := flag.String("engines", "net/http", "comma-separated client engines (serve --client-engine) of the idle-stream figure, a row each")
	flag.BoolVar(&c.idleOnly, "idle-only", false, "measure only the bytes per idle stream")
	flag.Parse()
	c.engines = strings.Split(*engines, ",")
	rows, err := table(os.Stdout, c)
	if err == nil && c.rows != "" {
		err = benchrow.Append(c.rows, rows)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "membench:", err)
		os.Exit(1)
	}
}

// table measures every figure, printing each row as it comes.
func table(w io.Writer, c config) ([]benchrow.Row, error) {
	fmt.Fprintf(w, "workload: random, %d prompts of %d tokens, %d out, --max-concurrency %d; peaks: median of %d runs\n\n",
		numPrompts, inputLen, outputLen, maxConcurrency, c.runs)
	fmt.Fprintf(w, "%-56s %14s  %s\n", "figure", "measured", "target")
	var rows []benchrow.Row
	add := func(r benchrow.Row) {
		r.Value = math.Round(r.Value*10) / 10
		rows = append(rows, r)
		fmt.Fprintf(w, "%-56s %11.1f %-2s  %s\n", r.Figure, r.Value, r.Unit, r.Target)
	}
	if !c.idleOnly {
		if err := serveRows(c, add); err != nil {
			return nil, err
		}
		perReq, err := retainedPerRequest()
		if err != nil {
			return nil, err
		}
		add(benchrow.Row{Group: "memory", Figure: "retained per request beyond prompt, ITL", Value: perReq, Unit: "B",
			Target: fmt.Sprintf("<= %d B", targetPerReqB), Met: benchrow.Judged(perReq <= targetPerReqB),
			Note: "live heap of a planned 4,096-request dry run per request, minus its prompt, plus its record"})
	}
	for _, engine := range c.engines {
		if c.streams <= 0 {
			break
		}
		// The figure moves by several KB from run to run on a shared
		// machine (27.7-38.5 KB on two days for one build), so it is the
		// median of -runs runs, with their range in the note.
		var each []float64
		for range max(c.runs, 1) {
			perStream, err := idleStreams(c.bin, c.streams, strings.TrimSpace(engine))
			if err != nil {
				return nil, err
			}
			each = append(each, perStream/1000)
		}
		slices.Sort(each)
		kb := each[len(each)/2]
		figure := fmt.Sprintf("client per idle stream (%d streams)", c.streams)
		if e := strings.TrimSpace(engine); e != "net/http" {
			figure = fmt.Sprintf("client per idle stream, --client-engine %s (%d streams)", e, c.streams)
		}
		add(benchrow.Row{Group: "memory", Figure: figure, Value: kb, Unit: "KB",
			Target: fmt.Sprintf("<= %d KB", targetPerIdleKB), Met: benchrow.Judged(kb <= targetPerIdleKB),
			Note: fmt.Sprintf("client peak RSS with N streams minus with 1, over N-1, median of %d runs (%.3g-%.3g KB); gobench sim in its own process; %s",
				len(each), each[0], each[len(each)-1], shared)})
	}
	return rows, nil
}

// serveRows measures the client's peak resident set in the workload with
// each tokenizer: against `gobench sim` in a process of its own (the
// target's figure), as a dry run, and with --sim in its process.
func serveRows(c config, add func(benchrow.Row)) error {
	toks := []struct{ name, arg string }{{"built-in tokenizer", tokenizer.BuiltinName}}
	if _, err := os.Stat(filepath.Join(c.qwen, "tokenizer.json")); err == nil {
		toks = append(toks, struct{ name, arg string }{"Qwen3 tokenizer", c.qwen})
	}
	workload := []string{"serve", "--dataset-name", "random", "--random-input-len", strconv.Itoa(inputLen),
		"--random-output-len", strconv.Itoa(outputLen), "--num-prompts", strconv.Itoa(numPrompts),
		"--max-concurrency", strconv.Itoa(maxConcurrency), "--seed", "0", "--disable-tqdm"}
	for _, tok := range toks {
		args := append(slices.Clone(workload), "--tokenizer", tok.arg)
		// The simulator counts prompt tokens with the run's tokenizer, as
		// a server of that model does: the prompts need no re-alignment.
		var simArgs []string
		if tok.arg != tokenizer.BuiltinName {
			simArgs = []string{"--tokenizer", tok.arg}
		}
		url, stop, err := startSim(c.bin, simArgs...)
		if err != nil {
			return err
		}
		mb, err := medianPeakMB(c, append(slices.Clone(args), "--base-url", url))
		stop()
		if err != nil {
			return err
		}
		add(benchrow.Row{Group: "memory", Figure: "peak RSS, serve, " + tok.name, Value: mb, Unit: "MB",
			Target: fmt.Sprintf("<= %d MB", targetPeakMB), Met: benchrow.Judged(mb <= targetPeakMB),
			Note: "the client alone, against gobench sim in its own process; " + shared})
		if mb, err = medianPeakMB(c, append(slices.Clone(args), "--dry-run")); err != nil {
			return err
		}
		add(benchrow.Row{Group: "memory", Figure: "peak RSS, --dry-run, " + tok.name, Value: mb, Unit: "MB",
			Note: "the plan alone: tokenizer, prompts, schedule; nothing sent"})
		if !c.inSim {
			continue
		}
		if mb, err = medianPeakMB(c, append(slices.Clone(args), "--sim")); err != nil {
			return err
		}
		note := "the simulator and its 1,400 streams inside the client's process; for information"
		if tok.arg != tokenizer.BuiltinName {
			note += "; the simulator counts with the built-in tokenizer, so the prompts are re-aligned"
		}
		add(benchrow.Row{Group: "memory", Figure: "peak RSS, serve --sim (client+sim), " + tok.name, Value: mb, Unit: "MB", Note: note})
	}
	return nil
}

// medianPeakMB runs the binary c.runs times with args and returns the
// median of its peak resident sets in MiB.
func medianPeakMB(c config, args []string) (float64, error) {
	var peaks []float64
	for range max(c.runs, 1) {
		kb, err := peakRSS(c.bin, args)
		if err != nil {
			return 0, err
		}
		peaks = append(peaks, float64(kb)/1024)
	}
	slices.Sort(peaks)
	return peaks[len(peaks)/2], nil
}

// peakRSS runs bin with args and returns its peak resident set in KiB
// (Linux's ru_maxrss).
func peakRSS(bin string, args []string) (int64, error) {
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%s %v: %w", bin, args, err)
	}
	return maxRSS(cmd.ProcessState)
}

// retainedPerRequest plans the workload as a dry run in this process and
// returns the live bytes per request beyond the prompt's text, plus the
// size of the record a measured request keeps (metrics.Output).
func retainedPerRequest() (float64, error) {
	opts := run.DefaultOptions()
	opts.Model, opts.Tokenizer, opts.DryRun = "m", tokenizer.BuiltinName, true
	opts.NumPrompts, opts.MaxConcurrency, opts.Seed = numPrompts, maxConcurrency, 0
	opts.Dataset.RandomInputLen, opts.Dataset.RandomOutputLen = inputLen, outputLen
	env := run.Env{Stdout: io.Discard, Stderr: io.Discard}
	// The prompts alone, as the plan's dataset makes them (same seed).
	d := opts.Dataset
	d.NumPrompts, d.Seed = numPrompts, opts.Seed
	samples, err := dataset.Load(d, tokenizer.Builtin(), dataset.NewGlobals(opts.Seed), io.Discard)
	if err != nil {
		return 0, fmt.Errorf("dataset: %w", err)
	}
	promptBytes := 0
	for _, s := range samples {
		promptBytes += len(s.Prompt)
	}
	samples = nil
	before := liveHeap()
	plan, err := run.NewPlan(context.Background(), opts, env)
	if err != nil {
		return 0, fmt.Errorf("plan: %w", err)
	}
	after := liveHeap()
	runtime.KeepAlive(plan)
	_ = samples
	perPlan := float64(int64(after)-int64(before)-int64(promptBytes)) / numPrompts
	return perPlan + float64(unsafe.Sizeof(metrics.Output{})), nil
}

// liveHeap is the heap's live bytes after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// idleStreams starts `gobench sim` with tokens two seconds apart and
// returns the client's bytes per open stream: its peak resident set with n
// streams minus its peak with one, over n-1.
func idleStreams(bin string, n int, engine string) (float64, error) {
	url, stop, err := startSim(bin, "--ttft", "0.05", "--itl", "2")
	if err != nil {
		return 0, err
	}
	defer stop()
	client := func(k int) (int64, error) {
		return peakRSS(bin, []string{"serve", "--base-url", url, "--tokenizer", tokenizer.BuiltinName,
			"--dataset-name", "random", "--random-input-len", "16", "--random-output-len", "3", "--num-prompts", strconv.Itoa(k),
			"--max-concurrency", strconv.Itoa(k), "--disable-tqdm", "--no-server-metrics", "--client-engine", engine})
	}
	one, err := client(1)
	if err != nil {
		return 0, err
	}
	many, err := client(n)
	if err != nil {
		return 0, err
	}
	return float64(many-one) * 1024 / float64(n-1), nil
}

// startSim starts `gobench sim` with args on a free loopback port, in a
// process of its own, and returns its URL and the function that stops it.
func startSim(bin string, args ...string) (url string, stop func(), err error) {
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	sim := exec.Command(bin, append([]string{"sim", "--port", strconv.Itoa(port), "--disable-log-stats"}, args...)...)
	sim.Stdout, sim.Stderr = io.Discard, io.Discard
	if err := sim.Start(); err != nil {
		return "", nil, fmt.Errorf("start sim: %w", err)
	}
	stop = func() { _ = sim.Process.Kill(); _ = sim.Wait() }
	if err := waitListening(port); err != nil {
		stop()
		return "", nil, err
	}
	return "http://127.0.0.1:" + strconv.Itoa(port), stop, nil
}

// freePort asks the system for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitListening waits until something accepts connections on port.
func waitListening(port int) error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			return c.Close()
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("the simulator did not listen on port %d within 10 s", port)
}
