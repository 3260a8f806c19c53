package sim

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/tokenizer"
)

func TestEventBuilder(t *testing.T) {
	t.Parallel()
	head := `data: {"id":"cmpl-\"q\"","object":"text_completion","created":42,"model":"m/ü","choices":[`
	chatHead := `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":42,"model":"m","choices":[`
	b := newEventBuilder(false, `cmpl-"q"`, "m/ü", 42)
	c := newEventBuilder(true, "chatcmpl-1", "m", 42)
	tests := []struct {
		name string
		got  func() []byte
		want string
	}{
		{"completions token", func() []byte { return b.token([]byte(`" The"`), "") },
			head + `{"index":0,"text":" The","logprobs":null,"finish_reason":null,"stop_reason":null}]}`},
		{"completions last", func() []byte { return b.token([]byte(`""`), "stop") },
			head + `{"index":0,"text":"","logprobs":null,"finish_reason":"stop","stop_reason":null}]}`},
		{"completions usage", func() []byte { return b.usage(7, 3, nil) },
			head + `],"usage":{"prompt_tokens":7,"total_tokens":10,"completion_tokens":3}}`},
		{"chat role", c.role,
			chatHead + `{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`},
		{"chat token", func() []byte { return c.token([]byte(`" The"`), "") },
			chatHead + `{"index":0,"delta":{"content":" The"},"logprobs":null,"finish_reason":null}]}`},
		{"chat last", func() []byte { return c.token([]byte(`" end"`), "length") },
			chatHead + `{"index":0,"delta":{"content":" end"},"logprobs":null,"finish_reason":"length","stop_reason":null}]}`},
		// Per-request metrics: received t0, first token +50 ms, last +150 ms,
		// 11 tokens: decode 100 ms over 10 gaps, 11/0.15 s tokens per second.
		{"usage with metrics", func() []byte {
			t0 := time.Unix(1700000000, 0)
			m := &requestMetrics{received: t0, first: t0.Add(50 * time.Millisecond), last: t0.Add(150 * time.Millisecond), tokens: 11}
			return b.usage(7, 11, m)
		}, head + `],"usage":{"prompt_tokens":7,"total_tokens":18,"completion_tokens":11},"metrics":{"queue_time_ms":0.0,"time_to_first_token_ms":50.000,"generation_time_ms":100.000,"mean_itl_ms":10.000,"tokens_per_second":73.333}}`},
		{"chat usage", func() []byte { return c.usage(0, 1, nil) },
			chatHead + `],"usage":{"prompt_tokens":0,"total_tokens":1,"completion_tokens":1}}`},
	}
	for _, tt := range tests {
		// Not parallel: the builders reuse one buffer each.
		got := string(tt.got())
		if got != tt.want+"\n\n" {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
		if !json.Valid([]byte(strings.TrimPrefix(strings.TrimSpace(got), "data: "))) {
			t.Errorf("%s: invalid JSON", tt.name)
		}
	}
}

func TestVocabularyTokens(t *testing.T) {
	t.Parallel()
	words, lits := vocabularyTokens(nil)
	if len(words) < 20 || len(words) != len(lits) {
		t.Fatalf("%d words, %d literals", len(words), len(lits))
	}
	for i, w := range words {
		if !strings.HasPrefix(w, " ") || strings.TrimSpace(w) == "" {
			t.Errorf("token %q lacks its leading space", w)
		}
		var back string
		if err := json.Unmarshal(lits[i], &back); err != nil || back != w {
			t.Errorf("literal %s does not decode to %q", lits[i], w)
		}
	}
	// With a tokenizer, the tokens are the tokenizer's, and the text they
	// spell re-encodes to one token each.
	tok := tokenizer.Builtin()
	words, _ = vocabularyTokens(tok)
	text := strings.Join(words, "")
	if text != " "+strings.Join(strings.Fields(vocabulary), " ") {
		t.Errorf("the tokens spell %q", text)
	}
	if n := len(tok.Encode(text, false)); n != len(words) {
		t.Errorf("%d tokens stream a text of %d tokens", len(words), n)
	}
}

// BenchmarkStreamEvent measures building one token event, the per-event CPU
// cost of the simulator before the write to the connection.
func BenchmarkStreamEvent(b *testing.B) {
	for _, chat := range []bool{false, true} {
		name := "completions"
		if chat {
			name = "chat"
		}
		b.Run(name, func(b *testing.B) {
			s := newTestServer(b, Config{})
			eb := newEventBuilder(chat, "cmpl-0123456789abcdef0123456789abcdef", "meta-llama/Llama-3.1-8B-Instruct", 1767225600)
			b.ReportAllocs()
			k := 0
			for b.Loop() {
				_ = eb.token(s.texts[k%len(s.texts)], "")
				k++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/event")
		})
	}
}

// BenchmarkStreamHandler measures a whole zero-latency streaming request
// through the handler (parsing, engine, events, writes and flushes into a
// recorder), per event: the server's CPU cost minus the socket.
func BenchmarkStreamHandler(b *testing.B) {
	const tokens = 1000
	s := newTestServer(b, Config{})
	body := `{"prompt":"The quick brown fox","max_tokens":1000,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`
	b.ReportAllocs()
	for b.Loop() {
		rec := do(b, s.Handler(), http.MethodPost, "/v1/completions", body, nil)
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(tokens+2)), "ns/event")
}
