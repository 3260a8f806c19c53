package sim

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"net/http"
	"testing"
	"time"
)

func TestTokenizeDetokenize(t *testing.T) {
	t.Parallel()
	with := newTestServer(t, Config{Tokenizer: fakeTokenizer{}, MaxModelLen: 100})
	without := newTestServer(t, Config{MaxModelLen: 100})
	tests := []struct {
		name   string
		s      *Server
		path   string
		body   string
		status int
		want   string
	}{
		// A prompt gets special tokens by default (the fake BOS is id 1).
		{"prompt", with, "/tokenize", `{"prompt":"a b c"}`, 200,
			`{"count":4,"max_model_len":100,"tokens":[1,2,2,2],"token_strs":null}`},
		{"prompt without special tokens", with, "/tokenize", `{"prompt":"a b","add_special_tokens":false,"return_token_strs":true}`, 200,
			`{"count":2,"max_model_len":100,"tokens":[2,2],"token_strs":["w ","w "]}`},
		// Chat messages do not, as in vLLM.
		{"messages", with, "/tokenize", `{"messages":[{"role":"user","content":"a b"},{"role":"user","content":[{"type":"text","text":"c"}]}]}`, 200,
			`{"count":3,"max_model_len":100,"tokens":[2,2,2],"token_strs":null}`},
		{"empty prompt", with, "/tokenize", `{"prompt":""}`, 200, `{"count":1,"max_model_len":100,"tokens":[1],"token_strs":null}`},
		{"no prompt", with, "/tokenize", `{}`, 400, ""},
		{"wrong model", with, "/tokenize", `{"model":"x","prompt":"a"}`, 404, ""},
		// Without a tokenizer a word's id is a hash of the word.
		{"word ids", without, "/tokenize", `{"prompt":"a a","return_token_strs":true}`, 200,
			`{"count":2,"max_model_len":100,"tokens":[1678518572,1678518572],"token_strs":["a","a"]}`},
		{"detokenize", with, "/detokenize", `{"tokens":[2,2]}`, 200, `{"prompt":"w w "}`},
		{"detokenize without tokens", with, "/detokenize", `{}`, 400, ""},
		{"detokenize without tokenizer", without, "/detokenize", `{"tokens":[1]}`, 400, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := do(t, tt.s.Handler(), http.MethodPost, tt.path, tt.body, nil)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.status, rec.Body)
			}
			if tt.want != "" && rec.Body.String() != tt.want {
				t.Errorf("body\n got %s\nwant %s", rec.Body, tt.want)
			}
		})
	}
}

func TestEmbeddings(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, Config{Tokenizer: fakeTokenizer{}, TTFT: time.Millisecond, MaxModelLen: 100})
	type resp struct {
		Object string `json:"object"`
		Data   []struct {
			Index     int             `json:"index"`
			Object    string          `json:"object"`
			Embedding json.RawMessage `json:"embedding"`
		} `json:"data"`
		Usage usageInfo `json:"usage"`
	}
	tests := []struct {
		name         string
		body         string
		status       int
		inputs, dims int
		tokens       int
		base64       bool
	}{
		{"one string", `{"input":"a b c"}`, 200, 1, DefaultEmbeddingDim, 4, false},
		{"list of strings", `{"input":["a","b c"],"dimensions":8}`, 200, 2, 8, 5, false},
		{"token ids", `{"input":[5,6,7],"encoding_format":"base64"}`, 200, 1, DefaultEmbeddingDim, 3, true},
		{"too long", `{"input":[` + repeatJSON("1", 101) + `]}`, 400, 0, 0, 0, false},
		{"bad dimensions", `{"input":"a","dimensions":0}`, 400, 0, 0, 0, false},
		{"no input", `{}`, 400, 0, 0, 0, false},
		{"chat messages", `{"messages":[{"role":"user","content":[{"type":"text","text":"a b"}]}],"truncate_prompt_tokens":-1}`,
			200, 1, DefaultEmbeddingDim, 2, false},
		{"truncated to max_model_len", `{"input":[` + repeatJSON("1", 101) + `],"truncate_prompt_tokens":-1}`,
			200, 1, DefaultEmbeddingDim, 100, false},
		{"truncated to k", `{"input":"a b c","truncate_prompt_tokens":2}`, 200, 1, DefaultEmbeddingDim, 2, false},
		{"truncation past max_model_len", `{"input":"a","truncate_prompt_tokens":101}`, 400, 0, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := do(t, s.Handler(), http.MethodPost, "/v1/embeddings", tt.body, nil)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.status, rec.Body)
			}
			if tt.status != 200 {
				return
			}
			var r resp
			if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil {
				t.Fatal(err)
			}
			if r.Object != "list" || len(r.Data) != tt.inputs || r.Usage.PromptTokens != tt.tokens || r.Usage.TotalTokens != tt.tokens {
				t.Fatalf("response %s", rec.Body)
			}
			for _, d := range r.Data {
				var vec []float64
				if tt.base64 {
					var s string
					_ = json.Unmarshal(d.Embedding, &s)
					raw, err := base64.StdEncoding.DecodeString(s)
					if err != nil || len(raw) != 4*tt.dims {
						t.Fatalf("base64 embedding of %d bytes (%v), want %d", len(raw), err, 4*tt.dims)
					}
					continue
				}
				if err := json.Unmarshal(d.Embedding, &vec); err != nil || len(vec) != tt.dims {
					t.Fatalf("embedding of %d values (%v), want %d", len(vec), err, tt.dims)
				}
				norm := 0.0
				for _, v := range vec {
					norm += v * v
				}
				if math.Abs(norm-1) > 1e-5 {
					t.Errorf("vector norm² %v, want 1", norm)
				}
			}
		})
	}
}

func repeatJSON(v string, n int) string {
	b := make([]byte, 0, n*(len(v)+1))
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, v...)
	}
	return string(b)
}

// FuzzTokenizeAndEmbeddingBodies sends arbitrary bodies to the endpoints
// that parse their own request shapes: they answer with valid JSON and a
// 2xx or 4xx status, never a panic or a 5xx.
func FuzzTokenizeAndEmbeddingBodies(f *testing.F) {
	for _, b := range []string{`{"prompt":"a b"}`, `{"messages":[{"role":"user","content":"x"}]}`, `{"tokens":[1,2]}`,
		`{"input":["a",""]}`, `{"input":[[1],[2,3]],"encoding_format":"base64","dimensions":4}`, `{"input":[]}`, `[`, `null`} {
		f.Add(b)
	}
	s, err := NewServer(Config{Tokenizer: fakeTokenizer{}, MaxModelLen: 64, EmbeddingDim: 8})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, path := range []string{"/tokenize", "/detokenize", "/v1/embeddings"} {
			rec := do(t, s.Handler(), http.MethodPost, path, body, nil)
			if rec.Code >= 500 || !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("%s %q: status %d body %q", path, body, rec.Code, rec.Body)
			}
		}
	})
}
