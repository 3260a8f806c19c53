package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/tokenizer"
)

// startSim serves gobench's simulator on 127.0.0.1 with a free port.
func startSim(t *testing.T, ttft, itl time.Duration) *httptest.Server {
	t.Helper()
	s, err := sim.NewServer(sim.Config{TTFT: ttft, ITL: itl, Tokenizer: tokenizer.Builtin(), Root: tokenizer.BuiltinName})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return srv
}

// baseOptions are the command line's defaults for a small random run.
func baseOptions(url string) Options {
	o := DefaultOptions()
	o.BaseURL, o.NumPrompts, o.RequestIDPrefix, o.InterruptGrace = url, 12, "bench-test-", 5*time.Second
	o.Dataset.RandomInputLen, o.Dataset.RandomOutputLen = 32, 8
	return o
}

type buffers struct{ out, err bytes.Buffer }

func (b *buffers) env() Env {
	return Env{Stdout: &b.out, Stderr: &b.err, Version: "test"}
}

// readResult loads a saved result file.
func readResult(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("result file is not valid JSON: %v", err)
	}
	return m
}

// TestServeAgainstSim runs the whole pipeline against the simulator and
// checks the measured timing against its configured truth as far as
// causality bounds it: the client reads its clock before sending and after
// each event, so no request's TTFT is below the configured TTFT and no
// latency below TTFT + 7 ITL (its last token's due time), however loaded
// the machine. How close to them a run comes is BenchmarkServeTiming's
// number, not a pass mark.
func TestServeAgainstSim(t *testing.T) {
	t.Parallel()
	const ttft, itl = 40 * time.Millisecond, 8 * time.Millisecond
	for _, backendName := range []string{"openai", "openai-chat"} {
		t.Run(backendName, func(t *testing.T) {
			t.Parallel()
			srv := startSim(t, ttft, itl)
			dir := t.TempDir()
			o := baseOptions(srv.URL)
			o.Backend = backendName // the endpoint follows it
			o.Schedule.RequestRate, o.MaxConcurrency = 20, 4
			o.PercentileMetrics = []string{"ttft", "tpot", "itl", "e2el"}
			o.SaveResult, o.SaveDetailed, o.ResultDir = true, true, dir
			var b buffers
			res, err := Serve(context.Background(), o, b.env())
			if err != nil {
				t.Fatalf("Serve: %v\nstdout:\n%s\nstderr:\n%s", err, &b.out, &b.err)
			}
			m := res.Metrics
			if m.Completed != 12 || m.Failed != 0 {
				t.Fatalf("completed %d failed %d: %v", m.Completed, m.Failed, m.Failures)
			}
			// The server reports prompt_tokens; the dataset aims at 32 per
			// prompt (31 after the built-in tokenizer's BOS, as vLLM
			// subtracts special tokens) and may miss by a token or two when
			// decode/re-encode does not settle.
			if m.TotalInput < 12*29 || m.TotalInput > 12*34 || m.TotalOutput != 12*8 {
				t.Errorf("tokens in %d out %d, want about %d and exactly %d", m.TotalInput, m.TotalOutput, 12*32, 12*8)
			}
			for i, out := range m.Outputs {
				if out.TTFT < ttft.Seconds() || out.Latency < (ttft+7*itl).Seconds() {
					t.Errorf("request %d: TTFT %.3f ms, latency %.3f ms, earlier than the server sends", i, out.TTFT*1000, out.Latency*1000)
				}
				var sum float64
				for _, x := range out.ITL {
					sum += x
				}
				if math.Abs(out.Latency-out.TTFT-sum) > 1e-9 {
					t.Errorf("request %d: latency-ttft %.12f != sum(itl) %.12f", i, out.Latency-out.TTFT, sum)
				}
			}
			saved := readResult(t, res.File)
			for _, k := range []string{"date", "backend", "model_id", "tokenizer_id", "request_rate", "max_concurrency",
				"completed", "ttfts", "itls", "p99_ttft_ms", "mean_tpot_ms", "mean_client_queue_time_ms",
				"scheduled_offsets", "gobench_version", "end_reason"} {
				if _, ok := saved[k]; !ok {
					t.Errorf("result file lacks %q", k)
				}
			}
			if saved["end_reason"] != "completed" || saved["model_id"] != tokenizer.BuiltinName {
				t.Errorf("end_reason %v model_id %v", saved["end_reason"], saved["model_id"])
			}
			if !strings.Contains(b.out.String(), "============ Serving Benchmark Result ============") {
				t.Errorf("no result block in:\n%s", &b.out)
			}
			if want := "openai"; backendName == "openai" && !strings.HasPrefix(filepath.Base(res.File), want+"-20.0qps-concurrency4-gobench-builtin-") {
				t.Errorf("file name %s", res.File)
			}
		})
	}
}

// TestDryRunSchedule checks that --dry-run prints the schedule NumPy gives
// for seed 0, rate 4, burstiness 1, 10 requests (the first schedule vector
// of internal/schedule/testdata, computed with NumPy 1.24.2).
func TestDryRunSchedule(t *testing.T) {
	t.Parallel()
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	o := baseOptions(srv.URL)
	o.NumPrompts, o.Dataset.NumPrompts, o.Schedule.RequestRate, o.DryRun = 10, 10, 4, true
	o.Tokenizer = tokenizer.BuiltinName
	var b buffers
	if _, err := Serve(context.Background(), o, b.env()); err != nil {
		t.Fatal(err)
	}
	if len(rc.calls) != 0 {
		t.Errorf("a dry run sent %v", rc.calls)
	}
	want := []float64{0.16651494361698596, 0.42928405864338953, 0.6224432168934422, 0.7871434983434323, 0.9024353031240259,
		1.119641702738419, 1.2400533329855568, 1.7052649190704874, 2.398819505162124, 2.5}
	lines := strings.Split(strings.TrimSpace(b.out.String()), "\n")
	var got []map[string]any
	for _, l := range lines {
		if strings.HasPrefix(l, "{") {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			got = append(got, m)
		}
	}
	if len(got) != 10 {
		t.Fatalf("%d JSON lines, want 10:\n%s", len(got), &b.out)
	}
	for i, m := range got {
		off := m["offset_s"].(float64)
		if math.Abs(off-want[i]) > 1e-9*want[i] {
			t.Errorf("request %d offset %v, NumPy %v", i, off, want[i])
		}
		if pl := m["prompt_len"].(float64); m["request_id"] != fmt.Sprintf("bench-test-%d", i) || pl < 29 || pl > 34 || m["output_len"].(float64) != 8 {
			t.Errorf("line %d: %v", i, m)
		}
	}
	if len(lines) != 10 {
		t.Errorf("stdout has %d lines, want only the 10 JSON lines:\n%s", len(lines), &b.out)
	}
}

// TestClientQueueTime is vLLM's test_serve_queue_time.py@0e913f02 end to
// end: the server waits 50 ms before its token, three requests at rate inf
// share one slot, so each waits for the previous one. vLLM's thresholds
// (queue times below 30 ms, above 30 ms, 30 ms more) compare client-side
// intervals with hard bounds, which a busy core breaks; they hold exactly
// at the dispatcher in a synctest bubble (TestDispatchQueueTime). Here the
// test checks what causality guarantees: no request starts before the one
// ahead of it ended, and each took the server's 50 ms.
func TestClientQueueTime(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.(http.Flusher).Flush()
		time.Sleep(50 * time.Millisecond)
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"text\":\"x\"}]}\n\n")
		io.WriteString(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}\n\n")
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "p.jsonl")
	os.WriteFile(path, []byte("{\"prompt\":\"hi\"}\n{\"prompt\":\"hi\"}\n{\"prompt\":\"hi\"}\n"), 0o644)
	o := baseOptions(srv.URL)
	o.Model, o.SkipTokenizerInit, o.MaxConcurrency, o.Schedule.Burstiness = "mock", true, 1, math.Inf(1)
	o.PercentileMetrics = []string{"ttft", "e2el"}
	o.NumPrompts = 3
	o.Dataset = dataset.Options{Name: "custom", Path: path, NumPrompts: 3, CustomOutputLen: 1, DisableShuffle: true}
	o.SaveResult, o.SaveDetailed, o.ResultDir = true, true, dir
	var b buffers
	res, err := Serve(context.Background(), o, b.env())
	if err != nil {
		t.Fatal(err)
	}
	saved := readResult(t, res.File)
	q := toFloats(saved["queue_times"])
	outs := res.Metrics.Outputs
	for i, out := range outs {
		if q[i] < 0 || out.Latency < 0.05 || (i > 0 && out.StartTime < outs[i-1].StartTime+outs[i-1].Latency) {
			t.Errorf("request %d: queue time %v, start %v, latency %v; the one before started %v and took %v",
				i, q[i], out.StartTime, out.Latency, outs[max(i-1, 0)].StartTime, outs[max(i-1, 0)].Latency)
		}
	}
	for _, k := range []string{"mean_client_queue_time_ms", "p99_client_queue_time_ms", "mean_e2el_including_client_queue_ms", "p99_e2el_including_client_queue_ms"} {
		if _, ok := saved[k]; !ok {
			t.Errorf("missing %s", k)
		}
	}
	if got, want := saved["mean_client_queue_time_ms"].(float64), (q[0]+q[1]+q[2])/3*1000; math.Abs(got-want) > 1e-9 {
		t.Errorf("mean_client_queue_time_ms %v, want %v", got, want)
	}
}

func toFloats(v any) []float64 {
	var out []float64
	for _, x := range v.([]any) {
		out = append(out, x.(float64))
	}
	return out
}

// TestHungStreamStillWritesResult is vLLM's
// test_serve_timeout.py@04a5ccf4: three custom prompts, one stream stalls;
// with a read timeout the run finishes with two completed, one failed,
// warns that a request timed out and still writes the file. The timeout,
// 2 s, is a thousand times what a healthy request here waits between two
// reads, so a busy core cannot make it cut one.
func TestHungStreamStillWritesResult(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\n")
		w.(http.Flusher).Flush()
		if bytes.Contains(body, []byte("stall")) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		io.WriteString(w, "data: {\"choices\":[],\"usage\":{\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "p.jsonl")
	os.WriteFile(path, []byte("{\"prompt\":\"one\"}\n{\"prompt\":\"stall\"}\n{\"prompt\":\"three\"}\n"), 0o644)
	o := baseOptions(srv.URL)
	o.Model, o.SkipTokenizerInit, o.NumPrompts = "mock", true, 3
	o.Dataset = dataset.Options{Name: "custom", Path: path, NumPrompts: 3, CustomOutputLen: 1}
	o.ReadTimeout = 2 * time.Second
	o.SaveResult, o.ResultDir = true, dir
	var b buffers
	res, err := Serve(context.Background(), o, b.env())
	if err != nil {
		t.Fatal(err)
	}
	if res.Metrics.Completed != 2 || res.Metrics.Failed != 1 {
		t.Fatalf("completed %d failed %d", res.Metrics.Completed, res.Metrics.Failed)
	}
	saved := readResult(t, res.File)
	if saved["completed"].(float64) != 2 || saved["failed"].(float64) != 1 {
		t.Errorf("saved completed %v failed %v", saved["completed"], saved["failed"])
	}
	if kinds, _ := saved["failure_kinds"].([]any); len(kinds) != 1 ||
		kinds[0].(map[string]any)["kind"] != "read timeout (--read-timeout)" || kinds[0].(map[string]any)["count"] != 1.0 {
		t.Errorf("saved failure_kinds %v", saved["failure_kinds"])
	}
	if !strings.Contains(b.err.String(), "timed out") {
		t.Errorf("no timeout warning on stderr:\n%s", &b.err)
	}
	if !strings.Contains(b.err.String(), "requests failed: ") || !strings.Contains(b.err.String(), "read timeout (--read-timeout)") {
		t.Errorf("failures not listed on stderr:\n%s", &b.err)
	}
}

// TestAllFailed: a server that always answers 500 gives ErrAllFailed, the
// errors are shown with the status and body, and the result is still there.
func TestAllFailed(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"boom"}}`, http.StatusInternalServerError)
	}))
	defer srv.Close()
	o := baseOptions(srv.URL)
	o.Model, o.Tokenizer, o.NumPrompts, o.Dataset.NumPrompts = "m", tokenizer.BuiltinName, 3, 3
	var b buffers
	res, err := Serve(context.Background(), o, b.env())
	if !errors.Is(err, ErrAllFailed) || res == nil || res.Metrics.Failed != 3 {
		t.Fatalf("err %v res %+v", err, res)
	}
	if !strings.Contains(b.err.String(), "3 of 3 requests failed: 3 HTTP 500\n  HTTP 500, e.g. HTTP 500 Internal Server Error: {\"error\":{\"message\":\"boom\"}}") {
		t.Errorf("error text not shown on stderr:\n%s", &b.err)
	}
	if !strings.Contains(b.err.String(), "All requests failed.") {
		t.Errorf("no warning:\n%s", &b.err)
	}
}

// interruptAt serves the simulator and closes the returned channel (the
// run's Stop) when the benchmark request with id arrives, before serving
// it; with hold that request is answered only when the client gives up. The
// interrupt so comes at a point of the run, not at an instant that a busy
// core may reach before the run has sent anything. The last result is the
// instant of the interrupt, in Unix nanoseconds.
func interruptAt(t *testing.T, id string, hold bool) (*httptest.Server, chan struct{}, *atomic.Int64) {
	t.Helper()
	s, err := sim.NewServer(sim.Config{TTFT: 20 * time.Millisecond, ITL: 10 * time.Millisecond, Tokenizer: tokenizer.Builtin(),
		Root: tokenizer.BuiltinName})
	if err != nil {
		t.Fatal(err)
	}
	stop, release := make(chan struct{}), make(chan struct{})
	var at atomic.Int64
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Request-Id") == id {
			once.Do(func() { at.Store(time.Now().UnixNano()); close(stop) })
			if hold {
				// The server notices the client hanging up only once the
				// body is read.
				_, _ = io.Copy(io.Discard, r.Body)
				select {
				case <-r.Context().Done():
				case <-release: // the test is over: do not hang its cleanup
				}
				return
			}
		}
		s.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first
	return srv, stop, &at
}

// TestInterrupt: the first interrupt stops sending; requests in flight
// finish (grace) and the result covers what was sent, with end_reason
// "interrupted". The interrupt comes when the third request arrives.
func TestInterrupt(t *testing.T) {
	t.Parallel()
	srv, stop, at := interruptAt(t, "bench-test-2", false)
	dir := t.TempDir()
	o := baseOptions(srv.URL)
	o.NumPrompts, o.Dataset.NumPrompts, o.Schedule.RequestRate = 200, 200, 20
	o.SaveResult, o.SaveDetailed, o.ResultDir = true, true, dir
	var b buffers
	env := b.env()
	env.Stop = stop
	res, err := Serve(context.Background(), o, env)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v", err)
	}
	// The schedule runs for 10 s (200 requests at 20 per second); the
	// requests in flight take 90 ms. Half the schedule is fifty times that.
	if el := time.Since(time.Unix(0, at.Load())); el > 5*time.Second {
		t.Errorf("took %v after the interrupt", el)
	}
	n := len(res.Metrics.Outputs)
	if n < 3 || n >= 200 {
		t.Fatalf("%d requests reported", n)
	}
	if res.Metrics.Failed != 0 {
		t.Errorf("%d failed: requests in flight should have finished within the grace: %v", res.Metrics.Failed, res.Metrics.Failures)
	}
	saved := readResult(t, res.File)
	if saved["end_reason"] != "interrupted" || len(saved["scheduled_offsets"].([]any)) != n {
		t.Errorf("end_reason %v, %d offsets for %d requests", saved["end_reason"], len(saved["scheduled_offsets"].([]any)), n)
	}
}

// TestInterruptCancel: with no grace, requests in flight are cancelled and
// reported as failed with a cancellation error; the file is still written.
// The interrupt comes when the first request arrives, which the server
// then never answers: it is in flight whenever the cancellation comes.
func TestInterruptCancel(t *testing.T) {
	t.Parallel()
	srv, stop, _ := interruptAt(t, "bench-test-0", true)
	dir := t.TempDir()
	o := baseOptions(srv.URL)
	o.NumPrompts, o.Dataset.NumPrompts, o.Schedule.RequestRate = 50, 50, 50
	o.InterruptGrace = 0
	o.SaveResult, o.ResultDir = true, dir
	var b buffers
	env := b.env()
	env.Stop = stop
	res, err := Serve(context.Background(), o, env)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v", err)
	}
	if res.Metrics.Failed == 0 || !strings.HasPrefix(res.Metrics.Failures[0], "cancelled") {
		t.Errorf("failures %v", res.Metrics.Failures)
	}
	if _, err := os.Stat(res.File); err != nil {
		t.Error(err)
	}
}

// recorder is a fake vLLM that records what it is asked.
type recorder struct {
	mu    sync.Mutex
	calls []string
	hdrs  []http.Header
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rc.mu.Lock()
	rc.calls = append(rc.calls, r.Method+" "+r.URL.Path)
	rc.hdrs = append(rc.hdrs, r.Header.Clone())
	rc.mu.Unlock()
	switch r.URL.Path {
	case "/v1/models":
		io.WriteString(w, `{"object":"list","data":[{"id":"served","root":"`+tokenizer.BuiltinName+`"}]}`)
	case "/start_profile", "/stop_profile":
	default:
		io.WriteString(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choices\":[{\"text\":\"b\"}]}\n\ndata: [DONE]\n\n")
	}
}

// TestProfileHeadersAndModel: the model comes from GET /v1/models; the
// profiler calls bracket the run; every call carries --header values and the
// API key, which never appears in the output or the saved file.
func TestProfileHeadersAndModel(t *testing.T) {
	t.Parallel()
	rc := &recorder{}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	dir := t.TempDir()
	o := baseOptions(srv.URL)
	o.NumPrompts, o.Dataset.NumPrompts, o.Profile = 2, 2, true
	o.Headers = []backendHeader{{Key: "X-Tenant", Value: "t1"}}
	o.APIKey = "sk-very-secret"
	o.SaveResult, o.SaveDetailed, o.ResultDir = true, true, dir
	var b buffers
	res, err := Serve(context.Background(), o, b.env())
	if err != nil {
		t.Fatal(err)
	}
	rc.mu.Lock()
	calls := append([]string(nil), rc.calls...)
	hdrs := rc.hdrs
	rc.mu.Unlock()
	want := []string{"GET /v1/models", "POST /start_profile", "POST /v1/completions", "POST /v1/completions", "POST /stop_profile"}
	var got []string
	// The random dataset's prompts are re-aligned through /tokenize first,
	// and /metrics is scraped around the run.
	for _, c := range calls {
		if c != "GET /metrics" && c != "POST /tokenize" {
			got = append(got, c)
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("calls %v, want %v", got, want)
	}
	// Every call, /tokenize and /metrics included (unlike vLLM), carries
	// the headers, so a run works behind an auth gateway.
	for i, h := range hdrs {
		if h.Get("X-Tenant") != "t1" || h.Get("Authorization") != "Bearer sk-very-secret" {
			t.Errorf("%s headers %v", calls[i], h)
		}
	}
	saved, _ := os.ReadFile(res.File)
	for _, where := range []string{b.out.String(), b.err.String(), string(saved)} {
		if strings.Contains(where, "sk-very-secret") {
			t.Fatal("the API key leaked into the output or the result file")
		}
	}
	if !strings.Contains(b.err.String(), "Model: served (weights "+tokenizer.BuiltinName+"), the first the server lists") {
		t.Errorf("model discovery not reported:\n%s", &b.err)
	}
}

type (
	backendHeader = backend.Header
)

// TestTTFTAgainstServerTruth compares each request's client TTFT with the
// simulator's own record of when it started writing the first token event
// (its per-request metrics, as vLLM's --enable-per-request-metrics). The
// client reads its clock before the request leaves and after the event
// arrives, so its TTFT is never below the server's (which is rounded to the
// microsecond). How far above it is the machine's share: on a quiet machine
// well under 1 ms, on a busy one anything; BenchmarkServeTiming reports it.
func TestTTFTAgainstServerTruth(t *testing.T) {
	t.Parallel()
	res := serveWithServerTruth(t, t.TempDir())
	for i, out := range res.Metrics.Outputs {
		if out.ServerTTFT == nil {
			t.Fatalf("request %d: no server TTFT", i)
		}
		if d := out.TTFT - *out.ServerTTFT; d < -1e-6 {
			t.Errorf("request %d: client TTFT %.3f ms, below the server's %.3f ms", i, out.TTFT*1000, *out.ServerTTFT*1000)
		}
	}
	saved := readResult(t, res.File)
	if len(saved["server_ttfts"].([]any)) != len(res.Metrics.Outputs) {
		t.Errorf("server_ttfts not saved: %v", saved["server_ttfts"])
	}
}

// serveWithServerTruth runs 12 requests (TTFT 30 ms, ITL 5 ms, 8 tokens
// each) against the simulator with its per-request metrics, saving the
// result in dir.
func serveWithServerTruth(tb testing.TB, dir string) *Result {
	tb.Helper()
	s, err := sim.NewServer(sim.Config{TTFT: 30 * time.Millisecond, ITL: 5 * time.Millisecond, Tokenizer: tokenizer.Builtin(),
		Root: tokenizer.BuiltinName, EnablePerRequestMetrics: true})
	if err != nil {
		tb.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	o := baseOptions(srv.URL)
	o.Schedule.RequestRate, o.MaxConcurrency = 50, 8
	o.SaveResult, o.SaveDetailed, o.ResultDir = true, true, dir
	var b buffers
	res, err := Serve(context.Background(), o, b.env())
	if err != nil {
		tb.Fatalf("Serve: %v\nstderr:\n%s", err, &b.err)
	}
	return res
}

// BenchmarkServeTiming runs serveWithServerTruth per iteration and reports
// how far this machine's client readings are from the server's truth: the
// mean TTFT and TPOT over their configured 30 ms and 5 ms, and the client's
// TTFT minus the server's, median and worst.
//
//	go test -run '^$' -bench ServeTiming -benchtime 5x ./internal/run
func BenchmarkServeTiming(b *testing.B) {
	var ttft, tpot, gaps []float64
	for b.Loop() {
		res := serveWithServerTruth(b, b.TempDir())
		ttft = append(ttft, res.Metrics.TTFT.Mean-30)
		tpot = append(tpot, res.Metrics.TPOT.Mean-5)
		for _, out := range res.Metrics.Outputs {
			gaps = append(gaps, (out.TTFT-*out.ServerTTFT)*1000)
		}
	}
	b.ReportMetric(metrics.Median(ttft), "ttft-over-ms")
	b.ReportMetric(metrics.Median(tpot), "tpot-over-ms")
	b.ReportMetric(metrics.Median(gaps), "client-server-ttft-p50-ms")
	b.ReportMetric(slices.Max(gaps), "client-server-ttft-max-ms")
}
