package run

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/serverapi"
)

// wordServer is a fake vLLM /tokenize and /detokenize whose tokenizer has
// one token per space-separated word plus, with extra, one more per word
// (a tokenizer that disagrees with the client's). It records the largest
// number of calls in flight, and each call's model and headers.
type wordServer struct {
	extra bool
	fail  map[string]bool // prompts whose /tokenize fails
	// pairBy, when set, holds every call but the first (the probe of the
	// first prompt, alone by design) until two have been in flight at once
	// or until pairBy: a client that calls concurrently gets there at
	// once, whatever the scheduler does, and one that calls one at a time
	// is found out.
	pairBy   time.Time
	calls    atomic.Int32
	inFlight atomic.Int32
	maxSeen  atomic.Int32
	mu       sync.Mutex
	models   []string
	headers  []http.Header
}

func (s *wordServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.maxSeen.Load()
		if n <= m || s.maxSeen.CompareAndSwap(m, n) {
			break
		}
	}
	later := s.calls.Add(1) > 1
	for later && !s.pairBy.IsZero() && s.maxSeen.Load() < 2 && time.Now().Before(s.pairBy) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(time.Millisecond) // keep calls in flight, so the bound on them is tested
	var req struct {
		Model   string `json:"model"`
		Prompt  string `json:"prompt"`
		Special *bool  `json:"add_special_tokens"`
		Tokens  []int  `json:"tokens"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.models = append(s.models, req.Model)
	s.headers = append(s.headers, r.Header.Clone())
	s.mu.Unlock()
	switch r.URL.Path {
	case "/tokenize":
		if s.fail[req.Prompt] || req.Special == nil || *req.Special {
			http.Error(w, "no", http.StatusInternalServerError)
			return
		}
		var ids []int
		for i := range strings.Fields(req.Prompt) {
			ids = append(ids, i)
			if s.extra {
				ids = append(ids, 1000+i)
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"tokens": ids, "count": len(ids)})
	case "/detokenize":
		// The words of the prompt are w0, w1, ...; token i < 1000 is word i.
		var words []string
		for _, id := range req.Tokens {
			if id < 1000 {
				words = append(words, "w"+string(rune('0'+id%10)))
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"prompt": strings.Join(words, " ")})
	default:
		http.NotFound(w, r)
	}
}

// llamaTokenizer answers /tokenize as llama.cpp's llama-server (0.7.0)
// does: it reads "content" (two tokens a word) and answers {"tokens"}
// without a count; vLLM's "prompt" gets an empty list.
type llamaTokenizer struct{ calls atomic.Int32 }

func (l *llamaTokenizer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.calls.Add(1)
	var req struct{ Content string }
	_ = json.NewDecoder(r.Body).Decode(&req)
	ids := []int{}
	for range strings.Fields(req.Content) {
		ids = append(ids, 1, 2)
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"tokens": ids})
}

// answer is a handler that always writes body.
func answer(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, body) }
}

// prompts makes n samples of "w0 w1 ..." with as many words as tokens.
func prompts(lens ...int) []dataset.Sample {
	out := make([]dataset.Sample, len(lens))
	for i, n := range lens {
		var words []string
		for k := 0; k < n; k++ {
			words = append(words, "w"+string(rune('0'+k%10)))
		}
		out[i] = dataset.Sample{Prompt: strings.Join(words, " "), PromptLen: n, RequestID: "r"}
	}
	return out
}

func TestAlignPrompts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		server   http.Handler
		samples  []dataset.Sample
		warn     string
		wantLens []int // words per prompt after alignment
	}{
		// /tokenize missing (not vLLM): skipped with vLLM's warning.
		{"unavailable", http.NotFoundHandler(), prompts(4, 6), "WARNING: /tokenize unavailable, skipping alignment.", []int{4, 6}},
		// The server agrees on the first prompt: nothing is sent after it.
		{"agree", &wordServer{}, prompts(4, 6), "", []int{4, 6}},
		// The server counts two tokens per word: every prompt is cut to
		// prompt_len server tokens (half its words).
		{"mismatch", &wordServer{extra: true}, prompts(4, 6, 2, 8), "WARNING: tokenizer mismatch (server=8, expected=4), re-aligning prompts.", []int{2, 3, 1, 4}},
		// llama.cpp's /tokenize reads "content" and answers an empty list
		// without a count to vLLM's "prompt": skipped with the reason, after
		// asking its way for the count (two calls in all).
		{"llama.cpp", &llamaTokenizer{}, prompts(4, 6),
			"Prompt alignment skipped: the server's /tokenize is not vLLM's (its answer has no count); asked as llama.cpp's is, it counts 8 tokens in the first prompt, gobench's tokenizer 4.", []int{4, 6}},
		{"count 0", answer(`{"count":0,"max_model_len":4096,"tokens":[]}`), prompts(4, 6),
			"Prompt alignment skipped: the server's /tokenize counted 0 tokens in a non-empty prompt.", []int{4, 6}},
		{"count disagrees", answer(`{"count":9,"tokens":[1,2]}`), prompts(4, 6),
			"Prompt alignment skipped: the server's /tokenize says count 9 beside 2 tokens.", []int{4, 6}},
		// A prompt whose /tokenize fails keeps its text.
		{"one fails", &wordServer{extra: true, fail: map[string]bool{"w0 w1 w2 w3 w4 w5": true}}, prompts(4, 6), "re-aligning", []int{2, 6}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tc.server)
			defer srv.Close()
			var out bytes.Buffer
			api := &serverapi.Client{HTTP: srv.Client(), BaseURL: srv.URL, Header: http.Header{"Authorization": {"Bearer sk-1"}, "X-Tenant": {"t1"}}}
			got := alignPrompts(context.Background(), api, "model-id", tc.samples, &out)
			if tc.warn == "" && out.Len() > 0 || !strings.Contains(out.String(), tc.warn) {
				t.Errorf("printed %q, want %q", out.String(), tc.warn)
			}
			for i, s := range got {
				if n := len(strings.Fields(s.Prompt)); n != tc.wantLens[i] {
					t.Errorf("prompt %d has %d words (%q), want %d", i, n, s.Prompt, tc.wantLens[i])
				}
				if s.PromptLen != tc.samples[i].PromptLen || s.RequestID != "r" {
					t.Errorf("prompt %d: prompt_len %d, id %q changed", i, s.PromptLen, s.RequestID)
				}
			}
			if lt, ok := tc.server.(*llamaTokenizer); ok && lt.calls.Load() != 2 {
				t.Errorf("%d calls to llama.cpp's /tokenize, want 2 (vLLM's way, then its own)", lt.calls.Load())
			}
			if ws, ok := tc.server.(*wordServer); ok {
				for _, m := range ws.models {
					if m != "model-id" {
						t.Errorf("sent model %q, want the model id", m)
					}
				}
				// Unlike vLLM, alignment carries the run's headers, so it
				// works behind an auth gateway.
				for _, h := range ws.headers {
					if h.Get("Authorization") != "Bearer sk-1" || h.Get("X-Tenant") != "t1" {
						t.Errorf("a call lacks the run's headers: %v", h)
					}
				}
			}
		})
	}
}

func TestAlignPromptsConcurrency(t *testing.T) {
	t.Parallel()
	ws := &wordServer{extra: true, pairBy: time.Now().Add(10 * time.Second)}
	srv := httptest.NewServer(ws)
	defer srv.Close()
	lens := make([]int, 300)
	for i := range lens {
		lens[i] = 3
	}
	api := &serverapi.Client{HTTP: &http.Client{Transport: NewTransport(alignConcurrency, false)}, BaseURL: srv.URL}
	got := alignPrompts(context.Background(), api, "m", prompts(lens...), &bytes.Buffer{})
	if len(got) != 300 || len(strings.Fields(got[299].Prompt)) != 2 {
		t.Fatalf("alignment did not run: %+v", got[299])
	}
	if m := ws.maxSeen.Load(); m > alignConcurrency || m < 2 {
		t.Errorf("%d calls in flight at most, want 2..%d", m, alignConcurrency)
	}
}
