package backend

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestLlamaCppStreams replays streams recorded from llama.cpp's
// llama-server (Debian's llama.cpp 0.7.0, b11669; the tiny random model of
// ../shared/realserver) and checks the record against vLLM's rules
// computed independently here from the same events: TTFT at the first
// event with a non-empty choices list (the chat role chunk, whose content
// is null, counts, as in vLLM), one ITL per later such event (the last
// completions chunk, empty text beside its usage, included), the counts
// from usage, and llama.cpp's timings kept as the server's own times. The
// recordings hold a chunk with two tokens (a UTF-8 character spanning
// tokens: 40 tokens in 39 text chunks) and answer a model name other than
// the one asked for.
func TestLlamaCppStreams(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ file, backend string }{
		{"testdata/llamacpp/completions.sse", "openai"},
		{"testdata/llamacpp/chat.sse", "openai-chat"},
	} {
		t.Run(tt.backend, func(t *testing.T) {
			t.Parallel()
			raw, err := os.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			events := strings.SplitAfter(strings.TrimSpace(string(raw)), "\n\n")
			want := llamaReference(t, events)
			srv := sseServer(t, events...)
			b := spec(t, tt.backend).Impl
			c := &Client{HTTP: srv.Client(), Now: (&tickClock{}).Now}
			req := &Request{APIURL: srv.URL + "/v1/completions", Model: "some-other-name"}
			out := c.Do(guard(t), b, req, b.Body(req))
			if !out.Success {
				t.Fatalf("failed: %s", out.Error)
			}
			if out.TTFT != want.ttft || out.Latency != want.latency || len(out.ITL) != want.itls {
				t.Errorf("ttft %v latency %v itls %d, want %v %v %d", out.TTFT, out.Latency, len(out.ITL), want.ttft, want.latency, want.itls)
			}
			if out.OutputTokens != want.tokens || out.PromptLen != want.prompt || out.GeneratedText != want.text {
				t.Errorf("tokens %d prompt %d text %q, want %d %d %q", out.OutputTokens, out.PromptLen, out.GeneratedText, want.tokens, want.prompt, want.text)
			}
			if out.ServerPromptTime == nil || *out.ServerPromptTime != want.promptS ||
				out.ServerDecodeTime == nil || *out.ServerDecodeTime != want.decodeS {
				t.Errorf("server times %v %v, want %v %v", out.ServerPromptTime, out.ServerDecodeTime, want.promptS, want.decodeS)
			}
			if want.textChunks >= want.tokens {
				t.Errorf("the recording has %d tokens in %d text chunks: no chunk with several tokens", want.tokens, want.textChunks)
			}
		})
	}
}

// llamaWant is what vLLM's request functions make of a recorded stream
// whose event k (from 0) is read at clock reading k+1, the request sent at
// 0.
type llamaWant struct {
	ttft, latency    float64
	itls, textChunks int
	tokens, prompt   int
	text             string
	promptS, decodeS float64
}

// llamaReference follows vllm/benchmarks/lib/endpoint_request_func.py
// (11dfa3169) over the events with encoding/json, with gobench's one
// difference: usage is read beside choices too (vLLM reads it only from a
// chunk without choices, and re-tokenizes the text otherwise).
func llamaReference(t *testing.T, events []string) llamaWant {
	t.Helper()
	var w llamaWant
	first, last := -1, -1
	for k, ev := range events {
		data := strings.TrimSpace(strings.TrimPrefix(ev, "data: "))
		if data == "[DONE]" {
			break
		}
		var chunk struct {
			Choices []struct {
				Text  *string
				Delta struct{ Content *string }
			}
			Usage *struct {
				CompletionTokens int `json:"completion_tokens"`
				PromptTokens     int `json:"prompt_tokens"`
			}
			Timings *struct {
				PromptMS    float64 `json:"prompt_ms"`
				PredictedMS float64 `json:"predicted_ms"`
			}
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			t.Fatalf("event %d: %v", k, err)
		}
		if len(chunk.Choices) > 0 {
			if first < 0 {
				first = k
			} else {
				w.itls++
			}
			last = k
			text := chunk.Choices[0].Text
			if text == nil {
				text = chunk.Choices[0].Delta.Content
			}
			if text != nil && *text != "" {
				w.text += *text
				w.textChunks++
			}
		}
		if u := chunk.Usage; u != nil {
			w.tokens, w.prompt = u.CompletionTokens, u.PromptTokens
		}
		if tm := chunk.Timings; tm != nil {
			w.promptS, w.decodeS = tm.PromptMS/1000, tm.PredictedMS/1000
		}
	}
	w.ttft, w.latency = float64(first+1), float64(last+1)
	return w
}
