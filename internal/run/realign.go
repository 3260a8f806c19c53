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
// auth gateway, and an answer that cannot be trusted skips the alignment
// with one line saying why (trusted): vLLM's client took llama.cpp's empty
// answer for a count of 0 and made a pair of calls per prompt for nothing.
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
	if why := a.trusted(first, samples[0]); why != "" {
		fmt.Fprintf(out, "Prompt alignment skipped: %s.\n", why)
		return samples
	}
	if first.Count == expected {
		return samples
	}
	fmt.Fprintf(out, "WARNING: tokenizer mismatch (server=%d, expected=%d), re-aligning prompts.\n", first.Count, expected)
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
			t, err := a.tokenize(s.Prompt)
			if tokens := t.Tokens; err == nil && len(tokens) > s.PromptLen {
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

func (a *aligner) tokenize(prompt string) (serverapi.Tokenized, error) {
	if err := a.acquire(); err != nil {
		return serverapi.Tokenized{}, err
	}
	defer a.release()
	return a.api.Tokenize(a.ctx, a.model, prompt, false)
}

// trusted says why the server's count of the first prompt cannot be
// trusted, or "": an answer without vLLM's count (llama.cpp's /tokenize
// reads "content" and answered an empty list; asked in its own way, its
// count is given for the user to compare), a count of 0 for a non-empty
// prompt, or a count that disagrees with the tokens.
func (a *aligner) trusted(first serverapi.Tokenized, s dataset.Sample) string {
	switch {
	case first.Count < 0:
		why := "the server's /tokenize is not vLLM's (its answer has no count)"
		if ids, err := a.api.TokenizeContent(a.ctx, s.Prompt, false); err == nil && len(ids) > 0 {
			why += fmt.Sprintf("; asked as llama.cpp's is, it counts %d tokens in the first prompt, gobench's tokenizer %d", len(ids), s.PromptLen)
		}
		return why
	case first.Count == 0 && s.Prompt != "":
		return "the server's /tokenize counted 0 tokens in a non-empty prompt"
	case !first.VLLM():
		return fmt.Sprintf("the server's /tokenize says count %d beside %d tokens", first.Count, len(first.Tokens))
	}
	return ""
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
