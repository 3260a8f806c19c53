package run

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/serverapi"
	"github.com/gobench/gobench/internal/tokenizer"
	"github.com/gobench/gobench/internal/tokenizer/hub"
)

// tokenizerSource is what resolveTokenizer needs to find a tokenizer.
type tokenizerSource struct {
	name, mode string
	opts       Options
	env        Env
	// server is the server's side endpoints, for the /tokenize fallback;
	// nil in a dry run, which sends nothing.
	server *serverapi.Client
	// model is the name sent to /tokenize (the served model name if any).
	model string
	// needVocab: the dataset draws from the vocabulary (hub's
	// NeedVocabulary).
	needVocab bool
}

// resolveTokenizer finds the tokenizer named by --tokenizer (or the model
// id) the way users expect (hub.Resolve): gobench's built-in one, a local
// tokenizer.json or folder, a model id in the Hugging Face cache, a download
// into that cache, or the server's /tokenize. VLLM_LOGGING_LEVEL=DEBUG logs
// each step on stderr.
func resolveTokenizer(ctx context.Context, src tokenizerSource) (tokenizer.Tokenizer, error) {
	getenv := src.env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	transport := src.env.Transport
	if transport == nil {
		transport = NewTransport
	}
	var debug io.Writer
	if strings.EqualFold(getenv("VLLM_LOGGING_LEVEL"), "DEBUG") {
		debug = src.env.Stderr
	}
	opts := hub.ResolveOptions{
		Mode:   src.mode,
		Getenv: getenv,
		// Downloads from the Hub never use --insecure, which is about the
		// benchmarked server.
		HTTP:           &http.Client{Transport: transport(0, false), Timeout: 10 * time.Minute},
		Debug:          debug,
		Model:          src.model,
		NeedVocabulary: src.needVocab,
	}
	if src.server != nil {
		opts.Server = src.server.WithHTTP(&http.Client{Transport: transport(alignConcurrency, src.opts.Insecure)})
	}
	tok, err := hub.Resolve(ctx, src.name, opts)
	if err != nil {
		return nil, err
	}
	return tok, nil
}

// checkTokenizer fails when a tokenizer that can fail (the server's) has
// failed; what it computed meanwhile would be wrong.
func checkTokenizer(tok tokenizer.Tokenizer, phase string) error {
	if tok == nil {
		return nil
	}
	if err := tokenizer.Err(tok); err != nil {
		return fmt.Errorf("%s: %w", phase, err)
	}
	return nil
}
