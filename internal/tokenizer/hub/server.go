package hub

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/gobench/gobench/internal/serverapi"
	"github.com/gobench/gobench/internal/tokenizer"
)

// ErrNoVocabulary is returned by callers that need the vocabulary of a
// server-side tokenizer, which vLLM's /tokenize and
// /detokenize do not expose: the random dataset draws token ids from it.
var ErrNoVocabulary = errors.New("the server's tokenizer does not say its vocabulary size (vLLM's /tokenize has no such field): the random and prefix_repetition datasets need a local tokenizer; pass --tokenizer with a tokenizer.json or a model id")

// ServerTokenizer counts and decodes tokens with the server's own
// tokenizer, through vLLM's POST /tokenize and /detokenize (a
// serverapi.Client, which carries the run's headers). It is the last
// resort when no tokenizer.json can be found, or what --tokenizer-mode
// server asks for: exact for the server by construction, but one HTTP call
// per Encode or Decode.
//
// The Tokenizer interface has no error results, so a failed call returns an
// empty result and is remembered; Err reports the first failure, and
// callers check it after a phase that used the tokenizer.
type ServerTokenizer struct {
	ctx   context.Context // bounds every call; from Resolve
	api   *serverapi.Client
	model string

	vocabSize  int
	specialIDs []int
	numAdded   int

	mu  sync.Mutex
	err error
}

var (
	_ tokenizer.Tokenizer = (*ServerTokenizer)(nil)
	_ tokenizer.Fallible  = (*ServerTokenizer)(nil)
)

// probeText is what newServerTokenizer asks the server to count: any
// tokenizer makes at least one token of it.
const probeText = "Hello, world"

// newServerTokenizer checks that the server tokenizes as vLLM's /tokenize
// does (a count beside the tokens, and tokens for a non-empty text: a
// server that answers another shape, as llama.cpp's does, would count
// every prompt as empty), measures the special tokens it adds on the empty
// prompt, and reads /tokenizer_info when the server has it (its absence is
// not an error).
func newServerTokenizer(ctx context.Context, api *serverapi.Client, model string) (*ServerTokenizer, error) {
	s := &ServerTokenizer{ctx: ctx, api: api, model: model}
	probe, err := api.Tokenize(ctx, model, probeText, false)
	if err != nil {
		return nil, err
	}
	if !probe.VLLM() || len(probe.Tokens) == 0 {
		return nil, fmt.Errorf("its /tokenize does not answer as vLLM's does (%d tokens for %q, count %s): it cannot count the prompts", len(probe.Tokens), probeText, countText(probe.Count))
	}
	plain, err := api.Tokenize(ctx, model, "", false)
	if err != nil {
		return nil, err
	}
	wrapped, err := api.Tokenize(ctx, model, "", true)
	if err != nil {
		return nil, err
	}
	s.numAdded = len(wrapped.Tokens) - len(plain.Tokens)
	if info, err := api.TokenizerInfo(ctx); err == nil {
		s.vocabSize, s.specialIDs = info.VocabSize, info.SpecialIDs
	}
	return s, nil
}

// Name is "server:" and the server's URL, saved as the result's
// tokenizer_id.
func (s *ServerTokenizer) Name() string { return "server:" + s.api.URL("") }

// Encode is POST /tokenize {"model", "prompt", "add_special_tokens"}.
func (s *ServerTokenizer) Encode(text string, addSpecialTokens bool) []int {
	ids, err := s.api.Tokenize(s.ctx, s.model, text, addSpecialTokens)
	if err != nil {
		s.fail(err)
		return nil
	}
	return ids.Tokens
}

// countText is a /tokenize answer's count as text: "absent" when it has
// none.
func countText(n int) string {
	if n < 0 {
		return "absent"
	}
	return fmt.Sprint(n)
}

// Decode is POST /detokenize {"model", "tokens"}; the server keeps special
// tokens as transformers' decode does.
func (s *ServerTokenizer) Decode(ids []int) string {
	text, err := s.api.Detokenize(s.ctx, s.model, ids)
	if err != nil {
		s.fail(err)
		return ""
	}
	return text
}

// VocabSize is the vocab_size of /tokenizer_info when the server has it,
// else 0: callers that need the vocabulary refuse with ErrNoVocabulary.
func (s *ServerTokenizer) VocabSize() int { return s.vocabSize }

// AllSpecialIDs lists the special tokens of /tokenizer_info's
// added_tokens_decoder, or none when the server does not say.
func (s *ServerTokenizer) AllSpecialIDs() []int { return slices.Clone(s.specialIDs) }

// NumSpecialTokensToAdd is how many ids /tokenize adds with
// add_special_tokens, measured on the empty prompt.
func (s *ServerTokenizer) NumSpecialTokensToAdd() int { return s.numAdded }

// Err returns the first failed call, or nil.
func (s *ServerTokenizer) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *ServerTokenizer) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = fmt.Errorf("server tokenizer: %w", err)
	}
}
