package backend

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobench/gobench/internal/pyjson"
)

// The events of a Responses stream, framed as /v1/responses frames them
// (vllm/tests/benchmarks/test_responses_request_func.py@34d570f4).
func sseEvent(typ, fields string) string {
	return fmt.Sprintf("event: %s\ndata: {\"type\":%q%s}\n\n", typ, typ, fields)
}

func textDelta(s string) string {
	d, _ := json.Marshal(s)
	return sseEvent("response.output_text.delta", `,"delta":`+string(d))
}

func usageEvent(status string, in, out int) string {
	return sseEvent("response."+status, fmt.Sprintf(`,"response":{"status":%q,"usage":{"input_tokens":%d,"output_tokens":%d,"total_tokens":%d}}`,
		status, in, out, in+out))
}

var responsesPreamble = sseEvent("response.created", `,"response":{"status":"in_progress"}`) +
	sseEvent("response.in_progress", `,"response":{"status":"in_progress"}`) +
	sseEvent("response.output_item.added", `,"output_index":0`) +
	sseEvent("response.content_part.added", `,"output_index":0`)

// serveResponses answers one request with script, written in pieces of
// chunk bytes (0: each item whole), and returns the record.
func serveResponses(t *testing.T, status, chunk int, script ...string) RequestRecord {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if status != http.StatusOK {
			http.Error(w, "Bad Request", status)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, item := range script {
			for len(item) > 0 {
				n := len(item)
				if chunk > 0 {
					n = min(chunk, n)
				}
				io.WriteString(w, item[:n])
				w.(http.Flusher).Flush()
				item = item[n:]
			}
		}
	}))
	defer srv.Close()
	b := Responses{}
	c := &Client{HTTP: srv.Client(), Now: (&tickClock{}).Now}
	req := &Request{APIURL: srv.URL + "/v1/responses", Prompt: "Why is the sky blue?", PromptLen: 5, OutputLen: 16, Model: "m"}
	out := c.Do(guard(t), b, req, b.Body(req))
	return RequestRecord{Success: out.Success, Error: out.Error, Text: out.GeneratedText, TTFT: out.TTFT, ITL: out.ITL,
		Latency: out.Latency, PromptLen: out.PromptLen, OutputTokens: out.OutputTokens}
}

// RequestRecord is the part of a record the Responses tests compare.
type RequestRecord struct {
	Success                 bool
	Error, Text             string
	TTFT, Latency           float64
	ITL                     []float64
	PromptLen, OutputTokens int
}

// TestResponsesTiming: the preamble and keep-alive comments do not start
// the clock, a reasoning delta does (its text is not kept), each later
// token event adds an ITL, and the latency runs to response.completed,
// whose usage gives both lengths. The clock ticks once per event read
// (0 is the start), so the readings name the events.
func TestResponsesTiming(t *testing.T) {
	t.Parallel()
	got := serveResponses(t, http.StatusOK, 0,
		responsesPreamble, // readings 1-4
		": keep-alive\n\n",
		sseEvent("response.reasoning_text.delta", `,"delta":"The user asks "`), // 5
		textDelta("Rayleigh"),          // 6
		textDelta(" scattering."),      // 7
		usageEvent("completed", 17, 8), // 8
	)
	want := RequestRecord{Success: true, Text: "Rayleigh scattering.", TTFT: 5, ITL: []float64{1, 1}, Latency: 8, PromptLen: 17, OutputTokens: 8}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
}

// TestResponsesOutcomes: which streams succeed, and the error a failed
// one keeps.
func TestResponsesOutcomes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		status    int
		script    []string
		ok        bool
		text      string
		output    int
		errSubstr string
	}{
		{"incomplete is a success", 200, []string{responsesPreamble, textDelta("truncated"), usageEvent("incomplete", 17, 16)}, true, "truncated", 16, ""},
		{"data-only framing", 200, []string{`data: {"type": "response.output_text.delta", "delta": "ok"}` + "\n\n", usageEvent("completed", 5, 1)}, true, "ok", 1, ""},
		{"http error", 400, nil, false, "", 0, "HTTP 400"},
		{"no token", 200, []string{responsesPreamble, usageEvent("completed", 5, 0)}, false, "", 0, "TTFT"},
		{"truncated", 200, []string{responsesPreamble, textDelta("partial")}, false, "partial", 0, "terminal event"},
		{"error event", 200, []string{responsesPreamble, textDelta("partial"), "event: error\ndata: {\"error\": {\"message\": \"boom\", \"code\": 500}}\n\n"},
			false, "partial", 0, "boom"},
		{"failed event", 200, []string{textDelta("Hi"), sseEvent("response.failed", `,"response":{"error":{"code":"server_error"}}`)},
			false, "Hi", 0, "server_error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := serveResponses(t, tt.status, 0, tt.script...)
			if got.Success != tt.ok || got.Text != tt.text || got.OutputTokens != tt.output || !strings.Contains(got.Error, tt.errSubstr) {
				t.Errorf("success %v text %q output tokens %d error %q; want %v %q %d, error containing %q",
					got.Success, got.Text, got.OutputTokens, got.Error, tt.ok, tt.text, tt.output, tt.errSubstr)
			}
		})
	}
}

// TestResponsesTransportSplits: the record does not depend on where the
// network splits the stream: inside the event line, the JSON or a
// multi-byte character.
func TestResponsesTransportSplits(t *testing.T) {
	t.Parallel()
	const text = " leading 中 trailing "
	for _, chunk := range []int{1, 3, 7, 64} {
		t.Run(fmt.Sprint(chunk), func(t *testing.T) {
			t.Parallel()
			got := serveResponses(t, http.StatusOK, chunk, responsesPreamble, textDelta(text), usageEvent("completed", 5, 6))
			if !got.Success || got.Text != text || got.OutputTokens != 6 {
				t.Errorf("success %v (%s) text %q output tokens %d", got.Success, got.Error, got.Text, got.OutputTokens)
			}
		})
	}
}

// TestResponsesBody: the payload of the later vLLM, key for key: no
// stream_options, ignore_eos before --extra-body.
func TestResponsesBody(t *testing.T) {
	t.Parallel()
	extra, err := pyjson.DecodeObject([]byte(`{"temperature":0.7,"top_p":0.9,"top_k":20,"repetition_penalty":1.05}`))
	if err != nil {
		t.Fatal(err)
	}
	req := Request{Prompt: "Why is the sky blue?", Model: "openai/gpt-oss-20b", OutputLen: 16, IgnoreEOS: true, ExtraBody: *extra}
	want := `{"model":"openai/gpt-oss-20b","input":"Why is the sky blue?","max_output_tokens":16,"stream":true,"ignore_eos":true,` +
		`"temperature":0.7,"top_p":0.9,"top_k":20,"repetition_penalty":1.05}`
	if got := string(Responses{}.Body(&req)); got != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
	s := spec(t, "openai-responses")
	if err := s.ValidateURL("http://localhost:8000/v1/chat/completions"); err == nil || !strings.Contains(err.Error(), "responses") {
		t.Errorf("ValidateURL(chat/completions) = %v, want an error naming responses", err)
	}
	if !s.SamplingParams || !cmp.Equal(s.RefusedParams, []string{"min_p"}) {
		t.Errorf("sampling params %v refused %v, want true and [min_p]", s.SamplingParams, s.RefusedParams)
	}
}
