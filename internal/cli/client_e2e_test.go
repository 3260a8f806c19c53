package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/tokenizer"
)

// These tests run `gobench serve` through Main against hostile servers.
// Each run is guarded by a context far
// longer than a passing run takes, so a client that hangs fails the test
// instead of the suite.

// e2eGuard bounds one run.
const e2eGuard = 60 * time.Second

// streamingServer answers POST /v1/completions and /v1/chat/completions
// with handle; every other path is 404 (the /metrics scrapes).
func streamingServer(t *testing.T, handle http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "completions") {
			http.NotFound(w, r)
			return
		}
		io.Copy(io.Discard, r.Body) // then r.Context() ends when the client hangs up
		w.Header().Set("Content-Type", "text/event-stream")
		handle(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// sendEvents writes and flushes events.
func sendEvents(w http.ResponseWriter, events ...string) {
	for _, e := range events {
		io.WriteString(w, e)
	}
	w.(http.Flusher).Flush()
}

// repeat writes ev every few milliseconds until the client goes away.
func repeat(w http.ResponseWriter, r *http.Request, ev string) {
	for r.Context().Err() == nil {
		if _, err := io.WriteString(w, ev); err != nil {
			return
		}
		w.(http.Flusher).Flush()
		time.Sleep(10 * time.Millisecond)
	}
}

// token is one token event of the completions or the chat API.
func token(chat bool, text string) string {
	if chat {
		return fmt.Sprintf("data: {\"choices\":[{\"delta\":{\"content\":%q}}]}\n\n", text)
	}
	return fmt.Sprintf("data: {\"choices\":[{\"text\":%q}]}\n\n", text)
}

const (
	usageEvent = "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":8,\"completion_tokens\":3}}\n\n"
	doneEvent  = "data: [DONE]\n\n"
)

// serveAgainst runs `gobench serve` against url with a small random dataset
// and the built-in tokenizer, saving the detailed result; it returns the
// exit status, the outputs and the saved result (nil when none).
func serveAgainst(t *testing.T, url string, extra ...string) (int, string, map[string]any) {
	t.Helper()
	dir := t.TempDir()
	args := append([]string{"serve", "--base-url", url, "--model", "m", "--tokenizer", tokenizer.BuiltinName,
		"--dataset-name", "random", "--random-input-len", "8", "--random-output-len", "3", "--num-prompts", "3",
		"--save-result", "--save-detailed", "--result-dir", dir, "--result-filename", "r.json"}, extra...)
	ctx, cancel := context.WithTimeout(context.Background(), e2eGuard)
	defer cancel()
	var out, errOut bytes.Buffer
	code := Main(ctx, args, Deps{Stdout: &out, Stderr: &errOut, Version: "test"})
	if ctx.Err() != nil {
		t.Fatalf("the run hung for %v:\n%s\n%s", e2eGuard, &out, &errOut)
	}
	var res map[string]any
	if b, err := os.ReadFile(filepath.Join(dir, "r.json")); err == nil {
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
	}
	return code, out.String() + errOut.String(), res
}

// savedErrors are the saved result's error texts.
func savedErrors(t *testing.T, res map[string]any) []string {
	t.Helper()
	if res == nil {
		t.Fatal("no result saved")
	}
	var errs []string
	for _, e := range res["errors"].([]any) {
		errs = append(errs, e.(string))
	}
	return errs
}

// TestServeEndsAtDone: a server that sends [DONE] and keeps the response
// open does not hang the run; every request succeeds (item 5).
func TestServeEndsAtDone(t *testing.T) {
	t.Parallel()
	srv := streamingServer(t, func(w http.ResponseWriter, r *http.Request) {
		sendEvents(w, token(false, "a"), token(false, "b"), token(false, "c"), usageEvent, doneEvent)
		<-r.Context().Done()
	})
	code, out, res := serveAgainst(t, srv.URL)
	if code != 0 || res["completed"] != 3.0 {
		t.Fatalf("exit %d, saved completed %v\n%s", code, res["completed"], out)
	}
}

// TestServeReadTimeoutCountsProgress: with --read-timeout, a server that
// sends a token and then only SSE comments fails each request after the
// timeout, saying so, instead of hanging the run (item 6). The timeout is
// 2 s, not less: a loaded machine that held the first bytes back longer
// than the timeout would turn "only N bytes" into "no data".
func TestServeReadTimeoutCountsProgress(t *testing.T) {
	t.Parallel()
	srv := streamingServer(t, func(w http.ResponseWriter, r *http.Request) {
		sendEvents(w, token(false, "a"))
		repeat(w, r, ": keep-alive\n\n")
	})
	code, out, res := serveAgainst(t, srv.URL, "--read-timeout", "2")
	if code != int(exitcode.AllFailed) {
		t.Errorf("exit %d, want %d\n%s", code, exitcode.AllFailed, out)
	}
	for i, e := range savedErrors(t, res) {
		if !strings.HasPrefix(e, "timed out: no token from the server for 2s, only ") || !strings.HasSuffix(e, "(--read-timeout / VLLM_BENCH_SOCK_READ)") {
			t.Errorf("request %d: error %q", i, e)
		}
	}
}

// TestServeRequestTimeout: --request-timeout bounds a request that streams
// tokens forever (item 6), and must be a positive number of seconds.
func TestServeRequestTimeout(t *testing.T) {
	t.Parallel()
	srv := streamingServer(t, func(w http.ResponseWriter, r *http.Request) {
		repeat(w, r, token(false, "a"))
	})
	code, out, res := serveAgainst(t, srv.URL, "--request-timeout", "0.3", "--read-timeout", "60")
	if code != int(exitcode.AllFailed) {
		t.Errorf("exit %d, want %d\n%s", code, exitcode.AllFailed, out)
	}
	for i, e := range savedErrors(t, res) {
		if e != "timed out: the request did not finish within 300ms (--request-timeout)" {
			t.Errorf("request %d: error %q", i, e)
		}
	}
	for _, v := range []string{"0", "-1"} {
		code, out, _ := serveAgainst(t, srv.URL, "--request-timeout", v)
		if code != int(exitcode.BadUsage) || !strings.Contains(out, "argument --request-timeout: must be a positive number of seconds") {
			t.Errorf("--request-timeout %s: exit %d\n%s", v, code, out)
		}
	}
}

// TestServeRedirects: the run's requests never follow a redirect to
// another host, whose server receives nothing (the user's --header
// included), nor one that turns a POST into a GET; each failure names the
// Location (item 10).
func TestServeRedirects(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var leaked []string
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leaked = append(leaked, r.Method+" "+r.URL.Path+" X-Api-Key="+r.Header.Get("X-Api-Key"))
		mu.Unlock()
		if r.URL.Path == "/v1/models" {
			io.WriteString(w, `{"data":[{"id":"m"}]}`)
			return
		}
		sendEvents(w, token(false, "a"), doneEvent)
	}))
	defer elsewhere.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/away/v1/completions", r.URL.Path == "/v1/models":
			http.Redirect(w, r, elsewhere.URL+strings.TrimPrefix(r.URL.Path, "/away"), http.StatusTemporaryRedirect)
		case r.URL.Path == "/get/v1/completions" && r.Method == http.MethodPost:
			http.Redirect(w, r, "/get/v1/completions", http.StatusFound)
		case r.URL.Path == "/get/v1/completions": // the GET a 302 would make
			sendEvents(w, token(false, "a"), doneEvent)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	header := []string{"--header", "X-Api-Key=secret"}

	code, out, res := serveAgainst(t, srv.URL+"/away", header...)
	if code != int(exitcode.AllFailed) {
		t.Errorf("307 to another host: exit %d, want %d\n%s", code, exitcode.AllFailed, out)
	}
	want := "redirect not followed: HTTP 307 Temporary Redirect to " + elsewhere.URL + "/v1/completions: it points to another host"
	for i, e := range savedErrors(t, res) {
		if !strings.HasPrefix(e, want) {
			t.Errorf("307 to another host: request %d error %q, want %q", i, e, want)
		}
	}

	code, out, res = serveAgainst(t, srv.URL+"/get", header...)
	if code != int(exitcode.AllFailed) {
		t.Errorf("302 of a POST: exit %d, want %d\n%s", code, exitcode.AllFailed, out)
	}
	want = "redirect not followed: HTTP 302 Found to " + srv.URL + "/get/v1/completions: following it would turn the POST into a GET"
	for i, e := range savedErrors(t, res) {
		if e != want {
			t.Errorf("302 of a POST: request %d error %q, want %q", i, e, want)
		}
	}

	// Without --model, GET /v1/models is redirected too.
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code = Main(context.Background(), []string{"serve", "--base-url", srv.URL, "--tokenizer", tokenizer.BuiltinName,
		"--num-prompts", "1", "--random-input-len", "8", "--random-output-len", "2", "--header", "X-Api-Key=secret",
		"--result-dir", dir}, Deps{Stdout: &stdout, Stderr: &stderr})
	want = "redirect not followed: HTTP 307 Temporary Redirect to " + elsewhere.URL + "/v1/models: it points to another host"
	if code != int(exitcode.Failure) || !strings.Contains(stderr.String(), want) {
		t.Errorf("/v1/models: exit %d, want %d and %q\n%s%s", code, exitcode.Failure, want, &stdout, &stderr)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(leaked) != 0 {
		t.Errorf("the other host received %q", leaked)
	}
}

// TestServeLatencyExcludesDelayedUsage: E2EL, and so TPOT, end at the
// last token event for completions and chat, not at a usage chunk the
// server sends 500 ms later (item 17, decided as upstream fixed it:
// vllm/benchmarks/lib/endpoint_request_func.py@02cfb534). The bound is the
// server's own clock: a latency that reached the usage chunk would be at
// least the server's time from receiving the request to sending the usage
// chunk; one that ends at the last token is shorter by about 500 ms.
func TestServeLatencyExcludesDelayedUsage(t *testing.T) {
	t.Parallel()
	const delay = 500 * time.Millisecond
	for _, api := range []struct {
		name string
		args []string
	}{
		{"completions", nil},
		{"chat", []string{"--backend", "openai-chat", "--endpoint", "/v1/chat/completions"}},
	} {
		t.Run(api.name, func(t *testing.T) {
			t.Parallel()
			chat := api.name == "chat"
			var mu sync.Mutex
			shortest := time.Duration(math.MaxInt64) // request received to usage sent
			srv := streamingServer(t, func(w http.ResponseWriter, r *http.Request) {
				received := time.Now()
				sendEvents(w, token(chat, "a"), token(chat, "b"), token(chat, "c"))
				time.Sleep(delay)
				mu.Lock()
				shortest = min(shortest, time.Since(received))
				mu.Unlock()
				sendEvents(w, usageEvent, doneEvent)
			})
			code, out, res := serveAgainst(t, srv.URL, api.args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, out)
			}
			lats, ttfts, itls := res["latencies"].([]any), res["ttfts"].([]any), res["itls"].([]any)
			if len(lats) != 3 {
				t.Fatalf("%d latencies saved, want 3", len(lats))
			}
			mu.Lock()
			defer mu.Unlock()
			for i := range lats {
				lat := lats[i].(float64)
				if time.Duration(lat*float64(time.Second)) >= shortest {
					t.Errorf("request %d: E2EL %.3fs reaches the usage chunk (sent %v after the request arrived)", i, lat, shortest)
				}
				// TPOT is (E2EL - TTFT) / (tokens - 1): E2EL - TTFT must
				// be the token gaps alone.
				sum := 0.0
				for _, g := range itls[i].([]any) {
					sum += g.(float64)
				}
				if d := lat - ttfts[i].(float64) - sum; math.Abs(d) > 1e-9 {
					t.Errorf("request %d: E2EL - TTFT - sum(ITL) = %g, want 0", i, d)
				}
			}
		})
	}
}
