package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/gobench/gobench/internal/dataset"
)

// alignConcurrency is how many /tokenize and /detokenize calls vLLM keeps
// in flight while re-aligning prompts.
const alignConcurrency = 64

// alignPrompts is vLLM's _align_prompts_to_server_tokenizer (serve.py,
// run for the random and prefix_repetition datasets): when the server's
// tokenizer counts the first prompt differently from the client's
// prompt_len, every prompt the server counts longer is cut to prompt_len
// server tokens and detokenized, so the server sees the intended length.
//
// As in vLLM: POST {base}/tokenize {"model", "prompt", "add_special_tokens":
// false} and /detokenize {"model", "tokens"} with the model id and no other
// headers; at most 64 calls at a time; a /tokenize that fails on the first
// prompt skips the alignment with a warning; a prompt whose calls fail
// keeps its text; prompt_len never changes. It prints vLLM's warnings to
// out.
func alignPrompts(ctx context.Context, hc *http.Client, baseURL, modelID string, samples []dataset.Sample, out io.Writer) []dataset.Sample {
	if len(samples) == 0 {
		return samples
	}
	a := &aligner{ctx: ctx, hc: hc, base: baseURL, model: modelID, sem: make(chan struct{}, alignConcurrency)}
	first, err := a.tokenize(samples[0].Prompt)
	if err != nil {
		fmt.Fprintln(out, "WARNING: /tokenize unavailable, skipping alignment.")
		return samples
	}
	expected := samples[0].PromptLen
	if len(first) == expected {
		return samples
	}
	fmt.Fprintf(out, "WARNING: tokenizer mismatch (server=%d, expected=%d), re-aligning prompts.\n", len(first), expected)
	aligned := make([]dataset.Sample, len(samples))
	copy(aligned, samples)
	var wg sync.WaitGroup
	for i := range aligned {
		wg.Go(func() {
			s := &aligned[i]
			tokens, err := a.tokenize(s.Prompt)
			if err != nil || len(tokens) <= s.PromptLen {
				return
			}
			if p, err := a.detokenize(tokens[:s.PromptLen]); err == nil {
				s.Prompt = p
			}
		})
	}
	wg.Wait()
	return aligned
}

// aligner makes the calls of one alignment.
type aligner struct {
	ctx   context.Context
	hc    *http.Client
	base  string
	model string
	sem   chan struct{}
}

func (a *aligner) tokenize(prompt string) ([]int, error) {
	var r struct {
		Tokens []int `json:"tokens"`
	}
	if err := a.post("/tokenize", map[string]any{"model": a.model, "prompt": prompt, "add_special_tokens": false}, &r); err != nil {
		return nil, err
	}
	if r.Tokens == nil {
		return nil, errors.New("no tokens in the answer")
	}
	return r.Tokens, nil
}

func (a *aligner) detokenize(tokens []int) (string, error) {
	var r struct {
		Prompt *string `json:"prompt"`
	}
	if err := a.post("/detokenize", map[string]any{"model": a.model, "tokens": tokens}, &r); err != nil {
		return "", err
	}
	if r.Prompt == nil {
		return "", errors.New("no prompt in the answer")
	}
	return *r.Prompt, nil
}

// post sends one call under the concurrency limit.
func (a *aligner) post(path string, body, out any) error {
	select {
	case a.sem <- struct{}{}:
	case <-a.ctx.Done():
		return a.ctx.Err()
	}
	defer func() { <-a.sem }()
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(a.ctx, http.MethodPost, a.base+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		return fmt.Errorf("POST %s: %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}
