package sim

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestResponses: /v1/responses streams the Responses API's named events
// (preamble, one output_text.delta per token, response.completed with the
// usage; "incomplete" when max_output_tokens ended it) for a string input
// and for a list of messages; it refuses what it does not serve.
func TestResponses(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, Config{TTFT: time.Millisecond, ITL: time.Millisecond, MaxModelLen: 100})
	createdAt := regexp.MustCompile(`"created_at":\d+`)
	tests := []struct {
		name, body string
		status     int
	}{
		{"string input", `{"model":"` + DefaultModel + `","input":"a b c","max_output_tokens":3,"stream":true,"ignore_eos":true}`, 200},
		{"messages", `{"input":[{"role":"user","content":[{"type":"input_text","text":"a b"}]}],"max_output_tokens":2,"stream":true,"ignore_eos":true}`, 200},
		{"not streamed", `{"input":"a","stream":false}`, 400},
		{"no input", `{"stream":true}`, 400},
	}
	var transcript strings.Builder
	for _, tt := range tests {
		rec := do(t, s.Handler(), http.MethodPost, "/v1/responses", tt.body, map[string]string{"X-Request-Id": "r1"})
		if rec.Code != tt.status {
			t.Fatalf("%s: status %d, want %d: %s", tt.name, rec.Code, tt.status, rec.Body)
		}
		transcript.WriteString("== " + tt.name + "\n")
		transcript.Write(createdAt.ReplaceAll(rec.Body.Bytes(), []byte(`"created_at":0`)))
		transcript.WriteString("\n")
	}
	checkGolden(t, "responses", []byte(transcript.String()))
}
