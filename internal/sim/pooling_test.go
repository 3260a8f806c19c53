package sim

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// TestPoolingEndpoints: /pooling answers PoolingResponse ("pooling"
// vectors under "data"), Infinity's /embeddings takes an image's URL with
// its modality, and /v1/embeddings takes chat messages with image parts
// (their text counts).
func TestPoolingEndpoints(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, Config{Tokenizer: fakeTokenizer{}, TTFT: time.Millisecond, MaxModelLen: 100, EmbeddingDim: 4})
	type resp struct {
		ID     string `json:"id"`
		Object string `json:"object"`
		Data   []struct {
			Index     int             `json:"index"`
			Object    string          `json:"object"`
			Data      json.RawMessage `json:"data"`
			Embedding json.RawMessage `json:"embedding"`
		} `json:"data"`
		Usage usageInfo `json:"usage"`
	}
	tests := []struct {
		name, path, body string
		status           int
		object           string
		inputs, tokens   int
	}{
		{"pooling text", "/pooling", `{"model":"","input":"a b","truncate_prompt_tokens":-1}`, 200, "pooling", 1, 3},
		{"pooling batch", "/pooling", `{"input":["a","b c"],"truncate_prompt_tokens":-1}`, 200, "pooling", 2, 5},
		{"pooling messages", "/pooling", `{"messages":[{"role":"user","content":"a b"}]}`, 200, "pooling", 1, 2},
		{"infinity text", "/embeddings", `{"model":"","input":"a b c"}`, 200, "embedding", 1, 4},
		{"infinity image", "/embeddings", `{"input":"data:image/jpeg;base64,AAAA","modality":"image"}`, 200, "embedding", 1, 64},
		{"infinity bad modality", "/embeddings", `{"input":"x","modality":"smell"}`, 400, "", 0, 0},
		{"embeddings image part", "/v1/embeddings", `{"messages":[{"role":"user","content":[{"type":"text","text":""},` +
			`{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,AAAA"}}]}],"truncate_prompt_tokens":-1}`, 200, "embedding", 1, 64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := do(t, s.Handler(), http.MethodPost, tt.path, tt.body, nil)
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
			if r.Object != "list" || len(r.Data) != tt.inputs || r.Usage.PromptTokens != tt.tokens {
				t.Fatalf("response %s", rec.Body)
			}
			for i, d := range r.Data {
				vec := d.Embedding
				if tt.object == "pooling" {
					vec = d.Data
				}
				var v []float64
				if d.Index != i || d.Object != tt.object || json.Unmarshal(vec, &v) != nil || len(v) != 4 {
					t.Errorf("data[%d] = %+v", i, d)
				}
			}
		})
	}
}

// TestRerank: vLLM's RerankResponse: results sorted by relevance_score
// (every document once, or the best top_n), usage with prompt_tokens (a
// pair counts query + 1 + document tokens, as the random-rerank dataset
// counts it), and the request's validation.
func TestRerank(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, Config{Tokenizer: fakeTokenizer{}, TTFT: time.Millisecond, MaxModelLen: 100})
	type resp struct {
		ID      string         `json:"id"`
		Model   string         `json:"model"`
		Usage   rerankUsage    `json:"usage"`
		Results []rerankResult `json:"results"`
	}
	tests := []struct {
		name, body      string
		status          int
		results, tokens int
	}{
		{"three documents", `{"model":"","query":"q r","documents":["a","b c","d"],"truncate_prompt_tokens":-1}`, 200, 3, 3*3 + 4},
		{"top_n", `{"query":"q","documents":["a","b","c"],"top_n":2}`, 200, 2, 3 * 3},
		{"truncated", `{"query":"q q q","documents":["a b c d"],"truncate_prompt_tokens":5}`, 200, 1, 5},
		{"no query", `{"documents":["a"]}`, 400, 0, 0},
		{"no documents", `{"query":"q"}`, 400, 0, 0},
		{"documents not a list", `{"query":"q","documents":"a"}`, 400, 0, 0},
		{"truncation past max_model_len", `{"query":"q","documents":["a"],"truncate_prompt_tokens":101}`, 400, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := do(t, s.Handler(), http.MethodPost, "/rerank", tt.body, map[string]string{"X-Request-Id": "r-1"})
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
			if r.ID != "rerank-r-1" || len(r.Results) != tt.results || r.Usage.PromptTokens != tt.tokens || r.Usage.TotalTokens != tt.tokens {
				t.Fatalf("response %s", rec.Body)
			}
			for i := 1; i < len(r.Results); i++ {
				if r.Results[i].RelevanceScore > r.Results[i-1].RelevanceScore {
					t.Errorf("results not sorted by relevance: %s", rec.Body)
				}
			}
			again := do(t, s.Handler(), http.MethodPost, "/v1/rerank", tt.body, nil)
			var r2 resp
			if err := json.Unmarshal(again.Body.Bytes(), &r2); err != nil || len(r2.Results) != len(r.Results) ||
				r2.Results[0] != r.Results[0] {
				t.Errorf("/v1/rerank answered differently: %s", again.Body)
			}
		})
	}
}
