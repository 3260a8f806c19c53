package serverapi

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
)

// FirstModel asks GET /v1/models for the first model, as vLLM's
// get_first_model_from_server does, with its error texts: it returns the model name (id) and the model
// id (root, the vLLM field naming the weights; servers without it give the
// id, where vLLM would crash with a KeyError).
func (c *Client) FirstModel(ctx context.Context) (name, id string, err error) {
	var body struct {
		Data []struct {
			ID   string `json:"id"`
			Root string `json:"root"`
		} `json:"data"`
	}
	if err := c.callJSON(ctx, http.MethodGet, "/v1/models", nil, &body, timeout(c.Timeout, DefaultTimeout)); err != nil {
		return "", "", fmt.Errorf("Failed to fetch models from server at %s. Check that:\n1. The server is running\n2. The server URL is correct\nError: %w", c.URL("/v1/models"), err)
	}
	if len(body.Data) == 0 {
		return "", "", fmt.Errorf("No models found on the server at %s. Make sure the server is running and has models loaded.", c.BaseURL)
	}
	m := body.Data[0]
	if m.Root == "" {
		m.Root = m.ID
	}
	return m.ID, m.Root, nil
}

// ModelIDs lists the ids GET /v1/models serves, in its order: the
// models a request may name (vLLM lists the served names and the LoRA
// adapters loaded).
func (c *Client) ModelIDs(ctx context.Context) ([]string, error) {
	var body struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := c.callJSON(ctx, http.MethodGet, "/v1/models", nil, &body, timeout(c.Timeout, DefaultTimeout)); err != nil {
		return nil, err
	}
	ids := make([]string, len(body.Data))
	for i, m := range body.Data {
		ids[i] = m.ID
	}
	return ids, nil
}

// Tokenized is a /tokenize answer.
type Tokenized struct {
	// Tokens are the ids of the prompt.
	Tokens []int
	// Count is vLLM's "count", -1 when the answer has none: only vLLM's
	// (and SGLang's) answers say it; llama.cpp's answers {"tokens": [...]}
	// alone, and answers an empty list to a request without its field
	// "content".
	Count int
}

// VLLM reports whether the answer has vLLM's shape: a count that agrees
// with the tokens.
func (t Tokenized) VLLM() bool { return t.Count >= 0 && t.Count == len(t.Tokens) }

// Tokenize is vLLM's POST /tokenize {"model", "prompt",
// "add_special_tokens"}: the server's token ids of prompt, and its count
// when the answer has vLLM's shape.
func (c *Client) Tokenize(ctx context.Context, model, prompt string, addSpecialTokens bool) (Tokenized, error) {
	var out struct {
		Tokens []int `json:"tokens"`
		Count  *int  `json:"count"`
	}
	body := map[string]any{"model": model, "prompt": prompt, "add_special_tokens": addSpecialTokens}
	if err := c.callJSON(ctx, http.MethodPost, "/tokenize", body, &out, timeout(c.Timeout, DefaultTimeout)); err != nil {
		return Tokenized{}, err
	}
	if out.Tokens == nil {
		return Tokenized{}, fmt.Errorf("POST %s: the answer has no \"tokens\"", c.URL("/tokenize"))
	}
	t := Tokenized{Tokens: out.Tokens, Count: -1}
	if out.Count != nil {
		t.Count = *out.Count
	}
	return t, nil
}

// TokenizeContent is llama.cpp's POST /tokenize {"content",
// "add_special"} (tools/server/README.md of llama.cpp): the ids of
// prompt.
func (c *Client) TokenizeContent(ctx context.Context, prompt string, addSpecial bool) ([]int, error) {
	var out struct {
		Tokens []int `json:"tokens"`
	}
	body := map[string]any{"content": prompt, "add_special": addSpecial}
	if err := c.callJSON(ctx, http.MethodPost, "/tokenize", body, &out, timeout(c.Timeout, DefaultTimeout)); err != nil {
		return nil, err
	}
	if out.Tokens == nil {
		return nil, fmt.Errorf("POST %s: the answer has no \"tokens\"", c.URL("/tokenize"))
	}
	return out.Tokens, nil
}

// Detokenize is vLLM's POST /detokenize {"model", "tokens"}: the text of
// tokens (the server keeps special tokens, as transformers' decode does).
func (c *Client) Detokenize(ctx context.Context, model string, tokens []int) (string, error) {
	if tokens == nil {
		tokens = []int{} // vLLM refuses "tokens": null
	}
	var out struct {
		Prompt *string `json:"prompt"`
	}
	body := map[string]any{"model": model, "tokens": tokens}
	if err := c.callJSON(ctx, http.MethodPost, "/detokenize", body, &out, timeout(c.Timeout, DefaultTimeout)); err != nil {
		return "", err
	}
	if out.Prompt == nil {
		return "", fmt.Errorf("POST %s: the answer has no \"prompt\"", c.URL("/detokenize"))
	}
	return *out.Prompt, nil
}

// TokenizerInfo is what GET /tokenizer_info says about the server's
// tokenizer.
type TokenizerInfo struct {
	// VocabSize is vocab_size if the server reports one, else 0 (vLLM's
	// answer has no such field today).
	VocabSize int
	// SpecialIDs are the ids of added_tokens_decoder marked special,
	// sorted.
	SpecialIDs []int
}

// TokenizerInfo reads GET /tokenizer_info, which vLLM serves only with
// --enable-tokenizer-info-endpoint; callers treat an error as "the server
// does not say".
func (c *Client) TokenizerInfo(ctx context.Context) (TokenizerInfo, error) {
	var body struct {
		VocabSize int `json:"vocab_size"`
		Added     map[string]struct {
			Special bool `json:"special"`
		} `json:"added_tokens_decoder"`
	}
	if err := c.callJSON(ctx, http.MethodGet, "/tokenizer_info", nil, &body, timeout(c.Timeout, DefaultTimeout)); err != nil {
		return TokenizerInfo{}, err
	}
	info := TokenizerInfo{VocabSize: body.VocabSize}
	for k, v := range body.Added {
		if id, err := strconv.Atoi(k); err == nil && v.Special {
			info.SpecialIDs = append(info.SpecialIDs, id)
		}
	}
	slices.Sort(info.SpecialIDs)
	return info, nil
}

// Metrics returns the text of GET /metrics (the Prometheus exposition
// format), bounded by MaxBody; parsing is the caller's. Many servers have
// no /metrics, so callers usually read an error as "no counters".
func (c *Client) Metrics(ctx context.Context) ([]byte, error) {
	return c.call(ctx, http.MethodGet, "/metrics", nil, timeout(c.MetricsTimeout, DefaultMetricsTimeout))
}

// StartProfile is POST /start_profile (vLLM with a profiler configured),
// as the later upstream async_request_profile sends it: a 2xx answer is
// success.
func (c *Client) StartProfile(ctx context.Context) error { return c.profile(ctx, "/start_profile") }

// StopProfile is POST /stop_profile; see StartProfile.
func (c *Client) StopProfile(ctx context.Context) error { return c.profile(ctx, "/stop_profile") }

func (c *Client) profile(ctx context.Context, path string) error {
	_, err := c.call(ctx, http.MethodPost, path, struct{}{}, timeout(c.ProfileTimeout, DefaultProfileTimeout))
	return err
}
