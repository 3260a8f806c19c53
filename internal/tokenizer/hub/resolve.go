// Package hub finds the tokenizer a run needs the way vLLM users expect:
// a local file or folder, a Hugging Face model id in the local HF cache, a
// download from the Hub into that cache, or the server's own /tokenize and
// /detokenize. Each step is logged at debug level, and when none works the
// error lists what was tried and how to fix it.
//
// It reads the same environment as huggingface_hub (HF_HOME, HF_HUB_CACHE,
// HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE) and writes downloads in its cache
// layout, so Python tools and gobench share one cache. Nothing is
// downloaded unless the user named a model id that is not in the cache,
// and HF_HUB_OFFLINE=1 forbids even that. HF_TOKEN is sent only to
// HF_ENDPOINT and never logged.
package hub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/gobench/gobench/internal/serverapi"
	"github.com/gobench/gobench/internal/tokenizer"

	"github.com/gobench/gobench/internal/hfhub"
)

// Tokenizer modes (--tokenizer-mode) that Resolve understands. vLLM's
// "auto" and "hf" both mean a Hugging Face tokenizer; "server" uses the
// server's /tokenize and /detokenize.
const (
	ModeAuto   = "auto"
	ModeHF     = "hf"
	ModeServer = "server"
)

// DefaultEndpoint is the Hugging Face Hub, used when HF_ENDPOINT is unset.
const DefaultEndpoint = hfhub.DefaultEndpoint

// ResolveOptions is what Resolve needs from its surroundings.
type ResolveOptions struct {
	// Mode is --tokenizer-mode: "" or ModeAuto, ModeHF, ModeServer.
	Mode string
	// Revision is the Hub revision (branch, tag or commit); "" is "main".
	Revision string
	// Getenv reads HF_HOME, HF_HUB_CACHE, HF_ENDPOINT, HF_TOKEN,
	// HF_HUB_OFFLINE, XDG_CACHE_HOME and HOME; nil reads nothing.
	Getenv func(string) string
	// HTTP is the client for the Hub; nil uses http.DefaultClient.
	HTTP *http.Client
	// Debug receives one line per step; nil discards them.
	Debug io.Writer

	// Server calls the server's /tokenize, /detokenize and
	// /tokenizer_info, with the run's headers and its own HTTP client
	// (the server may need --insecure, the Hub never); nil disables the
	// server fallback (a dry run sends nothing).
	Server *serverapi.Client
	// Model is the model name sent to /tokenize.
	Model string
	// NeedVocabulary says the caller needs VocabSize (the random datasets
	// draw token ids from the vocabulary). The automatic fallback to the
	// server's /tokenize is then skipped when the server does not give it,
	// so that the user gets the full "what was tried" error instead of a
	// tokenizer that cannot serve.
	NeedVocabulary bool
}

// Resolve returns the tokenizer called name: tokenizer.BuiltinName, a
// tokenizer.json or a folder holding one, or a Hugging Face model id. It
// tries, in order, the local path, the HF cache, a download from the Hub
// (saved into the cache) and the server's /tokenize; with ModeServer only
// the server.
func Resolve(ctx context.Context, name string, opts ResolveOptions) (tokenizer.Tokenizer, error) {
	r := newResolver(opts)
	switch opts.Mode {
	case "", ModeAuto, ModeHF, ModeServer:
	default:
		return nil, fmt.Errorf("--tokenizer-mode %s: not supported (supported: auto, hf, server)", opts.Mode)
	}
	if opts.Mode == ModeServer {
		r.debug("tokenizer: --tokenizer-mode server: using %s", r.serverURL("/tokenize"))
		tok, err := r.server(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("--tokenizer-mode server: %w", err)
		}
		return tok, nil
	}
	if name == tokenizer.BuiltinName {
		r.debug("tokenizer: %s: gobench's built-in tokenizer", name)
		return tokenizer.Builtin(), nil
	}

	// 1. A local file or folder.
	if _, err := os.Stat(name); err == nil {
		r.debug("tokenizer: %s is a local file or folder", name)
		tok, err := tokenizer.Load(name)
		if err != nil {
			return nil, err
		}
		r.loaded(tok)
		return tok, nil
	}
	if !isRepoID(name) {
		return nil, fmt.Errorf("tokenizer %q: no such file or folder, and not a Hugging Face model id. Pass --tokenizer with the path of a tokenizer.json or of a folder holding one", name)
	}
	r.note("a local file or folder %q: does not exist", name)
	revision := opts.Revision
	if revision == "" {
		revision = "main"
	}

	// 2. The Hugging Face cache.
	cache, from := cacheDir(r.getenv)
	snap, err := cachedSnapshot(cache, name, revision)
	if err == nil {
		r.debug("tokenizer: %s found in the HF cache: %s", name, snap)
		return r.load(name, snap)
	}
	r.note("the Hugging Face cache %s (from %s): %v", cache, from, err)

	// 3. A download from the Hub.
	if offline(r.getenv) {
		r.note("a download from the Hub: skipped because HF_HUB_OFFLINE is set")
	} else if snap, err := r.download(ctx, cache, name, revision); err != nil {
		r.note("a download from %s: %v", r.endpoint(), err)
	} else {
		return r.load(name, snap)
	}

	// 4. The server's own tokenizer.
	if opts.Server == nil {
		r.note("the server's /tokenize: no server (dry run)")
	} else if tok, err := r.server(ctx, name); err != nil {
		r.note("the server's /tokenize: %v", err)
	} else if opts.NeedVocabulary && tok.VocabSize() == 0 {
		r.note("the server's /tokenize at %s: it works, but does not give the vocabulary size this dataset draws from", r.serverURL(""))
	} else {
		return tok, nil
	}
	return nil, r.failure(name, cache)
}

// resolver carries one Resolve call's settings and the steps it tried.
type resolver struct {
	opts   ResolveOptions
	getenv func(string) string
	tried  []string
}

func newResolver(opts ResolveOptions) *resolver {
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	if opts.HTTP == nil {
		opts.HTTP = http.DefaultClient
	}
	if opts.Debug == nil {
		opts.Debug = io.Discard
	}
	return &resolver{opts: opts, getenv: opts.Getenv}
}

// debug writes one step to the debug log.
func (r *resolver) debug(format string, args ...any) {
	fmt.Fprintf(r.opts.Debug, format+"\n", args...)
}

// note records a step that did not give a tokenizer, for the debug log and
// the final error.
func (r *resolver) note(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.tried = append(r.tried, msg)
	r.debug("tokenizer: tried %s", msg)
}

// loaded logs the kind of a loaded tokenizer.
func (r *resolver) loaded(tok tokenizer.Tokenizer) {
	if k, ok := tok.(interface{ Kind() tokenizer.Kind }); ok {
		r.debug("tokenizer: loaded %s (%s, vocabulary %d)", tok.Name(), k.Kind(), tok.VocabSize())
	}
}

// load reads a snapshot folder; the tokenizer is named by the model id,
// as transformers names it, so the result's tokenizer_id is the id.
func (r *resolver) load(name, dir string) (tokenizer.Tokenizer, error) {
	tok, err := tokenizer.LoadNamed(dir, name)
	if err != nil {
		return nil, err
	}
	r.loaded(tok)
	return tok, nil
}

// endpoint is HF_ENDPOINT or the public Hub.
func (r *resolver) endpoint() string {
	if e := strings.TrimSuffix(r.getenv("HF_ENDPOINT"), "/"); e != "" {
		return e
	}
	return DefaultEndpoint
}

// download fetches the tokenizer files of a model id into the cache.
func (r *resolver) download(ctx context.Context, cache, name, revision string) (string, error) {
	ep, err := url.Parse(r.endpoint())
	if err != nil || ep.Host == "" {
		return "", fmt.Errorf("HF_ENDPOINT %q is not a URL", r.endpoint())
	}
	r.debug("tokenizer: downloading %s from %s into %s", name, ep.Redacted(), cache)
	d := &downloader{client: r.opts.HTTP, endpoint: ep, token: hfhub.Token(r.getenv), cache: cache, debug: r.debug}
	return d.download(ctx, name, revision)
}

// server checks and returns the server-side tokenizer.
func (r *resolver) server(ctx context.Context, name string) (tokenizer.Tokenizer, error) {
	if r.opts.Server == nil {
		return nil, errors.New("no server to ask (a dry run sends nothing)")
	}
	tok, err := newServerTokenizer(ctx, r.opts.Server, r.opts.Model)
	if err != nil {
		return nil, err
	}
	r.debug("tokenizer: using the server's /tokenize and /detokenize at %s for %s", r.serverURL(""), name)
	return tok, nil
}

// serverURL is path on the server, for the debug log and the notes; ""
// without a server.
func (r *resolver) serverURL(path string) string {
	if r.opts.Server == nil {
		return ""
	}
	return r.opts.Server.URL(path)
}

// failure is the one error that says what was tried and how to fix it.
func (r *resolver) failure(name, cache string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "no tokenizer found for %q. Tried:\n", name)
	for _, t := range r.tried {
		fmt.Fprintf(&b, "  - %s\n", t)
	}
	b.WriteString("To fix it, do one of:\n")
	fmt.Fprintf(&b, "  - pass --tokenizer with a tokenizer.json or a folder holding one (the model's files)\n")
	if offline(r.getenv) {
		fmt.Fprintf(&b, "  - unset HF_HUB_OFFLINE to let gobench download %s's tokenizer files into %s\n", name, cache)
	}
	fmt.Fprintf(&b, "  - download them once where the Hub is reachable: huggingface-cli download %s tokenizer.json tokenizer_config.json (set HF_HUB_CACHE or HF_HOME if the cache is elsewhere)\n", name)
	if !r.opts.NeedVocabulary {
		b.WriteString("  - pass --tokenizer-mode server to count tokens with the server's /tokenize (vLLM)\n")
	}
	b.WriteString("  - pass --skip-tokenizer-init to run without a tokenizer (token counts from the server's usage)")
	return errors.New(b.String())
}

// offline is hfhub.Offline.
func offline(getenv func(string) string) bool { return hfhub.Offline(getenv) }
