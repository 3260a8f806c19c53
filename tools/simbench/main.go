// Command simbench is gobench's fidelity benchmark: it starts `gobench sim
// --record` in one process and runs `gobench serve` against it in another,
// at several concurrencies, and compares what the client measured with the
// simulator's ground truth, request by request. `make fidelity` runs it.
//
// The truth is the record (see internal/sim/record.go): for every request
// the instant each token event left the server, on CLOCK_MONOTONIC. The
// client's instants are on its own run clock (start_times in its detailed
// result count from its run's start), so the two are tied together by the
// one offset that makes the fastest request's upload zero: offset =
// min over requests of (server arrival − client start). That makes every
// "client − truth" figure below an upper bound by the fastest upload (tens
// of microseconds on loopback), never flattering.
//
// Per concurrency it prints, over the successful requests:
//
//	TTFT err   client TTFT − (first event sent − client start): how late the
//	           client saw the first token (mean and p99)
//	ITL err    client ITL − gap between the two events' send instants (p99)
//	E2EL err   client E2EL − (last event sent − client start) (mean)
//	upload     server arrival − client start (mean): request upload and
//	           server accept, part of every TTFT but not client error
//	µs/event   the serve process's CPU (user+system, minus a --dry-run of
//	           the same command) per token event received, warm-ups included
//	sim late   the simulator's own lateness: event sent − when it was due
//	           (mean and p99)
//	stderr     bytes the serve process wrote to stderr (its progress)
//
// With -progress, each concurrency is measured once per progress display
// of the serve process (the progress column): off (--disable-tqdm), bar
// (stderr on a pseudo-terminal: the bar redrawn every 100 ms), lines
// (stderr a pipe: a CI line every 5 s) or lines=SECONDS (a line every
// SECONDS), so that what drawing the progress costs the client's CPU and
// timing shows as the difference between rows.
//
// `make bench` runs it at 1, 64 and 512 streams (the client-overhead
// targets) with the progress off, as a bar and as lines; `make fidelity`
// adds 2048, with the progress off.
//
// Beside gobench, at each concurrency, simbench measures yardsticks
// (-readers, a row each, the progress column naming them) in the same run
// and by the same method: its own binary in a hidden mode reads the same
// streams (the same body as gobench's, the same x-request-id values, so
// the simulator streams the same tokens, the same Poisson rate, the same
// warm-ups) and does nothing else; its CPU minus a run of it that sends
// nothing, per token event read, is its µs/event. "bare" is one thread, a
// level-triggered epoll set and raw non-blocking sockets, one read(2) per
// readiness, yielding its processor every 5 ms as the epoll engine does
// (since 2026-12-03: without it the runtime's sysmon preempts the loop
// every 10 ms and polls every 20 µs, a fifth of the loop's CPU): the floor
// for a read(2) per event on this kernel. "uring" is the same loop on
// io_uring (uring_linux.go): one multishot receive per connection into a
// ring of provided buffers, the wait and the receives' completions in one
// io_uring_enter, no epoll and no read(2); the floor for a client without
// a system call per event (Linux 6.1 or later; where io_uring is refused,
// as container runtimes' default seccomp profiles do, its row reads
// "failed" and the others stand). "nethttp" reads each body to its
// end through net/http with gobench's transport (run.NewTransport), with
// no parsing and no timing. Their requests and events columns count the
// warm-ups too.
//
// With -engines (net/http, epoll) each progress display is measured once
// per client engine of gobench serve (--client-engine); an epoll row's
// progress column reads "off+epoll", and its figure is judged against the
// same target.
//
// With -rows FILE the CPU figures are appended to FILE as the bench
// table's JSON lines (group "cpu"): gobench's with its progress off at
// every concurrency (the 512-stream one beside the target of 7 µs
// per event), each reader's (met null), and, when the bare epoll loop ran
// at 512 streams, each engine's 512-stream figure over the loop's (unit
// "×", met null): the half of the target that the machine's speed on the
// day moves least.
//
// What was measured (the project's 2-core Firecracker VM, 2026-12-01,
// load average 2-4 from other work, so figures vary by ±10 % run to run;
// simulator and client on the same two cores): at 512 streams gobench
// spends 9-11 µs of CPU per event, net/http alone 8.4-8.8 and the bare
// loop 6.0-6.6; at 1 stream gobench 67-92, the readers 60-78 (each event
// wakes an idle process, and the Go runtime's background cost is spread
// over few events). About 55 % of gobench's time is the kernel's. Per
// event Go makes two read(2) calls, the one that returns data and one
// that returns EAGAIN before parking (0.35 µs here), where the bare loop
// makes one. The EAGAIN read cannot be skipped from outside the runtime:
// net.Conn's Read and RawConn.Read both reset the poller's readiness
// before their first read, so a Read that waited first would miss data
// that arrived in between. The runtime's scheduler (findRunnable, 12 % of
// the profile) and sysmon (6 %: each time every P has gone idle, the next
// system call wakes it and it polls every 20 µs again) are the rest of
// what net/http costs over the bare loop. What gobench adds to net/http
// is its SSE parsing (about 50 ns per event, BenchmarkReader), its JSON
// decoding (about 250 ns and two small allocations,
// BenchmarkDecodeCompletions), the clock, the metrics and the result at
// the end (about 5 % of the profile, half of it cli's check of the result
// object re-encoding and re-reading it). GOMAXPROCS=1 cut gobench's CPU
// per event by about 14 % at 512 streams (fewer futex wake-ups of the
// idle P) and net/http's by about 10 %, but a client on one P saturates
// with a few thousand streams, so gobench leaves it to the GOMAXPROCS
// variable. The read timeout's Timer.Reset per event (only with
// --read-timeout) costs about 50 ns against 33 ns for an atomic time
// stamp, so the watchdog keeps its timer.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	bin := flag.String("gobench", "bin/gobench", "path of the gobench binary")
	ttft := flag.Duration("ttft", 50*time.Millisecond, "simulated time to first token (fixed engine)")
	itl := flag.Duration("itl", 10*time.Millisecond, "simulated inter-token latency (fixed engine)")
	tokens := flag.Int("tokens", 100, "output tokens per request")
	concs := flag.String("concurrency", "1,64,512,2048", "comma-separated concurrencies")
	waves := flag.Int("waves", 3, "requests per run = concurrency × waves (at least 10)")
	simArgs := flag.String("sim-args", "", "extra arguments for gobench sim, e.g. \"--preset 8b-1gpu\"")
	progress := flag.String("progress", "off", "comma-separated progress displays of gobench serve, a row each: "+
		"off (--disable-tqdm), bar (stderr on a pseudo-terminal), lines (stderr a pipe), lines=SECONDS (--progress-interval), "+
		"live (the live view: a pseudo-terminal of 120×40), metrics (--disable-tqdm --metrics-listen, scraped every second), live+metrics")
	repeat := flag.Int("repeat", 1, "measure the progress displays this many times each, alternated (off, live, off, live, ...), and keep each one's median")
	readers := flag.String("readers", "bare,uring,nethttp", "comma-separated yardsticks measured beside gobench at each concurrency, a row each: "+
		"bare (a bare epoll loop), uring (a bare io_uring loop), nethttp (net/http only); empty for none")
	engines := flag.String("engines", "net/http", "comma-separated client engines of gobench serve (--client-engine), a row each per progress display: "+
		"net/http, epoll")
	rowsFile := flag.String("rows", "", "append the CPU figures to this file as bench-table JSON lines")
	reader := flag.String("reader", "", "") // hidden: run as a reader process (readers.go)
	flag.Parse()
	if *reader != "" {
		if err := readerMain(*reader, flag.Args()); err != nil {
			fmt.Fprintln(os.Stderr, "simbench reader:", err)
			os.Exit(1)
		}
		return
	}
	modes, err := parseModes(*progress)
	if err == nil {
		modes, err = withEngines(modes, *engines)
	}
	var names []string
	if err == nil {
		names, err = parseReaders(*readers)
	}
	if err == nil {
		cfg := config{bin: *bin, ttft: *ttft, itl: *itl, tokens: *tokens, waves: *waves, simArgs: strings.Fields(*simArgs),
			modes: modes, readers: names, rows: *rowsFile, repeat: max(1, *repeat)}
		err = run(cfg, *concs)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "simbench:", err)
		os.Exit(1)
	}
}

// progressMode is a progress display of the serve process.
type progressMode struct {
	// name is how -progress spells it.
	name string
	// args are the serve flags it takes.
	args []string
	// tty puts serve's stderr on a pseudo-terminal; size gives it room
	// for the live view.
	tty, size bool
	// metrics serves --metrics-listen, scraped during the run.
	metrics bool
	// base is the display's name without the engine; engine is serve's
	// --client-engine.
	base, engine string
}

// withEngines measures every progress display with every client engine of
// -engines: net/http keeps the display's name, another engine is named
// after it ("off+epoll").
func withEngines(modes []progressMode, engines string) ([]progressMode, error) {
	var out []progressMode
	for _, e := range strings.Split(engines, ",") {
		e = strings.TrimSpace(e)
		if e != "net/http" && e != "epoll" {
			return nil, fmt.Errorf("-engines %q: not net/http or epoll", e)
		}
		for _, m := range modes {
			m.base, m.engine = m.name, e
			if e != "net/http" {
				m.name += "+" + e
				m.args = append(append([]string(nil), m.args...), "--client-engine", e)
			}
			out = append(out, m)
		}
	}
	return out, nil
}

// parseModes reads -progress.
func parseModes(s string) ([]progressMode, error) {
	var modes []progressMode
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		m := progressMode{name: name}
		switch secs, ok := strings.CutPrefix(name, "lines="); {
		case name == "off":
			m.args = []string{"--disable-tqdm"}
		case name == "bar":
			m.tty = true
		case name == "lines":
		case watchMode(&m):
		case ok:
			if v, err := strconv.ParseFloat(secs, 64); err != nil || !(v > 0) {
				return nil, fmt.Errorf("-progress %q: lines=SECONDS needs a positive number of seconds", name)
			}
			m.args = []string{"--progress-interval", secs}
		default:
			return nil, fmt.Errorf("-progress %q: not off, bar, lines, lines=SECONDS, live, metrics or live+metrics", name)
		}
		modes = append(modes, m)
	}
	return modes, nil
}

// config is one simbench invocation.
type config struct {
	bin         string
	ttft, itl   time.Duration
	tokens      int
	waves       int
	simArgs     []string
	modes       []progressMode
	readers     []string
	rows        string
	repeat      int
	simBaseArgs []string
	reqDur      float64
}

func run(cfg config, concs string) error {
	tmp, err := os.MkdirTemp("", "gobench-simbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	cfg.simBaseArgs = []string{"sim", "--port", "0", "--disable-log-stats"}
	if len(cfg.simArgs) == 0 {
		cfg.simBaseArgs = append(cfg.simBaseArgs, "--ttft", secs(cfg.ttft), "--itl", secs(cfg.itl), "--max-model-len", "1000000")
	}
	// With -sim-args (a preset, the scheduler engine) the simulator's own
	// timing applies; -ttft and -itl then only set the arrival rate.
	cfg.simBaseArgs = append(cfg.simBaseArgs, cfg.simArgs...)
	cfg.reqDur = cfg.ttft.Seconds() + float64(cfg.tokens-1)*cfg.itl.Seconds()

	var figs []figure
	first := true
	for _, cs := range strings.Split(concs, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(cs))
		if err != nil || c < 1 {
			return fmt.Errorf("-concurrency %q: not a positive integer", cs)
		}
		f, err := cfg.concurrency(tmp, c, &first)
		if err != nil {
			return err
		}
		figs = append(figs, f...)
	}
	fmt.Println("\nTargets: TTFT err mean < 1 ms at 512 streams; ITL err p99 < 1 ms; ≤ 7 µs client CPU per event at 512 streams.")
	fmt.Println("Errors are client minus truth, with the clocks tied by the fastest upload (see the package doc).")
	if len(cfg.readers) > 0 {
		fmt.Println("Readers (the bare epoll and io_uring loops, net/http only) read the same streams and nothing else; their CPU is measured as gobench's.")
	}
	if cfg.rows != "" {
		return appendRows(cfg.rows, figs, cfg.repeat)
	}
	return nil
}

// concurrency measures the rows of one concurrency: gobench once per
// progress display, then each reader; it returns the CPU figures.
func (cfg *config) concurrency(tmp string, c int, first *bool) ([]figure, error) {
	n := max(10, c*cfg.waves)
	var figs []figure
	for _, mode := range repeated(cfg.modes, cfg.repeat) {
		// One simulator per row: its record is renamed into place when
		// it stops, so it is read after stopping it.
		truthFile := filepath.Join(tmp, fmt.Sprintf("truth-c%d-%s.jsonl", c, mode.name))
		sim, err := startSim(cfg.bin, append(cfg.simBaseArgs[:len(cfg.simBaseArgs):len(cfg.simBaseArgs)], "--record", truthFile))
		if err != nil {
			return nil, err
		}
		if *first {
			*first = false
			fmt.Printf("gobench client vs gobench sim --record (separate processes, %d cores, GOMAXPROCS %d)\n", runtime.NumCPU(), runtime.GOMAXPROCS(0))
			fmt.Printf("%s\nPoisson arrivals at concurrency/%.2f s, capped at --max-concurrency, after `concurrency` warm-ups\n\n",
				sim.banner, cfg.reqDur)
			printRow(tableUnits)
			printRow(tableHead)
		}
		row, cpu, err := measure(cfg.bin, sim, tmp, truthFile, mode, c, n, cfg.tokens, cfg.reqDur)
		if err != nil {
			return nil, err
		}
		printRow(row)
		figs = append(figs, figure{who: "gobench", mode: mode.base, engine: mode.engine, c: c, value: cpu})
	}
	for _, name := range cfg.readers {
		sim, err := startSim(cfg.bin, cfg.simBaseArgs)
		if err != nil {
			return nil, err
		}
		cpu, events, err := readerCPU(name, sim.base, c, n, cfg.tokens, float64(c)/cfg.reqDur)
		if serr := sim.stop(); err == nil {
			err = serr
		}
		if err != nil {
			// A yardstick that cannot read these streams (a simulator
			// preset that refuses some) leaves gobench's rows standing.
			fmt.Fprintf(os.Stderr, "simbench: %s at %d streams: %v\n", readerNames[name], c, err)
			printRow([]string{strconv.Itoa(c), name, "failed", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-", "-"})
			continue
		}
		printRow([]string{strconv.Itoa(c), name, strconv.Itoa(n + c), strconv.Itoa(events), strconv.FormatFloat(cpu, 'f', 2, 64),
			"-", "-", "-", "-", "-", "-", "-", "-", "-"})
		figs = append(figs, figure{who: name, c: c, value: cpu})
	}
	return figs, nil
}

// The table's two header lines.
var (
	tableHead = []string{"concurrency", "progress", "requests", "events", "µs/event", "TTFT err", "TTFT err", "ITL err", "E2EL err", "upload",
		"sim late", "sim late", "wall", "stderr"}
	tableUnits = []string{"", "", "", "", "client", "mean ms", "p99 ms", "p99 ms", "mean ms", "mean ms", "mean ms", "p99 ms", "s", "bytes"}
)

// simProc is a running `gobench sim` process.
type simProc struct {
	cmd          *exec.Cmd
	base, banner string
	stopped      bool
}

// startSim starts `gobench sim` with args and reads its address from its
// banner.
func startSim(bin string, args []string) (*simProc, error) {
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s sim: %w", bin, err)
	}
	s := &simProc{cmd: cmd}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	i := strings.Index(line, "http://")
	if err != nil || i < 0 {
		_ = s.stop()
		return nil, fmt.Errorf("read the simulator's address from %q: %v", line, err)
	}
	s.base, s.banner = strings.Fields(line[i:])[0], strings.TrimSpace(line)
	return s, nil
}

// stop interrupts the simulator, which then puts its record in place, and
// waits for it to exit. A second stop does nothing.
func (s *simProc) stop() error {
	if s.stopped {
		return nil
	}
	s.stopped = true
	_ = s.cmd.Process.Signal(os.Interrupt)
	if err := s.cmd.Wait(); err != nil {
		return fmt.Errorf("gobench sim: %w", err)
	}
	return nil
}

func printRow(cols []string) {
	fmt.Printf("%-12s %-9s %8s %8s %9s %9s %9s %9s %9s %9s %9s %9s %6s %7s\n", toAny(cols)...)
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// measure runs one concurrency against sim, stops sim to read its record,
// and returns the table row.
func measure(bin string, sim *simProc, tmp, truthFile string, mode progressMode, c, n, tokens int, reqDur float64) ([]string, float64, error) {
	defer func() { _ = sim.stop() }()
	prefix := fmt.Sprintf("c%d-", c)
	args := []string{"serve", "--base-url", sim.base, "--num-prompts", strconv.Itoa(n), "--max-concurrency", strconv.Itoa(c),
		"--request-rate", strconv.FormatFloat(float64(c)/reqDur, 'f', 3, 64), "--num-warmups", strconv.Itoa(c),
		"--random-input-len", "64", "--random-output-len", strconv.Itoa(tokens), "--percentile-metrics", "ttft,tpot,itl,e2el",
		"--seed", "1", "--request-id-prefix", prefix, "--model", "gobench/sim", "--tokenizer", "gobench-builtin"}
	args = append(args, mode.args...)
	dry, _, dryOut, _, err := rusage(bin, append(args, "--dry-run"), progressMode{})
	if err != nil {
		return nil, 0, err
	}
	ids, err := dryRunIDs(dryOut)
	if err != nil {
		return nil, 0, err
	}
	file := filepath.Join(tmp, fmt.Sprintf("c%d-%s.json", c, mode.name))
	total, wall, _, stderrBytes, err := rusage(bin, append(args, "--save-result", "--save-detailed", "--result-dir", tmp,
		"--result-filename", filepath.Base(file)), mode)
	if err != nil {
		return nil, 0, err
	}
	res, err := loadResult(file)
	if err != nil {
		return nil, 0, err
	}
	if err := sim.stop(); err != nil {
		return nil, 0, err
	}
	truth, err := readTruth(truthFile, prefix)
	if err != nil {
		return nil, 0, err
	}
	row, cpu, err := compare(res, truth, ids, c, n, tokens, total-dry, wall)
	if err != nil {
		return nil, 0, err
	}
	return append(append(row[:1:1], mode.name), append(row[1:], strconv.Itoa(stderrBytes))...), cpu, nil
}

// compare lines the client's requests up with the truth and renders a row;
// it returns the CPU per event too.
func compare(res *result, truth map[string]*record, ids map[int]string, c, n, tokens int, cpu, wall time.Duration) ([]string, float64, error) {
	offset := math.Inf(1) // seconds to add to a client instant to get the system clock
	for i, st := range res.StartTimes {
		if r := truth[ids[i]]; r != nil && res.Errors[i] == "" {
			offset = min(offset, float64(r.ArrivalNS)/1e9-st)
		}
	}
	if math.IsInf(offset, 1) {
		return nil, 0, fmt.Errorf("concurrency %d: no successful request found in the record", c)
	}
	var ttftErr, itlErr, e2eErr, upload, late []float64
	events := 0
	for i := range res.TTFTs {
		r := truth[ids[i]]
		if res.Errors[i] != "" || r == nil || len(r.EventsNS) == 0 {
			continue
		}
		start := res.StartTimes[i] + offset
		sent := func(k int) float64 { return float64(r.EventsNS[k]) / 1e9 }
		ttftErr = append(ttftErr, res.TTFTs[i]-(sent(0)-start))
		e2eErr = append(e2eErr, res.Latencies[i]-(sent(len(r.EventsNS)-1)-start))
		upload = append(upload, float64(r.ArrivalNS)/1e9-start)
		for j, g := range res.ITLs[i] {
			if j+1 < len(r.EventsNS) {
				itlErr = append(itlErr, g-(sent(j+1)-sent(j)))
			}
		}
		for _, l := range r.LateNS {
			late = append(late, float64(l)/1e9)
		}
		events += 1 + len(res.ITLs[i])
	}
	cpuEvents := events + c*tokens // warm-ups are copies of request 0
	perEvent := cpu.Seconds() * 1e6 / float64(cpuEvents)
	ms := func(v float64) string { return strconv.FormatFloat(v*1e3, 'f', 3, 64) }
	return []string{strconv.Itoa(c), strconv.Itoa(n), strconv.Itoa(events),
		strconv.FormatFloat(perEvent, 'f', 2, 64),
		ms(mean(ttftErr)), ms(pct(ttftErr, 99)), ms(pct(itlErr, 99)), ms(mean(e2eErr)), ms(mean(upload)),
		ms(mean(late)), ms(pct(late, 99)), strconv.FormatFloat(wall.Seconds(), 'f', 1, 64)}, perEvent, nil
}

// rusage runs gobench with args and returns its CPU time (user+system),
// wall time, standard output and how many bytes it wrote to stderr, which
// is a pipe or, with tty, a pseudo-terminal.
func rusage(bin string, args []string, mode progressMode) (cpu, wall time.Duration, stdout string, stderrBytes int, err error) {
	stopScrape := func() {}
	if mode.metrics {
		var listen []string
		if listen, stopScrape, err = scrapeDuring(); err != nil {
			return 0, 0, "", 0, err
		}
		args = append(args[:len(args):len(args)], listen...)
	}
	defer stopScrape()
	cmd := exec.Command(bin, args...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	var pts *os.File
	drained := make(chan struct{})
	if mode.tty {
		var ptmx *os.File
		if ptmx, pts, err = openPTY(); err != nil {
			return 0, 0, "", 0, err
		}
		if mode.size {
			if err = setSize(ptmx, 120, 40); err != nil {
				return 0, 0, "", 0, err
			}
		}
		defer ptmx.Close()
		cmd.Stderr = pts
		go func() {
			defer close(drained)
			_, _ = io.Copy(&errOut, ptmx) // ends (EIO) when the process exits
		}()
	} else {
		close(drained)
	}
	start := time.Now()
	err = cmd.Start()
	if pts != nil {
		pts.Close() // the process has its own
	}
	if err == nil {
		err = cmd.Wait()
	}
	wall = time.Since(start)
	<-drained
	if err != nil {
		return 0, 0, "", 0, fmt.Errorf("%s %s: %w\n%s%s", bin, strings.Join(args, " "), err, out.String(), errOut.String())
	}
	cpu, err = processCPU(cmd.ProcessState)
	return cpu, wall, out.String(), errOut.Len(), err
}

// processCPU is the user+system CPU time of an exited process.
func processCPU(ps *os.ProcessState) (time.Duration, error) {
	return ps.UserTime() + ps.SystemTime(), nil
}

// dryRunIDs maps request index to request id from a --dry-run's JSON lines.
func dryRunIDs(out string) (map[int]string, error) {
	ids := map[int]string{}
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "{") {
			continue
		}
		var v struct {
			Index     int    `json:"index"`
			RequestID string `json:"request_id"`
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			return nil, fmt.Errorf("dry run line %q: %w", l, err)
		}
		ids[v.Index] = v.RequestID
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("the dry run printed no request")
	}
	return ids, nil
}

// result is the part of a detailed result file simbench reads.
type result struct {
	TTFTs      []float64   `json:"ttfts"`
	ITLs       [][]float64 `json:"itls"`
	Latencies  []float64   `json:"latencies"`
	StartTimes []float64   `json:"start_times"`
	Errors     []string    `json:"errors"`
}

func loadResult(path string) (*result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(r.StartTimes) != len(r.TTFTs) || len(r.ITLs) != len(r.TTFTs) || len(r.Errors) != len(r.TTFTs) {
		return nil, fmt.Errorf("%s: per-request lists of different lengths", path)
	}
	return &r, nil
}

// record is the part of a record line simbench reads.
type record struct {
	RequestID string  `json:"request_id"`
	ArrivalNS int64   `json:"arrival_ns"`
	EventsNS  []int64 `json:"events_ns"`
	LateNS    []int64 `json:"late_ns"`
}

// readTruth reads the record lines of the requests whose id has prefix.
func readTruth(path, prefix string) (map[string]*record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs := map[string]*record{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	key := []byte(`{"request_id":"` + prefix)
	for sc.Scan() {
		if !strings.HasPrefix(sc.Text(), string(key)) {
			continue
		}
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		recs[r.RequestID] = &r
	}
	return recs, sc.Err()
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(max(1, len(xs)))
}

// pct is NumPy's linear percentile.
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
