package sim

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The request bodies below are the payloads vllm bench serve builds
// (vllm/benchmarks/lib/endpoint_request_func.py@11dfa3169, completions and
// chat), key order included.
const (
	benchCompletions = `{"model":"gobench/sim","prompt":"The quick brown fox","repetition_penalty":1.0,` +
		`"max_tokens":5,"logprobs":null,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true}`
	benchChat = `{"model":"gobench/sim","messages":[{"role":"user","content":[{"type":"text","text":"The quick brown fox"}]}],` +
		`"max_completion_tokens":4,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true}`
)

func TestGoldenTranscripts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		path   string
		body   string
		header map[string]string
	}{
		// The exact payloads of the benchmark client, fixed length.
		{"completions_stream_ignore_eos", "/v1/completions", benchCompletions, map[string]string{"X-Request-Id": "bench-0"}},
		{"chat_stream_ignore_eos", "/v1/chat/completions", benchChat, map[string]string{"X-Request-Id": "bench-0"}},
		// Seeded EOS: the last event has empty text and finish_reason "stop";
		// no stream_options, so no usage event.
		{"completions_stream_stop", "/v1/completions",
			`{"prompt":"hello","max_tokens":12,"stream":true}`, map[string]string{"X-Request-Id": "stop-1"}},
		// stream_options without include_usage still asks for usage (vLLM default).
		{"chat_stream_stop_default_usage", "/v1/chat/completions",
			`{"messages":[{"role":"user","content":"hello there"}],"max_tokens":12,"stream":true,"stream_options":{}}`,
			map[string]string{"X-Request-Id": "stop-1"}},
		{"completions_nonstream", "/v1/completions",
			`{"model":"gobench/sim","prompt":"one two three","max_tokens":3,"ignore_eos":true}`, map[string]string{"X-Request-Id": "ns"}},
		{"chat_nonstream", "/v1/chat/completions",
			`{"messages":[{"role":"user","content":"one two three"}],"max_completion_tokens":3,"ignore_eos":true}`,
			map[string]string{"X-Request-Id": "ns"}},
		{"models", "/v1/models", "", nil},
	}
	s := newTestServer(t, Config{Seed: 7, Tokenizer: fakeTokenizer{}})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			method := http.MethodPost
			if tt.body == "" {
				method = http.MethodGet
			}
			rec := do(t, s.Handler(), method, tt.path, tt.body, tt.header)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d, body %s", rec.Code, rec.Body)
			}
			body := rec.Body.Bytes()
			if strings.Contains(tt.body, `"stream":true`) {
				if ct := rec.Header().Get("Content-Type"); ct != "text/event-stream; charset=utf-8" {
					t.Errorf("Content-Type = %q", ct)
				}
				for _, ev := range sseEvents(t, body) {
					if ev != "[DONE]" && !json.Valid([]byte(ev)) {
						t.Errorf("event is not valid JSON: %s", ev)
					}
				}
			} else if !json.Valid(body) {
				t.Errorf("body is not valid JSON: %s", body)
			}
			checkGolden(t, tt.name, normalize(body))
		})
	}
}

// chunk is the part of a streaming event the client looks at.
type chunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Choices []struct {
		Text  *string `json:"text"`
		Delta *struct {
			Role    *string `json:"role"`
			Content *string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

// summary is what a benchmark client would take from a stream.
type summary struct {
	tokenEvents  int // events with non-empty choices
	text         string
	finish       string
	promptTokens int
	outputTokens int
	ids          map[string]bool
}

func summarize(t testing.TB, payloads []string) summary {
	t.Helper()
	sum := summary{ids: map[string]bool{}}
	for i, p := range payloads {
		if p == "[DONE]" {
			if i != len(payloads)-1 {
				t.Fatalf("[DONE] is not last")
			}
			continue
		}
		var c chunk
		if err := json.Unmarshal([]byte(p), &c); err != nil {
			t.Fatalf("event %d: %v: %s", i, err, p)
		}
		sum.ids[c.ID] = true
		if len(c.Choices) > 0 {
			sum.tokenEvents++
			ch := c.Choices[0]
			switch {
			case ch.Text != nil:
				sum.text += *ch.Text
			case ch.Delta != nil && ch.Delta.Content != nil:
				sum.text += *ch.Delta.Content
			}
			if ch.FinishReason != nil {
				sum.finish = *ch.FinishReason
			}
		} else if c.Usage != nil {
			sum.promptTokens = c.Usage.PromptTokens
			sum.outputTokens = c.Usage.CompletionTokens
			if c.Usage.TotalTokens != c.Usage.PromptTokens+c.Usage.CompletionTokens {
				t.Errorf("total_tokens %d != %d + %d", c.Usage.TotalTokens, c.Usage.PromptTokens, c.Usage.CompletionTokens)
			}
		}
	}
	if payloads[len(payloads)-1] != "[DONE]" {
		t.Fatalf("stream does not end with [DONE]")
	}
	return sum
}

func TestStreamUsageAndIDs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		path      string
		body      string
		tokenizer bool
		// want
		tokenEvents, prompt, output int
		idPrefix                    string
	}{
		// Completions count the prompt with special tokens (BOS): 4 words + 1.
		{"completions tokenizer", "/v1/completions", benchCompletions, true, 5, 5, 5, "cmpl-"},
		// Chat counts message text without special tokens; the role event
		// is a token event too, so 4 tokens make 5 token events.
		{"chat tokenizer", "/v1/chat/completions", benchChat, true, 5, 4, 4, "chatcmpl-"},
		{"completions words", "/v1/completions", benchCompletions, false, 5, 4, 5, "cmpl-"},
		// A token-id prompt counts its ids.
		{"completions token ids", "/v1/completions",
			`{"prompt":[5,6,7],"max_tokens":2,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`,
			true, 2, 3, 2, "cmpl-"},
		// max_tokens is the chat fallback when max_completion_tokens is absent.
		{"chat max_tokens", "/v1/chat/completions",
			`{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}],"max_tokens":3,` +
				`"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true}}`,
			false, 4, 3, 3, "chatcmpl-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := Config{}
			if tt.tokenizer {
				cfg.Tokenizer = fakeTokenizer{}
			}
			s := newTestServer(t, cfg)
			rec := do(t, s.Handler(), http.MethodPost, tt.path, tt.body, nil)
			sum := summarize(t, sseEvents(t, rec.Body.Bytes()))
			if sum.tokenEvents != tt.tokenEvents || sum.promptTokens != tt.prompt || sum.outputTokens != tt.output {
				t.Errorf("token events %d, prompt %d, output %d; want %d, %d, %d",
					sum.tokenEvents, sum.promptTokens, sum.outputTokens, tt.tokenEvents, tt.prompt, tt.output)
			}
			if sum.finish != "length" {
				t.Errorf("finish_reason %q, want length", sum.finish)
			}
			if len(sum.ids) != 1 {
				t.Fatalf("ids %v, want one id for the whole stream", sum.ids)
			}
			for id := range sum.ids {
				// Without x-request-id the id is prefix + 32 hex digits.
				if !strings.HasPrefix(id, tt.idPrefix) || len(id) != len(tt.idPrefix)+32 {
					t.Errorf("id %q, want %s + 32 hex digits", id, tt.idPrefix)
				}
			}
		})
	}
}

func TestNonStreamingUsage(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, Config{Tokenizer: fakeTokenizer{}})
	// No max_tokens: DefaultMaxTokens (16) applies.
	rec := do(t, s.Handler(), http.MethodPost, "/v1/completions", `{"prompt":"a b c","ignore_eos":true}`,
		map[string]string{"X-Request-Id": "abc"})
	var resp struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Choices []struct {
			Text         string `json:"text"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
			TotalTokens      int `json:"total_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
		t.Fatal(err)
	}
	if rec.Header().Get("Content-Type") != "application/json" {
		t.Errorf("Content-Type %q", rec.Header().Get("Content-Type"))
	}
	if resp.ID != "cmpl-abc" || resp.Object != "text_completion" {
		t.Errorf("id %q object %q", resp.ID, resp.Object)
	}
	if got := len(strings.Fields(resp.Choices[0].Text)); got != DefaultMaxTokens {
		t.Errorf("%d words of text, want %d", got, DefaultMaxTokens)
	}
	if u := resp.Usage; u.PromptTokens != 4 || u.CompletionTokens != 16 || u.TotalTokens != 20 {
		t.Errorf("usage %+v", u)
	}
}

// streamSummary runs one streaming request and summarises it.
func streamSummary(t testing.TB, s *Server, path, body, id string) summary {
	t.Helper()
	rec := do(t, s.Handler(), http.MethodPost, path, body, map[string]string{"X-Request-Id": id})
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	return summarize(t, sseEvents(t, rec.Body.Bytes()))
}

func TestSeededStop(t *testing.T) {
	t.Parallel()
	const maxTokens = 20
	body := `{"prompt":"x","max_tokens":20,"stream":true,"stream_options":{"include_usage":true}}`
	a := newTestServer(t, Config{Seed: 1})
	b := newTestServer(t, Config{Seed: 1})
	c := newTestServer(t, Config{Seed: 2})
	lengths := map[int]bool{}
	differs := false
	for i := range 100 {
		id := "req-" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		x := streamSummary(t, a, "/v1/completions", body, id)
		y := streamSummary(t, b, "/v1/completions", body, id)
		z := streamSummary(t, c, "/v1/completions", body, id)
		if x.outputTokens != y.outputTokens || x.text != y.text {
			t.Fatalf("%s: same seed and id gave %d and %d tokens", id, x.outputTokens, y.outputTokens)
		}
		differs = differs || x.outputTokens != z.outputTokens
		n := x.outputTokens
		lengths[n] = true
		if n < 1 || n > maxTokens || x.tokenEvents != n {
			t.Fatalf("%s: %d tokens in %d events, want 1..%d", id, n, x.tokenEvents, maxTokens)
		}
		// Stopping early is an EOS: finish "stop" and an empty last token.
		wantFinish, wantWords := "length", n
		if n < maxTokens {
			wantFinish, wantWords = "stop", n-1
		}
		if x.finish != wantFinish || len(strings.Fields(x.text)) != wantWords {
			t.Errorf("%s: %d tokens, finish %q, %d words; want finish %q, %d words",
				id, n, x.finish, len(strings.Fields(x.text)), wantFinish, wantWords)
		}
	}
	if len(lengths) < 10 {
		t.Errorf("only %d distinct lengths in 100 requests: %v", len(lengths), lengths)
	}
	if !differs {
		t.Error("seed 2 gave the same lengths as seed 1 for every request")
	}

	// min_tokens raises the lower bound of the draw.
	for i := range 30 {
		sum := streamSummary(t, a, "/v1/completions",
			`{"prompt":"x","max_tokens":20,"min_tokens":15,"stream":true,"stream_options":{"include_usage":true}}`,
			"min-"+string(rune('a'+i)))
		if sum.outputTokens < 15 {
			t.Fatalf("min_tokens 15 but %d tokens", sum.outputTokens)
		}
	}
}

func TestHealthAndProfile(t *testing.T) {
	t.Parallel()
	log := &syncWriter{w: &strings.Builder{}}
	s := newTestServer(t, Config{Logger: log})
	for _, path := range []string{"/start_profile", "/stop_profile"} {
		rec := do(t, s.Handler(), http.MethodPost, path, benchCompletions, nil)
		if rec.Code != http.StatusOK || rec.Body.Len() != 0 {
			t.Errorf("%s: status %d body %q", path, rec.Code, rec.Body)
		}
	}
	rec := do(t, s.Handler(), http.MethodGet, "/health", "", nil)
	if rec.Code != http.StatusOK || rec.Body.Len() != 0 {
		t.Errorf("/health: status %d body %q", rec.Code, rec.Body)
	}
	for _, want := range []string{"profiler started", "profiler stopped"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
}

func TestModelsRoot(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		cfg            Config
		wantID, wantRt string
	}{
		{"defaults", Config{}, "gobench/sim", "gobench/sim"},
		{"root defaults to model", Config{Model: "m"}, "m", "m"},
		{"root set", Config{Model: "served", Root: "org/weights"}, "served", "org/weights"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newTestServer(t, tt.cfg)
			before := time.Now().Unix()
			rec := do(t, s.Handler(), http.MethodGet, "/v1/models", "", nil)
			after := time.Now().Unix()
			var list struct {
				Data []struct {
					ID, Root string
					Created  int64
				}
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
				t.Fatal(err)
			}
			if len(list.Data) != 1 || list.Data[0].ID != tt.wantID || list.Data[0].Root != tt.wantRt {
				t.Fatalf("data %+v, want id %q root %q", list.Data, tt.wantID, tt.wantRt)
			}
			if c := list.Data[0].Created; c < before || c > after {
				t.Errorf("created %d is not the time of the call, %d..%d", c, before, after)
			}
		})
	}
}

func TestNewServerValidates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		cfg   Config
		field string // "" means valid
	}{
		{"zero value", Config{}, ""},
		{"negative TTFT", Config{TTFT: -time.Millisecond}, "TTFT"},
		{"negative ITL", Config{ITL: -1}, "ITL"},
		{"negative shutdown timeout", Config{ShutdownTimeout: -time.Second}, "ShutdownTimeout"},
		{"negative default max tokens", Config{DefaultMaxTokens: -1}, "DefaultMaxTokens"},
		{"negative max model len", Config{MaxModelLen: -5}, "MaxModelLen"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := NewServer(tt.cfg)
			switch {
			case tt.field == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.field != "" && (err == nil || !strings.Contains(err.Error(), "Config."+tt.field)):
				t.Fatalf("error %v does not name Config.%s", err, tt.field)
			}
		})
	}
}
