package backend

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/pyjson"
)

// TestEmbeddingsBody: the payloads of vLLM's async_request_openai_embeddings
// and async_request_openai_embeddings_chat, key for key and in order
// (vllm/benchmarks/lib/endpoint_request_func.py@11dfa3169).
func TestEmbeddingsBody(t *testing.T) {
	t.Parallel()
	extra, err := pyjson.DecodeObject([]byte(`{"dimensions":8,"truncate_prompt_tokens":16}`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		backend string
		req     Request
		want    string
	}{
		{"openai-embeddings", Request{Prompt: "hi there", Model: "m", OutputLen: 128},
			`{"model":"m","input":"hi there","truncate_prompt_tokens":-1}`},
		{"openai-embeddings", Request{Prompt: "x", Model: "m", ModelName: "served", IgnoreEOS: true, ExtraBody: *extra},
			`{"model":"served","input":"x","truncate_prompt_tokens":16,"ignore_eos":true,"dimensions":8}`},
		{"openai-embeddings-chat", Request{Prompt: "hi", Model: "m"},
			`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"truncate_prompt_tokens":-1}`},
		{"openai-embeddings-chat", Request{Prompt: "hi", Model: "m", IgnoreEOS: true},
			`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"truncate_prompt_tokens":-1,"ignore_eos":true}`},
	}
	for _, tt := range tests {
		if got := string(spec(t, tt.backend).Impl.Body(&tt.req)); got != tt.want {
			t.Errorf("%s %+v:\n got %s\nwant %s", tt.backend, tt.req, got, tt.want)
		}
	}
}

// TestDecodePooling: the prompt length is usage.prompt_tokens, 0 without
// usage (vLLM's usage.get("prompt_tokens", 0)); an error object fails.
func TestDecodePooling(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		prompt     int
		errText    string
		bad        bool
	}{
		{"usage", `{"object":"list","data":[{"index":0,"object":"embedding","embedding":[0.5,-0.5]}],"usage":{"prompt_tokens":7,"total_tokens":7}}`, 7, "", false},
		{"no usage", `{"object":"list","data":[]}`, 0, "", false},
		{"null usage", `{"data":[],"usage":null}`, 0, "", false},
		{"error object", `{"object":"error","message":"too long","type":"BadRequestError","code":400}`, 0, "too long", false},
		{"error field", `{"error":{"message":"boom"}}`, 0, `{"message":"boom"}`, false},
		{"not json", `<html>`, 0, "", true},
	}
	for _, tt := range tests {
		var c Chunk
		err := Embeddings{}.Decode("", []byte(tt.body), &c)
		if (err != nil) != tt.bad {
			t.Errorf("%s: err %v", tt.name, err)
			continue
		}
		if err == nil && (c.PromptTokens != tt.prompt || c.Error != tt.errText) {
			t.Errorf("%s: prompt tokens %d error %q, want %d %q", tt.name, c.PromptTokens, c.Error, tt.prompt, tt.errText)
		}
	}
}

// TestDoPooling: a pooling answer is read whole; TTFT and latency are the
// one clock reading after its body, the prompt length is the server's (0
// for a failed request, as vLLM's fresh RequestFuncOutput has).
func TestDoPooling(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, answer string
		status       int
		ok           bool
		prompt       int
		errPrefix    string
	}{
		{"answer", `{"object":"list","data":[{"index":0,"object":"embedding","embedding":[1.0]}],"usage":{"prompt_tokens":12,"total_tokens":12}}`, 200, true, 12, ""},
		{"no usage", `{"object":"list","data":[]}`, 200, true, 0, ""},
		{"error in 200", `{"object":"error","message":"nope"}`, 200, false, 0, "server error: nope"},
		{"status", `{"object":"error","message":"bad"}`, 400, false, 0, "HTTP 400 Bad Request"},
	}
	for _, tt := range tests {
		for _, name := range []string{"openai-embeddings", "openai-embeddings-chat"} {
			b := spec(t, name).Impl
			var got string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				got = string(body)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.answer)
			}))
			clk := &tickClock{}
			c := &Client{HTTP: srv.Client(), Now: clk.Now}
			req := &Request{APIURL: srv.URL + "/v1/embeddings", PromptLen: 5, OutputLen: 128, Prompt: "p", Model: "m"}
			body := b.Body(req)
			out := c.Do(context.Background(), b, req, body)
			srv.Close()
			if got != string(body) {
				t.Errorf("%s %s: server got %s, want %s", name, tt.name, got, body)
			}
			if out.Success != tt.ok || !strings.HasPrefix(out.Error, tt.errPrefix) || out.PromptLen != tt.prompt {
				t.Errorf("%s %s: success %v error %q prompt len %d", name, tt.name, out.Success, out.Error, out.PromptLen)
			}
			if tt.ok && (out.TTFT != 1 || out.Latency != 1 || out.ITL != nil || out.OutputTokens != 0 || out.GeneratedText != "") {
				t.Errorf("%s %s: record %+v", name, tt.name, out)
			}
		}
	}
}

// endless is an answer body that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// TestDoPoolingBounded: a pooling answer is read whole, so an endless one
// fails its request at maxPoolingBody instead of exhausting memory.
func TestDoPoolingBounded(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(w, endless{}) // ends when the client hangs up
	}))
	defer srv.Close()
	b := spec(t, "openai-embeddings").Impl
	req := &Request{APIURL: srv.URL + "/v1/embeddings", Prompt: "p", Model: "m"}
	out := (&Client{HTTP: srv.Client(), Now: (&tickClock{}).Now}).Do(context.Background(), b, req, b.Body(req))
	if out.Success || !strings.Contains(out.Error, "larger than 64 MiB") {
		t.Errorf("success %v, error %q", out.Success, out.Error)
	}
}
