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
//
// What the CPU figure can be compared with (measured on the project's 2-core
// Firecracker VM, 512 streams of 100 events, 2026-11-30): a Go program that
// only reads the same streams through net/http (no parsing, no timing)
// spends 10.1 µs of CPU per event, about 60 % of it in the kernel; a bare
// single-threaded epoll loop over raw non-blocking sockets spends 5.0 µs,
// 3.8 µs of it kernel time. gobench, at about 10 µs, costs what net/http
// costs: its own parsing, timing and bookkeeping are under 1 µs per event
// (BenchmarkReader, BenchmarkDecodeCompletions). Go's poller always tries a
// read before parking, so each event costs one read(2) that returns EAGAIN
// besides the one that returns data; an attempt to skip it through
// RawConn.Read loses wake-ups, because RawConn.Read resets the poller's
// readiness before its first callback.
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
	waves := flag.Int("waves", 4, "requests per run = concurrency × waves (at least 10)")
	burst := flag.Bool("burst", true, "also run the largest concurrency as one burst (--request-rate inf)")
	flag.Parse()
	if err := run(*bin, *ttft, *itl, *tokens, *concs, *waves, *burst); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(bin string, ttft, itl time.Duration, tokens int, concs string, waves int, burst bool) error {
	sim := exec.Command(bin, "sim", "--port", "0", "--ttft", secs(ttft), "--itl", secs(itl), "--max-model-len", "1000000",
		"--enable-per-request-metrics")
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
	// A request lasts about TTFT + (tokens-1)·ITL; Poisson arrivals at
	// concurrency/duration keep about `concurrency` streams open without
	// starting them all at one instant.
	reqDur := ttft.Seconds() + float64(tokens-1)*itl.Seconds()
	fmt.Printf("simulator: TTFT %v, ITL %v, %d output tokens per request (%.2f s); Poisson arrivals at concurrency/%.2f s\n",
		ttft, itl, tokens, reqDur, reqDur)
	fmt.Printf("per run, capped at --max-concurrency; every run first warms up `concurrency` connections\n\n")
	fmt.Printf("%-13s %8s %8s %9s %9s %9s %9s %9s %9s %9s %9s %6s\n", "", "", "", "client", "client", "TTFT err", "TTFT err",
		"sim late", "ITL err", "ITL err", "client", "")
	fmt.Printf("%-13s %8s %8s %9s %9s %9s %9s %9s %9s %9s %9s %6s\n", "concurrency", "requests", "events", "µs/event", "+setup",
		"mean ms", "p99 ms", "mean ms", "mean ms", "p99 ms", "CPU %", "wall s")
	type row struct {
		c     int
		rate  string
		label string
	}
	var rows []row
	for _, cs := range strings.Split(concs, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(cs))
		if err != nil {
			return fmt.Errorf("--concurrency %q: %w", cs, err)
		}
		rows = append(rows, row{c, strconv.FormatFloat(float64(c)/reqDur, 'f', 3, 64), strconv.Itoa(c)})
	}
	if burst && len(rows) > 0 {
		last := rows[len(rows)-1]
		rows = append(rows, row{last.c, "inf", last.label + " burst"})
	}
	for _, rw := range rows {
		c := rw.c
		n := max(10, c*waves)
		args := []string{"serve", "--base-url", base, "--num-prompts", strconv.Itoa(n), "--max-concurrency", strconv.Itoa(c),
			"--request-rate", rw.rate,
			"--num-warmups", strconv.Itoa(c), "--random-input-len", "64", "--random-output-len", strconv.Itoa(tokens),
			"--percentile-metrics", "ttft,tpot,itl,e2el", "--disable-tqdm", "--seed", "1"}
		dry, _, err := rusage(bin, append(args, "--dry-run"))
		if err != nil {
			return err
		}
		file := filepath.Join(tmp, fmt.Sprintf("c%d-%s.json", c, rw.rate))
		total, wall, err := rusage(bin, append(args, "--save-result", "--save-detailed", "--result-dir", tmp, "--result-filename", filepath.Base(file)))
		if err != nil {
			return err
		}
		r, err := load(file)
		if err != nil {
			return err
		}
		events := 0
		var errs, late, itls []float64
		for i, t := range r.TTFTs {
			if r.Errors[i] != "" {
				continue
			}
			if i < len(r.ServerTTFTs) && r.ServerTTFTs[i] != nil {
				errs = append(errs, t-*r.ServerTTFTs[i])
				late = append(late, *r.ServerTTFTs[i]-ttft.Seconds())
			}
			itls = append(itls, r.ITLs[i]...)
			events += 1 + len(r.ITLs[i])
		}
		if events == 0 {
			return fmt.Errorf("concurrency %d: no successful request", c)
		}
		// The warm-up requests (copies of request 0, `tokens` tokens each)
		// cost CPU too, so they count as events for the per-event figure.
		cpuEvents := events + c*tokens
		ms := func(v float64) float64 { return v * 1000 }
		fmt.Printf("%-13s %8d %8d %9.2f %9.2f %9.3f %9.3f %9.3f %9.3f %9.3f %9.1f %6.1f\n", rw.label, n, events,
			(total-dry).Seconds()*1e6/float64(cpuEvents), total.Seconds()*1e6/float64(cpuEvents),
			ms(mean(errs)), ms(pct(errs, 99)), ms(mean(late)),
			ms(mean(itls)-itl.Seconds()), ms(pct(itls, 99)-itl.Seconds()), 100*total.Seconds()/wall.Seconds(), wall.Seconds())
	}
	fmt.Println("\nTargets: ≤ 5 µs client CPU per event; TTFT mean error < 1 ms at 512 streams.")
	fmt.Println("TTFT err: the client's TTFT minus the simulator's own record of when it wrote the first token")
	fmt.Println("event (its per-request metrics): request upload, loopback and client delay. sim late: the")
	fmt.Println("simulator's TTFT minus the configured one (its timer and scheduling delay). ITL err: measured")
	fmt.Println("minus configured, so it includes the simulator's lateness. \"burst\" releases every request")
	fmt.Println("at once (rate inf). At low rates the per-event CPU is dominated by the Go runtime's fixed")
	fmt.Println("background cost over a long wall time (see client CPU %).")
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
	TTFTs       []float64   `json:"ttfts"`
	ServerTTFTs []*float64  `json:"server_ttfts"`
	ITLs        [][]float64 `json:"itls"`
	Errors      []string    `json:"errors"`
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
