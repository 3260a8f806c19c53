package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/tokenizer"
)

// hostile is a misbehaving OpenAI-compatible server for end-to-end tests:
// /v1/completions streams tokens like vLLM, and each knob makes one part of
// it misbehave. It records what it was asked.
type hostile struct {
	// tokens is the number of token events of a healthy stream.
	tokens int
	// stallAfter > 0 stalls every stream after that many token events,
	// until the client goes away.
	stallAfter int
	// holdMetrics makes GET /metrics wait until the client goes away.
	holdMetrics bool

	posts       atomic.Int64
	metricsHits atomic.Int64
	// streaming is closed when the first stream has sent a token.
	streaming chan struct{}
	once      atomic.Bool
}

func newHostile(t *testing.T, h *hostile) *httptest.Server {
	t.Helper()
	h.streaming = make(chan struct{})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func (h *hostile) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/metrics":
		h.metricsHits.Add(1)
		if h.holdMetrics {
			<-r.Context().Done()
			return
		}
		fmt.Fprintln(w, "# no counters")
	case "/v1/completions":
		h.posts.Add(1)
		_, _ = io.Copy(io.Discard, r.Body) // so that the server sees the client go
		h.stream(w, r)
	default:
		http.NotFound(w, r)
	}
}

// stream writes the token events, stalling when asked.
func (h *hostile) stream(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	for i := range h.tokens {
		if h.stallAfter > 0 && i == h.stallAfter {
			<-r.Context().Done()
			return
		}
		fmt.Fprintf(w, "data: {\"choices\":[{\"text\":\"t%d \"}]}\n\n", i)
		fl.Flush()
		if h.once.CompareAndSwap(false, true) {
			close(h.streaming)
		}
	}
	fmt.Fprintf(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":%d}}\n\ndata: [DONE]\n\n", h.tokens)
}

// interruptRun runs `gobench serve` against url in-process, feeding
// signals through send once ready says so, and returns the exit status,
// stderr and the saved result (nil when none).
func interruptRun(t *testing.T, url string, extra []string, ready <-chan struct{}, send ...os.Signal) (int, string, map[string]any) {
	t.Helper()
	dir := t.TempDir()
	sigs := make(chan os.Signal, len(send))
	go func() {
		<-ready
		for _, s := range send {
			sigs <- s
			time.Sleep(50 * time.Millisecond) // the relay reads one step at a time
		}
	}()
	args := append([]string{"serve", "--base-url", url, "--model", "m", "--tokenizer", tokenizer.BuiltinName,
		"--num-prompts", "4", "--random-input-len", "8", "--random-output-len", "16", "--max-concurrency", "2",
		"--save-result", "--save-detailed", "--result-dir", dir, "--result-filename", "r.json"}, extra...)
	var out, errOut bytes.Buffer
	code := Main(context.Background(), args, Deps{Stdout: &out, Stderr: &errOut, Signals: sigs})
	b, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		return code, errOut.String(), nil
	}
	var res map[string]any
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("saved result is not JSON: %v", err)
	}
	return code, errOut.String(), res
}

// metricsCalled closes when the server has been asked for /metrics.
func metricsCalled(h *hostile) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		for h.metricsHits.Load() == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		close(ch)
	}()
	return ch
}

// TestInterruptBeforeFirstRequest: one or two Ctrl-Cs
// while the run scrapes the server's counters before its first request
// end it as interrupted (exit 130, end_reason "interrupted", no "every
// request failed"), and no request is sent after "no new requests are
// sent".
func TestInterruptBeforeFirstRequest(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d interrupts", n), func(t *testing.T) {
			t.Parallel()
			h := &hostile{tokens: 4, holdMetrics: true}
			srv := newHostile(t, h)
			send := []os.Signal{os.Interrupt, os.Interrupt}[:n]
			code, errOut, res := interruptRun(t, srv.URL, nil, metricsCalled(h), send...)
			if code != int(exitcode.Interrupted) {
				t.Errorf("exit %d, want 130\n%s", code, errOut)
			}
			if h.posts.Load() != 0 {
				t.Errorf("%d requests sent after the interrupt", h.posts.Load())
			}
			if res == nil || res["end_reason"] != "interrupted" || res["completed"] != 0.0 {
				t.Errorf("saved result %v", res)
			}
			if bytes.Contains([]byte(errOut), []byte("every request failed")) || bytes.Contains([]byte(errOut), []byte("All requests failed")) {
				t.Errorf("an interrupt reported as failed requests:\n%s", errOut)
			}
		})
	}
}

// TestQuickSignalsSave: SIGTERM and SIGHUP stop a run
// whose streams stall, with --interrupt-grace 300, and the result is saved
// long before the grace would end (at most run.QuickGrace for the requests
// in flight, then at most a second per call to the server). The bound
// checked, 60 s, is 20 times what the run needs and 5 times less than the
// grace: it cannot flake and still fails without the quick grace.
func TestQuickSignalsSave(t *testing.T) {
	t.Parallel()
	for _, sig := range []os.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			h := &hostile{tokens: 16, stallAfter: 2}
			srv := newHostile(t, h)
			start := time.Now()
			code, errOut, res := interruptRun(t, srv.URL, []string{"--interrupt-grace", "300"}, h.streaming, sig)
			if took := time.Since(start); took > 60*time.Second {
				t.Errorf("saved %s after the signal; the grace was 300 s", took)
			}
			if code != int(exitcode.Interrupted) {
				t.Errorf("exit %d, want 130\n%s", code, errOut)
			}
			if res == nil || res["end_reason"] != "interrupted" {
				t.Fatalf("saved result %v\n%s", res, errOut)
			}
			if errs, _ := res["errors"].([]any); len(errs) == 0 {
				t.Errorf("the stalled requests in flight are not in the result: %v", res)
			}
		})
	}
}

// TestThirdInterruptSaves: three Ctrl-Cs save what was
// measured and exit, even while the server holds its /metrics answer.
func TestThirdInterruptSaves(t *testing.T) {
	t.Parallel()
	h := &hostile{tokens: 16, stallAfter: 2}
	srv := newHostile(t, h)
	code, errOut, res := interruptRun(t, srv.URL, []string{"--interrupt-grace", "300"}, h.streaming,
		os.Interrupt, os.Interrupt, os.Interrupt)
	if code != int(exitcode.Interrupted) || res == nil || res["end_reason"] != "interrupted" {
		t.Errorf("exit %d, result %v\n%s", code, res, errOut)
	}
}
