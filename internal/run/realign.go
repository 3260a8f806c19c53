package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/serverapi"
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
// false} and /detokenize {"model", "tokens"} with the model id; at most 64
// calls at a time; a /tokenize that fails on the first prompt skips the
// alignment with a warning; a prompt whose calls fail keeps its text;
// prompt_len never changes. It prints vLLM's warnings to out. Unlike vLLM,
// the calls carry the run's headers (api's), so alignment works behind an
// auth gateway.
func alignPrompts(ctx context.Context, api *serverapi.Client, modelID string, samples []dataset.Sample, out io.Writer) []dataset.Sample {
	if len(samples) == 0 {
		return samples
	}
	a := &aligner{ctx: ctx, api: api, model: modelID, sem: make(chan struct{}, alignConcurrency)}
	first, err := a.tokenize(samples[0].Prompt)
	if te := (*serverapi.TimeoutError)(nil); errors.As(err, &te) {
		fmt.Fprintf(out, "WARNING: /tokenize timed out (%v), skipping alignment.\n", err)
		return samples
	}
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
	var timedOut atomic.Int64
	// A goroutine per prompt in flight, not per prompt: 4,096 prompts
	// waiting for one of the 64 calls were 4,096 goroutine stacks.
	workers := make(chan struct{}, alignConcurrency)
	for i := range aligned {
		workers <- struct{}{}
		wg.Go(func() {
			defer func() { <-workers }()
			s := &aligned[i]
			tokens, err := a.tokenize(s.Prompt)
			if err == nil && len(tokens) > s.PromptLen {
				var p string
				if p, err = a.detokenize(tokens[:s.PromptLen]); err == nil {
					s.Prompt = p
				}
			}
			if errors.Is(err, context.DeadlineExceeded) {
				timedOut.Add(1)
			}
		})
	}
	wg.Wait()
	if n := timedOut.Load(); n > 0 {
		fmt.Fprintf(out, "WARNING: %d prompt(s) keep their text: /tokenize or /detokenize timed out.\n", n)
	}
	return aligned
}

// aligner makes the calls of one alignment, at most alignConcurrency at a
// time.
type aligner struct {
	ctx   context.Context
	api   *serverapi.Client
	model string
	sem   chan struct{}
}

func (a *aligner) tokenize(prompt string) ([]int, error) {
	if err := a.acquire(); err != nil {
		return nil, err
	}
	defer a.release()
	return a.api.Tokenize(a.ctx, a.model, prompt, false)
}

func (a *aligner) detokenize(tokens []int) (string, error) {
	if err := a.acquire(); err != nil {
		return "", err
	}
	defer a.release()
	return a.api.Detokenize(a.ctx, a.model, tokens)
}

func (a *aligner) acquire() error {
	select {
	case a.sem <- struct{}{}:
		return nil
	case <-a.ctx.Done():
		return a.ctx.Err()
	}
}

func (a *aligner) release() { <-a.sem }
