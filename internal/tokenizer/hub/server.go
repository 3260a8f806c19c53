package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/gobench/gobench/internal/tokenizer"
)

// ErrNoVocabulary is returned by callers that need the vocabulary of a
// server-side tokenizer, which vLLM's /tokenize and
// /detokenize do not expose: the random dataset draws token ids from it.
var ErrNoVocabulary = errors.New("the server's tokenizer does not say its vocabulary size (vLLM's /tokenize has no such field): the random and prefix_repetition datasets need a local tokenizer; pass --tokenizer with a tokenizer.json or a model id")

// ServerTokenizer counts and decodes tokens with the server's own
// tokenizer, through vLLM's POST /tokenize and /detokenize. It is the last
// resort when no tokenizer.json can be found, or what --tokenizer-mode
// server asks for: exact for the server by construction, but one HTTP call
// per Encode or Decode.
//
// The Tokenizer interface has no error results, so a failed call returns an
// empty result and is remembered; Err reports the first failure, and
// callers check it after a phase that used the tokenizer.
type ServerTokenizer struct {
	ctx     context.Context // bounds every call; from Resolve
	client  *http.Client
	base    string
	model   string
	headers http.Header
	name    string

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

// newServerTokenizer checks that the server tokenizes (one /tokenize call,
// which also measures the special tokens it adds) and reads
// /tokenizer_info when the server has it.
func newServerTokenizer(ctx context.Context, opts ResolveOptions, name string) (*ServerTokenizer, error) {
	if opts.ServerURL == "" {
		return nil, errors.New("no server URL")
	}
	s := &ServerTokenizer{
		ctx: ctx, client: opts.ServerHTTP, base: strings.TrimSuffix(opts.ServerURL, "/"), model: opts.Model,
		headers: opts.Headers, name: name,
	}
	plain, err := s.tokenize("", false)
	if err != nil {
		return nil, err
	}
	wrapped, err := s.tokenize("", true)
	if err != nil {
		return nil, err
	}
	s.numAdded = len(wrapped) - len(plain)
	s.readInfo()
	return s, nil
}

// Name is "server:" and the server's URL, saved as the result's
// tokenizer_id.
func (s *ServerTokenizer) Name() string { return s.name }

// Encode is POST /tokenize {"model", "prompt", "add_special_tokens"}.
func (s *ServerTokenizer) Encode(text string, addSpecialTokens bool) []int {
	ids, err := s.tokenize(text, addSpecialTokens)
	if err != nil {
		s.fail(err)
		return nil
	}
	return ids
}

// Decode is POST /detokenize {"model", "tokens"}; the server keeps special
// tokens as transformers' decode does.
func (s *ServerTokenizer) Decode(ids []int) string {
	if ids == nil {
		ids = []int{}
	}
	var out struct {
		Prompt *string `json:"prompt"`
	}
	if err := s.post("/detokenize", map[string]any{"model": s.model, "tokens": ids}, &out); err != nil {
		s.fail(err)
		return ""
	}
	if out.Prompt == nil {
		s.fail(fmt.Errorf("POST %s/detokenize: the answer has no \"prompt\"", s.base))
		return ""
	}
	return *out.Prompt
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

// tokenize calls /tokenize.
func (s *ServerTokenizer) tokenize(text string, addSpecial bool) ([]int, error) {
	var out struct {
		Tokens []int `json:"tokens"`
	}
	body := map[string]any{"model": s.model, "prompt": text, "add_special_tokens": addSpecial}
	if err := s.post("/tokenize", body, &out); err != nil {
		return nil, err
	}
	if out.Tokens == nil {
		return nil, fmt.Errorf("POST %s/tokenize: the answer has no \"tokens\"", s.base)
	}
	return out.Tokens, nil
}

// readInfo reads GET /tokenizer_info (vLLM with
// --enable-tokenizer-info-endpoint): the special tokens from
// added_tokens_decoder and a vocab_size if some server reports one. Its
// absence is not an error.
func (s *ServerTokenizer) readInfo() {
	req, err := http.NewRequestWithContext(s.ctx, http.MethodGet, s.base+"/tokenizer_info", nil)
	if err != nil {
		return
	}
	s.setHeaders(req)
	resp, err := s.client.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return
	}
	var info struct {
		VocabSize int `json:"vocab_size"`
		Added     map[string]struct {
			Special bool `json:"special"`
		} `json:"added_tokens_decoder"`
	}
	if json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&info) != nil {
		return
	}
	s.vocabSize = info.VocabSize
	for k, v := range info.Added {
		var id int
		if _, err := fmt.Sscan(k, &id); err == nil && v.Special {
			s.specialIDs = append(s.specialIDs, id)
		}
	}
	slices.Sort(s.specialIDs)
}

func (s *ServerTokenizer) setHeaders(req *http.Request) {
	for k, vs := range s.headers {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
}

// post sends a JSON body and decodes a JSON answer.
func (s *ServerTokenizer) post(path string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(s.ctx, http.MethodPost, s.base+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	s.setHeaders(req)
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s%s: %w", s.base, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return fmt.Errorf("POST %s%s: %w", s.base, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s%s: HTTP %d: %.200s", s.base, path, resp.StatusCode, bytes.TrimSpace(data))
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("POST %s%s: %w", s.base, path, err)
	}
	return nil
}
