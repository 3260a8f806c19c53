package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gobench/gobench/internal/backend"
	gbrun "github.com/gobench/gobench/internal/run"
)

// The readers are simbench's yardsticks for the client's CPU per event:
// programs that read the same streams from the same simulator and do
// nothing else (no parsing, no timing, no bookkeeping), measured the way
// gobench is (the process's user+system CPU minus a run of it that sends
// nothing, per token event), in the same simbench run. simbench runs its
// own binary as each of them (the hidden -reader flag), so that its CPU is
// a process of its own, as gobench serve's is.
var readerNames = map[string]string{
	"bare":    "bare epoll loop",
	"nethttp": "net/http-only reader",
	"uring":   "bare io_uring loop",
}

// errNoUring reports a system without the io_uring features the uring
// reader needs (Linux 6.1 or later; container runtimes' default seccomp
// profiles refuse io_uring altogether).
var errNoUring = errors.New("io_uring is not available")

// readerJob is what a reader process is asked to do: the requests of one
// simbench row, with its arrivals.
type readerJob struct {
	url         string
	c, n        int
	tokens      int
	rate        float64
	dry         bool
	body        []byte
	offsetsSeed uint64
	// idPrefix is gobench's --request-id-prefix of the row: request i is
	// sent with x-request-id idPrefix+i and every warm-up as request 0, as
	// gobench sends them, so that the simulator (whose end-of-sequence is
	// seeded by the request id) streams the same number of tokens.
	idPrefix string
}

// id is the x-request-id of request i.
func (j readerJob) id(i int) string { return j.idPrefix + strconv.Itoa(i) }

// dataLine starts every event of the simulator's streams; each request
// streams one event per token, then the usage event and [DONE].
var dataLine = []byte("data: ")

// tokenEvents is the token events of requests that streamed dataEvents
// events in all.
func tokenEvents(dataEvents, requests int) int { return dataEvents - 2*requests }

// eventCounter counts the events of one stream read piece by piece: the
// dataLine marks in each piece and those split between two pieces.
type eventCounter struct {
	n    int
	tail [len("data: ") - 1]byte // the stream's last bytes so far
	k    int                     // how many of tail are set
}

// add counts p, the stream's next bytes.
func (c *eventCounter) add(p []byte) {
	c.n += bytes.Count(p, dataLine)
	if len(p) == 0 {
		return
	}
	// A mark split between the pieces lies within the last len-1 bytes
	// before p and the first len-1 of p; one inside either would be
	// shorter than the mark, so every match here is a split one.
	var j [2 * len(c.tail)]byte
	n := copy(j[:], c.tail[:c.k])
	n += copy(j[n:], p[:min(len(p), len(c.tail))])
	c.n += bytes.Count(j[:n], dataLine)
	if len(p) >= len(c.tail) {
		c.k = copy(c.tail[:], p[len(p)-len(c.tail):])
		return
	}
	c.k = copy(c.tail[:], j[max(0, n-len(c.tail)):n])
}

// readerMain is the hidden mode `simbench -reader NAME ...`: it reads the
// streams and exits, printing nothing on success.
func readerMain(name string, args []string) error {
	fs := flag.NewFlagSet("reader", flag.ContinueOnError)
	url := fs.String("url", "", "the simulator's base URL")
	c := fs.Int("c", 1, "streams at most at a time")
	n := fs.Int("n", 1, "requests after the warm-ups")
	tokens := fs.Int("tokens", 100, "tokens per request")
	rate := fs.Float64("rate", 0, "Poisson arrivals per second")
	dry := fs.Bool("dry", false, "build the requests and exit (the start-up to subtract)")
	prefix := fs.String("id-prefix", "", "gobench's --request-id-prefix")
	if err := fs.Parse(args); err != nil {
		return err
	}
	j := readerJob{url: *url, c: *c, n: *n, tokens: *tokens, rate: *rate, dry: *dry, offsetsSeed: 1, idPrefix: *prefix}
	j.body = readerBody(*tokens)
	var events int
	var err error
	switch name {
	case "nethttp":
		events, err = readNetHTTP(j)
	case "bare":
		events, err = readBare(j)
	case "uring":
		events, err = readUring(j)
	default:
		err = fmt.Errorf("-reader %q: not bare, uring or nethttp", name)
	}
	if err == nil {
		fmt.Println("token events", tokenEvents(events, j.n+j.c))
	}
	return err
}

// readerBody is the completions body gobench sends for the row's prompts
// (its backend builds it): a 64-word prompt, max_tokens tokens with
// ignore_eos (which the random dataset forces), streamed with the usage
// event. The simulator streams one token event per token.
func readerBody(tokens int) []byte {
	return backend.Completions{}.Body(&backend.Request{Model: "gobench/sim", OutputLen: tokens, IgnoreEOS: true,
		Prompt: strings.TrimSpace(strings.Repeat("word ", 64))})
}

// offsets are the job's arrivals after the warm-ups: Poisson at rate, as
// gobench's schedule (another generator; only the rate matters here).
func (j readerJob) offsets() []time.Duration {
	rng := rand.New(rand.NewPCG(j.offsetsSeed, 0))
	out := make([]time.Duration, j.n)
	t := 0.0
	for i := range out {
		out[i] = time.Duration(t * 1e9)
		if j.rate > 0 {
			t += rng.ExpFloat64() / j.rate
		}
	}
	return out
}

// readNetHTTP reads the streams through net/http with gobench's transport
// (run.NewTransport): a goroutine per request, a slot per stream, the body
// read into a 16 KiB buffer to its end. It returns the events read.
func readNetHTTP(j readerJob) (int, error) {
	hc := &http.Client{Transport: gbrun.NewTransport(j.c, false)}
	url := j.url + "/v1/completions"
	if j.dry {
		return 0, nil
	}
	one := func(id string) (int, error) {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, bytes.NewReader(j.body))
		if err != nil {
			return 0, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Request-Id", id)
		resp, err := hc.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return 0, fmt.Errorf("%s", resp.Status)
		}
		buf, events := make([]byte, 16<<10), eventCounter{}
		for {
			n, err := resp.Body.Read(buf)
			events.add(buf[:n])
			if err == io.EOF {
				return events.n, nil
			} else if err != nil {
				return events.n, err
			}
		}
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		events   int
	)
	slots := make(chan struct{}, j.c)
	launch := func(id string) {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := one(id)
			mu.Lock()
			events += n
			if firstErr == nil {
				firstErr = err
			}
			mu.Unlock()
			<-slots
		}()
	}
	for range j.c { // the warm-ups, all at once, as gobench's
		launch(j.id(0))
	}
	wg.Wait()
	start := time.Now()
	for i, off := range j.offsets() {
		time.Sleep(time.Until(start.Add(off)))
		launch(j.id(i))
	}
	wg.Wait()
	return events, firstErr
}

// readerCPU runs reader name over the row's requests and returns its CPU
// per token event in microseconds, measured as gobench's (the process's
// CPU minus a dry run's, over the token events of the warm-ups and the
// requests), and the token events of the requests.
func readerCPU(name, base string, c, n, tokens int, rate float64) (perEvent float64, events int, err error) {
	self, err := os.Executable()
	if err != nil {
		return 0, 0, fmt.Errorf("find simbench's own binary: %w", err)
	}
	args := []string{"-reader", name, "--", "-url", base, "-c", strconv.Itoa(c), "-n", strconv.Itoa(n),
		"-tokens", strconv.Itoa(tokens), "-rate", strconv.FormatFloat(rate, 'f', 3, 64), "-id-prefix", fmt.Sprintf("c%d-", c)}
	cpu := func(args []string) (time.Duration, int, error) {
		cmd := exec.Command(self, args...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		// The loop readers run at the machine's GOMAXPROCS, as gobench
		// does. At GOMAXPROCS=1 (as they ran until 2026-12-03) their one
		// P sits in a system call at every wait, and with no idle P left
		// the runtime's sysmon takes it back after 20 µs and starts a
		// spinning thread to hand it to: at 64 streams sysmon was a third
		// of the bare loop's profile, and the loops spent 1.7 to 2 times
		// the CPU per event they spend at GOMAXPROCS=2 (at 512 streams,
		// where a wait rarely lasts, the same).
		if err := cmd.Run(); err != nil {
			return 0, 0, fmt.Errorf("reader %s: %w\n%s", name, err, errOut.String())
		}
		var events int
		if _, err := fmt.Sscanf(out.String(), "token events %d", &events); err != nil {
			return 0, 0, fmt.Errorf("reader %s printed %q: %w", name, out.String(), err)
		}
		t, err := processCPU(cmd.ProcessState)
		return t, events, err
	}
	dry, _, err := cpu(append(args, "-dry"))
	if err != nil {
		return 0, 0, err
	}
	total, all, err := cpu(args)
	if err != nil {
		return 0, 0, err
	}
	if all <= 0 {
		return 0, 0, fmt.Errorf("reader %s read no token event", name)
	}
	return (total - dry).Seconds() * 1e6 / float64(all), all, nil
}
