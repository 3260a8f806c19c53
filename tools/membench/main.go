// Command membench prints gobench's memory table (make bench-mem): the
// peak resident set of `serve` and `--dry-run` for 4,096 random prompts
// of 1,024 tokens at --max-concurrency 1400 against the simulator (with
// the built-in tokenizer, and with Qwen3's when its test copy is there),
// the bytes a planned request keeps beyond its prompt, and the client's
// bytes per idle stream with 10,000 streams open against `gobench sim`,
// each figure beside issue 15's target. The figures are measurements of
// this machine, printed and never asserted.
//
// Peak resident sets come from the kernel (wait4's ru_maxrss) of the real
// binary given with -gobench. The bytes per request are measured in this
// process: the live heap after a garbage collection with a planned
// 4,096-request dry run held, minus the heap before and minus the prompts'
// own bytes, divided by the requests, plus the size of the record each
// request's measurement becomes (metrics.Output, without its ITL samples
// and generated text). The bytes per idle stream are the client's peak
// resident set with 10,000 streams open (the simulator in a process of its
// own, tokens two seconds apart) minus its peak with one, divided by 9,999.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/run"
	"github.com/gobench/gobench/internal/tokenizer"
)

// The workload of issue 15's memory figures.
const (
	numPrompts     = 4096
	inputLen       = 1024
	outputLen      = 16
	maxConcurrency = 1400
)

func main() {
	bin := flag.String("gobench", "bin/gobench", "the gobench binary to measure")
	qwen := flag.String("qwen3", "internal/tokenizer/testdata/hf/qwen3", "Qwen3's tokenizer folder (rows skipped when absent)")
	streams := flag.Int("streams", 10000, "idle streams to hold open (0 skips the row)")
	flag.Parse()
	if err := table(os.Stdout, *bin, *qwen, *streams); err != nil {
		fmt.Fprintln(os.Stderr, "membench:", err)
		os.Exit(1)
	}
}

// table measures and prints every row.
func table(w io.Writer, bin, qwen string, streams int) error {
	fmt.Fprintf(w, "workload: random, %d prompts of %d tokens, %d out, --max-concurrency %d\n\n", numPrompts, inputLen, outputLen, maxConcurrency)
	fmt.Fprintf(w, "%-44s %14s  %s\n", "figure", "measured", "target")
	workload := []string{"serve", "--sim", "--dataset-name", "random", "--random-input-len", strconv.Itoa(inputLen),
		"--random-output-len", strconv.Itoa(outputLen), "--num-prompts", strconv.Itoa(numPrompts),
		"--max-concurrency", strconv.Itoa(maxConcurrency), "--seed", "0", "--disable-tqdm"}
	toks := []struct{ name, arg string }{{"built-in tokenizer", "gobench-builtin"}}
	if _, err := os.Stat(filepath.Join(qwen, "tokenizer.json")); err == nil {
		toks = append(toks, struct{ name, arg string }{"Qwen3 tokenizer", qwen})
	}
	for _, tok := range toks {
		for _, dry := range []bool{false, true} {
			args := append(append([]string{}, workload...), "--tokenizer", tok.arg)
			what := "serve"
			if dry {
				args, what = append(args, "--dry-run"), "--dry-run"
			}
			kb, err := peakRSS(bin, args)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%-44s %11.1f MB  <= 150 MB (serve)\n", "peak RSS, "+what+", "+tok.name, float64(kb)/1024)
		}
	}
	perReq, err := retainedPerRequest()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%-44s %12.0f B  <= 2048 B\n", "retained per request beyond prompt and ITL", perReq)
	if streams > 0 {
		perStream, err := idleStreams(bin, streams)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%-44s %11.1f KB  <= 30 KB\n", fmt.Sprintf("client per idle stream (%d streams)", streams), perStream/1000)
	}
	return nil
}

// peakRSS runs bin with args and returns its peak resident set in KiB
// (Linux's ru_maxrss).
func peakRSS(bin string, args []string) (int64, error) {
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%s %v: %w", bin, args, err)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, errors.New("no resource usage on this system")
	}
	return ru.Maxrss, nil
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
func idleStreams(bin string, n int) (float64, error) {
	port, err := freePort()
	if err != nil {
		return 0, err
	}
	sim := exec.Command(bin, "sim", "--port", strconv.Itoa(port), "--ttft", "0.05", "--itl", "2")
	sim.Stdout, sim.Stderr = io.Discard, io.Discard
	if err := sim.Start(); err != nil {
		return 0, fmt.Errorf("start sim: %w", err)
	}
	defer func() { _ = sim.Process.Kill(); _ = sim.Wait() }()
	if err := waitListening(port); err != nil {
		return 0, err
	}
	client := func(k int) (int64, error) {
		return peakRSS(bin, []string{"serve", "--base-url", "http://127.0.0.1:" + strconv.Itoa(port), "--tokenizer", tokenizer.BuiltinName,
			"--dataset-name", "random", "--random-input-len", "16", "--random-output-len", "3", "--num-prompts", strconv.Itoa(k),
			"--max-concurrency", strconv.Itoa(k), "--disable-tqdm", "--no-server-metrics"})
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
