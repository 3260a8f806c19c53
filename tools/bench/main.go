// Command bench measures gobench's own overhead: it starts `gobench sim` in
// one process and runs `gobench serve` against it in another, at several
// concurrencies, and prints for each the client's CPU time per received
// token event and how far the measured TTFT and ITL are from the
// simulator's configured values. `make bench` runs it.
//
// The two processes share this machine's cores (2 on the project's
// machines), so the numbers include the simulator competing with the
// client: they are an upper bound on the client's error on a dedicated
// box. Client CPU is the serve process's user+system time (getrusage) minus
// that of the same command with --dry-run (start-up, tokenizer, dataset and
// schedule), i.e. what sending, streaming, timing and reporting cost.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	bin := flag.String("gobench", "bin/gobench", "path of the gobench binary")
	ttft := flag.Duration("ttft", 50*time.Millisecond, "simulated time to first token")
	itl := flag.Duration("itl", 10*time.Millisecond, "simulated inter-token latency")
	tokens := flag.Int("tokens", 100, "output tokens per request")
	concs := flag.String("concurrency", "1,64,512", "comma-separated concurrencies")
	waves := flag.Int("waves", 2, "requests per run = concurrency × waves (at least 10)")
	flag.Parse()
	if err := run(*bin, *ttft, *itl, *tokens, *concs, *waves); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(bin string, ttft, itl time.Duration, tokens int, concs string, waves int) error {
	sim := exec.Command(bin, "sim", "--port", "0", "--ttft", secs(ttft), "--itl", secs(itl), "--max-model-len", "1000000")
	stdout, err := sim.StdoutPipe()
	if err != nil {
		return err
	}
	sim.Stderr = nil // the simulator's request log is not needed
	if err := sim.Start(); err != nil {
		return fmt.Errorf("start %s sim: %w", bin, err)
	}
	defer func() { _ = sim.Process.Signal(os.Interrupt); _ = sim.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		return fmt.Errorf("read the simulator's address: %w", err)
	}
	i := strings.Index(line, "http://")
	if i < 0 {
		return fmt.Errorf("unexpected simulator banner %q", line)
	}
	base := strings.Fields(line[i:])[0]

	tmp, err := os.MkdirTemp("", "gobench-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	fmt.Printf("gobench client overhead vs gobench sim (separate processes on the same %d-core machine, GOMAXPROCS %d)\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0))
	fmt.Printf("simulator: TTFT %v, ITL %v, %d output tokens per request; every run warms up `concurrency` connections first\n\n", ttft, itl, tokens)
	fmt.Printf("%11s %8s %8s %14s %14s %13s %13s %13s %13s %7s\n", "concurrency", "requests", "events",
		"CPU µs/event", "(incl. setup)", "TTFT err mean", "TTFT err p99", "ITL err mean", "ITL err p99", "wall s")
	for _, cs := range strings.Split(concs, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(cs))
		if err != nil {
			return fmt.Errorf("--concurrency %q: %w", cs, err)
		}
		n := max(10, c*waves)
		args := []string{"serve", "--base-url", base, "--num-prompts", strconv.Itoa(n), "--max-concurrency", strconv.Itoa(c),
			"--num-warmups", strconv.Itoa(c), "--random-input-len", "64", "--random-output-len", strconv.Itoa(tokens),
			"--percentile-metrics", "ttft,tpot,itl,e2el", "--disable-tqdm", "--seed", "1"}
		dry, _, err := rusage(bin, append(args, "--dry-run"))
		if err != nil {
			return err
		}
		file := filepath.Join(tmp, fmt.Sprintf("c%d.json", c))
		total, wall, err := rusage(bin, append(args, "--save-result", "--save-detailed", "--result-dir", tmp, "--result-filename", filepath.Base(file)))
		if err != nil {
			return err
		}
		r, err := load(file)
		if err != nil {
			return err
		}
		events := 0
		var ttfts, itls []float64
		for i, t := range r.TTFTs {
			if r.Errors[i] != "" {
				continue
			}
			ttfts = append(ttfts, t)
			itls = append(itls, r.ITLs[i]...)
			events += 1 + len(r.ITLs[i])
		}
		if events == 0 {
			return fmt.Errorf("concurrency %d: no successful request", c)
		}
		ms := func(v float64) float64 { return v * 1000 }
		fmt.Printf("%11d %8d %8d %14.2f %14.2f %13.3f %13.3f %13.3f %13.3f %7.1f\n", c, n, events,
			(total-dry).Seconds()*1e6/float64(events), total.Seconds()*1e6/float64(events),
			ms(mean(ttfts)-ttft.Seconds()), ms(pct(ttfts, 99)-ttft.Seconds()),
			ms(mean(itls)-itl.Seconds()), ms(pct(itls, 99)-itl.Seconds()), wall.Seconds())
	}
	fmt.Println("\nTargets: ≤ 5 µs client CPU per event; TTFT mean error < 1 ms at 512 streams.")
	fmt.Println("Errors are measured minus configured: they include loopback, HTTP and the simulator's own scheduling delay.")
	return nil
}

// rusage runs gobench with args and returns its CPU time (user+system) and
// wall time.
func rusage(bin string, args []string) (cpu, wall time.Duration, err error) {
	cmd := exec.Command(bin, args...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("%s %s: %w\n%s", bin, strings.Join(args, " "), err, out.String())
	}
	wall = time.Since(start)
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, wall, fmt.Errorf("no rusage on this platform")
	}
	cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return cpu, wall, nil
}

type result struct {
	TTFTs  []float64   `json:"ttfts"`
	ITLs   [][]float64 `json:"itls"`
	Errors []string    `json:"errors"`
}

func load(path string) (*result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(max(1, len(xs)))
}

// pct is NumPy's linear percentile (enough for a report).
func pct(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	h := float64(len(s)-1) * p / 100
	lo := int(h)
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}

func secs(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) }
