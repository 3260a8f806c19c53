package backend

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/google/go-cmp/cmp"
)

func TestBodies(t *testing.T) {
	t.Parallel()
	extra, err := pyjson.DecodeObject([]byte(`{"temperature":0,"max_tokens":7,"top_k":5}`))
	if err != nil {
		t.Fatal(err)
	}
	one := 1
	tests := []struct {
		name string
		b    Backend
		req  Request
		want string
	}{
		// vLLM's completions payload, key order included.
		{"completions", Completions{}, Request{Prompt: "hi <b>", Model: "m", OutputLen: 4},
			`{"model":"m","prompt":"hi <b>","repetition_penalty":1.0,"max_tokens":4,"logprobs":null,"stream":true,"stream_options":{"include_usage":true}}`},
		// served name wins, logprobs set, ignore_eos, extra body overrides in place and appends.
		{"completions extras", Completions{}, Request{Prompt: "p", Model: "m", ModelName: "served", OutputLen: 4, Logprobs: &one, IgnoreEOS: true, ExtraBody: *extra},
			`{"model":"served","prompt":"p","repetition_penalty":1.0,"max_tokens":7,"logprobs":1,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true,"temperature":0,"top_k":5}`},
		// chat sends the content-array form and max_completion_tokens.
		{"chat", Chat{}, Request{Prompt: "中文", Model: "m", OutputLen: 3},
			`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"中文"}]}],"max_completion_tokens":3,"stream":true,"stream_options":{"include_usage":true}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := string(tt.b.Body(&tt.req))
			if got != tt.want {
				t.Errorf("body\n got %s\nwant %s", got, tt.want)
			}
			if !json.Valid([]byte(got)) {
				t.Error("body is not valid JSON")
			}
		})
	}
}

// spec looks up a backend's Spec or fails the test.
func spec(t *testing.T, name string) *Spec {
	t.Helper()
	s, err := LookupSpec(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestValidateURL(t *testing.T) {
	t.Parallel()
	if err := spec(t, "openai").ValidateURL("http://h/v1/completions"); err != nil {
		t.Error(err)
	}
	if err := spec(t, "openai-chat").ValidateURL("http://h/start_profile"); err != nil {
		t.Error(err)
	}
	err := spec(t, "openai-chat").ValidateURL("http://h/v1/completions")
	want := "the OpenAI Chat Completions API URL must end with chat/completions"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	// Every backend vLLM accepts is built (the table keeps Impl-less specs
	// possible for a backend vLLM adds later: Lookup refuses those with
	// exitcode.ErrNotSupported).
	for _, s := range Specs() {
		if got, err := Lookup(s.Name); err != nil || got.Name != s.Name || !got.Supported() {
			t.Errorf("%s: %v", s.Name, err)
		}
	}
	if _, err := Lookup("nope"); err == nil {
		t.Error("unknown backend accepted")
	}
}

func TestDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		chat  bool
		typ   string
		data  string
		want  Chunk
		isErr bool
	}{
		// Completions token; extra fields ignored.
		{"text", false, "", `{"id":"x","choices":[{"index":0,"text":" a","finish_reason":null}]}`,
			Chunk{Token: true, Text: " a"}, false},
		// Empty text still counts as a token event.
		{"empty text", false, "", `{"choices":[{"text":""}]}`, Chunk{Token: true}, false},
		// Missing text too.
		{"no text", false, "", `{"choices":[{"index":0}]}`, Chunk{Token: true}, false},
		// Chat delta content.
		{"chat delta", true, "", `{"choices":[{"delta":{"content":"b"}}]}`, Chunk{Token: true, Text: "b"}, false},
		// Chat reasoning delta counts as a token event without text.
		{"chat reasoning", true, "", `{"choices":[{"delta":{"reasoning_content":"r"}}]}`, Chunk{Token: true}, false},
		// Empty choices and usage: the usage event.
		{"usage", false, "", `{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":3}}}`,
			Chunk{Usage: true, PromptTokens: 10, CompletionTokens: 5, CachedTokens: 3}, false},
		// Empty usage is falsy, as in Python.
		{"empty usage", false, "", `{"choices":[],"usage":{}}`, Chunk{}, false},
		// Per-request server metrics (vLLM --enable-per-request-metrics).
		{"metrics", true, "", `{"choices":[],"usage":{"completion_tokens":2},"metrics":{"queue_time_ms":0.0,"time_to_first_token_ms":1250.0}}`,
			Chunk{Usage: true, CompletionTokens: 2, ServerQueueMS: 0, ServerTTFTMS: 1250}, false},
		// vLLM's error event inside a 200 stream.
		{"error event", false, "", `{"error":{"object":"error","message":"boom","type":"BadRequestError","code":400}}`,
			Chunk{Error: "boom"}, false},
		// Flat error object.
		{"flat error", false, "", `{"object":"error","message":"flat"}`, Chunk{Error: "flat"}, false},
		{"llama.cpp timings", false, "", `{"choices":[{"text":"","finish_reason":"length"}],"usage":{"completion_tokens":5,"prompt_tokens":2},` +
			`"timings":{"cache_n":0,"prompt_n":2,"prompt_ms":5.891,"predicted_n":5,"predicted_ms":15.664}}`,
			Chunk{Token: true, CompletionTokens: 5, PromptTokens: 2, ServerPromptMS: 5.891, ServerDecodeMS: 15.664}, false},
		{"null timings", false, "", `{"choices":[{"text":"a"}],"timings":null}`, Chunk{Token: true, Text: "a"}, false},
		// SSE event: error with a non-JSON body.
		{"named error", false, "error", `overloaded`, Chunk{Error: "overloaded"}, false},
		// Broken JSON is an error.
		{"bad json", false, "", `{"choices":[`, Chunk{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var c Chunk
			err := decode(tt.typ, []byte(tt.data), &c, tt.chat)
			if (err != nil) != tt.isErr {
				t.Fatalf("err = %v", err)
			}
			if tt.isErr {
				return
			}
			want := tt.want
			for _, p := range []*int{&want.CompletionTokens, &want.PromptTokens, &want.CachedTokens} {
				if *p == 0 {
					*p = -1
				}
			}
			if want.ServerQueueMS == 0 && tt.name != "metrics" {
				want.ServerQueueMS = -1
			}
			for _, p := range []*float64{&want.ServerTTFTMS, &want.ServerPromptMS, &want.ServerDecodeMS} {
				if *p == 0 {
					*p = -1
				}
			}
			if diff := cmp.Diff(want, c); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// tickClock advances one tick per read, as the later upstream timing test
// (test_endpoint_request_func_timing.py@030cfc83) scripts it.
type tickClock struct {
	mu sync.Mutex
	t  float64
}

func (c *tickClock) Now() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	v := c.t
	c.t++
	return v
}

// sseServer serves the given events, flushing after each.
func sseServer(t *testing.T, events ...string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			io.WriteString(w, e)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func tokenEvents(chat bool, n int) []string {
	var evs []string
	for i := range n {
		if chat {
			evs = append(evs, fmt.Sprintf("data: {\"choices\":[{\"delta\":{\"content\":\"t%d \"}}]}\n\n", i))
		} else {
			evs = append(evs, fmt.Sprintf("data: {\"choices\":[{\"text\":\"t%d \"}]}\n\n", i))
		}
	}
	return evs
}

func TestDoTimingScripted(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"openai", "openai-chat"} {
		b := spec(t, name).Impl
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, chat := b.(Chat)
			evs := append(tokenEvents(chat, 5),
				"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":11,\"completion_tokens\":5}}\n\n",
				"data: [DONE]\n\n")
			srv := sseServer(t, evs...)
			clk := &tickClock{}
			c := &Client{HTTP: srv.Client(), Now: clk.Now}
			req := &Request{APIURL: srv.URL + "/v1/completions", PromptLen: 3}
			out := c.Do(context.Background(), b, req, b.Body(req))
			if !out.Success {
				t.Fatalf("failed: %s", out.Error)
			}
			// Clock read 0 is the start; token events are reads 1..5.
			if out.TTFT != 1 || out.Latency != 5 || len(out.ITL) != 4 {
				t.Fatalf("ttft %v latency %v itl %v", out.TTFT, out.Latency, out.ITL)
			}
			var sum float64
			for _, x := range out.ITL {
				sum += x
			}
			if out.Latency-out.TTFT != sum {
				t.Errorf("latency-ttft = %v, sum(itl) = %v", out.Latency-out.TTFT, sum)
			}
			if out.OutputTokens != 5 || out.PromptLen != 11 {
				t.Errorf("output tokens %d prompt len %d", out.OutputTokens, out.PromptLen)
			}
			if out.GeneratedText != "t0 t1 t2 t3 t4 " {
				t.Errorf("text %q", out.GeneratedText)
			}
		})
	}
}

func TestDoFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    string // substring of the error
	}{
		// Usage only: no token event.
		{"usage only", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "data: {\"choices\":[],\"usage\":{\"completion_tokens\":0}}\n\ndata: [DONE]\n\n")
		}, "TTFT"},
		// An error event after two tokens fails the request with the server's message.
		{"error event", func(w http.ResponseWriter, r *http.Request) {
			for _, e := range tokenEvents(false, 2) {
				io.WriteString(w, e)
			}
			io.WriteString(w, "data: {\"error\":{\"message\":\"KV cache exhausted\"}}\n\n")
		}, "KV cache exhausted"},
		// Non-200 keeps status and body.
		{"status", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"error":{"message":"overloaded"}}`)
		}, `HTTP 503 Service Unavailable: {"error":{"message":"overloaded"}}`},
		// A malformed event.
		{"malformed", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "data: {\"choices\":[}\n\n")
		}, "decode stream event"},
		// A stream cut inside an event.
		{"truncated", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"cho")
		}, "unterminated"},
		// A connection reset mid-stream.
		{"reset", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, tokenEvents(false, 1)[0])
			w.(http.Flusher).Flush()
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				panic(err)
			}
			if tc, ok := conn.(*net.TCPConn); ok {
				tc.SetLinger(0)
			}
			conn.Close()
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			c := &Client{HTTP: srv.Client(), Now: (&tickClock{}).Now}
			req := &Request{APIURL: srv.URL + "/v1/completions"}
			out := c.Do(context.Background(), Completions{}, req, Completions{}.Body(req))
			if out.Success || out.Error == "" {
				t.Fatalf("success=%v error=%q", out.Success, out.Error)
			}
			if !strings.Contains(out.Error, tt.want) {
				t.Errorf("error %q does not contain %q", out.Error, tt.want)
			}
		})
	}
}

func TestDoReadTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, tokenEvents(false, 1)[0])
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c := &Client{HTTP: srv.Client(), Now: (&tickClock{}).Now, ReadTimeout: 100 * time.Millisecond}
	req := &Request{APIURL: srv.URL + "/v1/completions"}
	out := c.Do(context.Background(), Completions{}, req, Completions{}.Body(req))
	if out.Success || !strings.Contains(out.Error, "timed out") {
		t.Fatalf("success=%v error=%q", out.Success, out.Error)
	}
}

func TestDoHeaders(t *testing.T) {
	t.Parallel()
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		io.WriteString(w, tokenEvents(false, 1)[0])
	}))
	defer srv.Close()
	c := &Client{HTTP: srv.Client(), Now: (&tickClock{}).Now, APIKey: "sk-secret"}
	req := &Request{APIURL: srv.URL + "/v1/completions", RequestID: "bench-1",
		ExtraHeaders: []Header{{"x-request-id", "user"}, {"X-Tenant", "a"}}}
	out := c.Do(context.Background(), Completions{}, req, Completions{}.Body(req))
	if !out.Success {
		t.Fatal(out.Error)
	}
	// x-request-id overrides a user header; Authorization from the key.
	for k, v := range map[string]string{"Authorization": "Bearer sk-secret", "X-Request-Id": "bench-1", "X-Tenant": "a", "Content-Type": "application/json"} {
		if got.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, got.Get(k), v)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add("", []byte(`{"choices":[{"text":"a"}]}`), false)
	f.Add("error", []byte(`{"error":{"message":"x"}}`), true)
	f.Add("", []byte(`{"choices":[],"usage":{"completion_tokens":3}}`), true)
	f.Fuzz(func(t *testing.T, typ string, data []byte, chat bool) {
		var c Chunk
		_ = decode(typ, data, &c, chat)
	})
}

func BenchmarkDecodeCompletions(b *testing.B) {
	data := []byte(`{"id":"cmpl-bench-0","object":"text_completion","created":1700000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"text":" word","logprobs":null,"finish_reason":null,"stop_reason":null}]}`)
	var c Chunk
	b.ReportAllocs()
	for range b.N {
		if err := decode("", data, &c, false); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDoTextIndependentOfSplits is the later upstream
// test_endpoint_request_func.py@2814c9cf end to end: the server writes the
// stream one byte per flush, and the generated text keeps its edge
// whitespace and its multi-byte character, for completions and chat.
func TestDoTextIndependentOfSplits(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"openai", "openai-chat"} {
		b := spec(t, name).Impl
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, chat := b.(Chat)
			field := `"text":" leading 中 trailing "`
			if chat {
				field = `"delta":{"content":" leading 中 trailing "}`
			}
			body := "data: {\"choices\":[{" + field + "}]}\n\ndata: [DONE]\n\n"
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for i := range len(body) {
					w.Write([]byte{body[i]})
					w.(http.Flusher).Flush()
				}
			}))
			defer srv.Close()
			c := &Client{HTTP: srv.Client(), Now: (&tickClock{}).Now}
			req := &Request{APIURL: srv.URL + "/v1/chat/completions"}
			out := c.Do(context.Background(), b, req, b.Body(req))
			if !out.Success || out.GeneratedText != " leading 中 trailing " {
				t.Fatalf("success %v text %q error %q", out.Success, out.GeneratedText, out.Error)
			}
		})
	}
}

// TestSpecs pins the table of backends: vLLM's names in vLLM's order, an
// endpoint suffix and a default endpoint the backend's own check accepts,
// and vLLM's OPENAI_COMPATIBLE_BACKENDS as the ones taking sampling
// parameters.
func TestSpecs(t *testing.T) {
	t.Parallel()
	want := []string{"vllm", "openai", "openai-chat", "openai-audio", "openai-embeddings",
		"openai-embeddings-chat", "openai-embeddings-clip", "openai-embeddings-vlm2vec",
		"infinity-embeddings", "infinity-embeddings-clip", "vllm-pooling", "vllm-rerank", "openai-responses"}
	if diff := cmp.Diff(want, Names()); diff != "" {
		t.Errorf("names (-vllm +gobench):\n%s", diff)
	}
	var sampling []string
	for _, s := range Specs() {
		if len(s.Suffixes) == 0 || s.APIName == "" {
			t.Errorf("%s: no suffix or API name", s.Name)
		}
		if err := s.ValidateURL("http://h" + s.DefaultEndpoint); err != nil {
			t.Errorf("%s: default endpoint %s: %v", s.Name, s.DefaultEndpoint, err)
		}
		if s.SamplingParams {
			sampling = append(sampling, s.Name)
		}
		if s.Task == Pooling && s.Streaming {
			t.Errorf("%s: a pooling backend does not stream", s.Name)
		}
	}
	if diff := cmp.Diff([]string{"vllm", "openai", "openai-chat", "openai-responses"}, sampling); diff != "" {
		t.Errorf("backends with sampling parameters (-vllm +gobench):\n%s", diff)
	}
}

// BenchmarkBody measures building one request body, done once per request
// when the run is planned: a 1000-character prompt, the sampling
// parameters and an --extra-body merged last.
func BenchmarkBody(b *testing.B) {
	extra, err := pyjson.DecodeObject([]byte(`{"temperature":0.0,"top_p":0.9,"top_k":5,"min_tokens":3}`))
	if err != nil {
		b.Fatal(err)
	}
	prompt := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 22)
	for _, bk := range []struct {
		name string
		b    Backend
	}{{"completions", Completions{}}, {"chat", Chat{}}} {
		b.Run(bk.name, func(b *testing.B) {
			req := Request{Prompt: prompt, Model: "meta-llama/Llama-3.1-8B-Instruct", OutputLen: 128, IgnoreEOS: true, ExtraBody: *extra}
			b.ReportAllocs()
			for b.Loop() {
				_ = bk.b.Body(&req)
			}
		})
	}
}
