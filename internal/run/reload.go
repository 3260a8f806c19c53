package run

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/gobench/gobench/internal/tokenizer"
	"github.com/gobench/gobench/internal/tokenizer/hub"
)

// letPlanGo lets go what only the plan needed, before the first request:
// the tokenizer (letTokenizerGo), and the memory of its tables and working
// state, the dataset's token ids and their garbage, which goes back to the
// system at once rather than when the runtime's background scavenger gets
// to it. The run's own memory (a buffer and goroutines per connection, the
// bodies in flight) then reuses the plan's high-water mark instead of
// adding to it: with Qwen3's tokenizer the client's peak fell from 173 to
// 150 MB (make bench-mem). It costs one collection, before anything is
// timed.
func (p *Plan) letPlanGo() {
	p.letTokenizerGo()
	debug.FreeOSMemory()
}

// letTokenizerGo replaces the plan's tokenizer, for the time the requests
// are out, by one that loads it again from the same source when it is
// first used after the run (counting output tokens the server did not
// report, the usage check). Nothing between the plan and the end of the
// dispatch uses it: the prompts are planned, the bodies carry them, and the
// server reports usage; so its tables (about 31 MB live for Qwen3's
// 151,643-token vocabulary, and the garbage collector's headroom over them)
// are not held beside 1,400 streams. What it computes after the run is the
// same, because the same file gives the same tokenizer.
//
// It is kept when loading again is not a local read of the same file:
// gobench's built-in tokenizer (small, and in the binary), the server's
// /tokenize (it costs no memory here), and a --multi-turn run, whose
// dispatch counts each answer's tokens.
func (p *Plan) letTokenizerGo() {
	tok := p.Tokenizer
	if tok == nil || p.talks != nil || tok.Name() == tokenizer.BuiltinName || !p.tokSrc.reloadable {
		return
	}
	if _, ok := tok.(*hub.ServerTokenizer); ok {
		return
	}
	src := p.tokSrc
	src.server, src.env.Stderr = nil, nil
	getenv := src.env.Getenv
	src.env.Getenv = func(k string) string {
		if k == "HF_HUB_OFFLINE" {
			return "1" // the file is on disk now: never the network again
		}
		if getenv == nil {
			return ""
		}
		return getenv(k)
	}
	p.Tokenizer = &reloading{name: tok.Name(), was: fingerprintOf(tok), load: func() (tokenizer.Tokenizer, error) {
		return resolveTokenizer(context.Background(), src)
	}}
}

// fingerprintProbe is encoded by a tokenizer before it is let go and after
// it is loaded again: Latin, accents (the normaliser), CJK and an emoji
// (byte-level merges), digits and whitespace runs (the pre-tokenizer) and
// the special tokens added, so that a tokenizer.json replaced during the
// run almost surely encodes it differently.
const fingerprintProbe = "Hello, world! It's 2026: naïve café, Grüße, 東京の天気 😀 -- x\n\t  12345678  "

// fingerprint is what the tokenizer loaded again must give to be the one
// the prompts were made with.
type fingerprint struct {
	vocab, special int
	ids            []int
}

func fingerprintOf(t tokenizer.Tokenizer) fingerprint {
	return fingerprint{vocab: t.VocabSize(), special: t.NumSpecialTokensToAdd(), ids: t.Encode(fingerprintProbe, true)}
}

// check says how t differs from the fingerprint, if it does.
func (f fingerprint) check(t tokenizer.Tokenizer) error {
	if g := fingerprintOf(t); g.vocab != f.vocab || g.special != f.special || !slices.Equal(g.ids, f.ids) {
		return errors.New("its files changed during the run (it no longer encodes as the tokenizer the prompts were made with); the output tokens counted after the run used the changed files")
	}
	return nil
}

// reloading is a tokenizer let go after the plan (letTokenizerGo): its
// name is known, the rest loads it again on first use. A failure to load
// leaves Encode and Decode empty and is reported by Err, which the run
// checks after counting (checkTokenizer), as for the server's tokenizer; so
// is a tokenizer loaded that is not the one let go (its file was replaced
// during the run).
type reloading struct {
	name string
	load func() (tokenizer.Tokenizer, error)
	// was is the tokenizer let go; one loaded that differs from it is
	// used, and reported by Err.
	was fingerprint

	mu  sync.Mutex
	tok tokenizer.Tokenizer
	err error
}

// get loads the tokenizer the first time and returns it, nil on failure.
func (r *reloading) get() tokenizer.Tokenizer {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tok == nil && r.err == nil {
		r.tok, r.err = r.load()
		if r.err == nil {
			r.err = r.was.check(r.tok)
		}
		if r.err != nil {
			r.err = fmt.Errorf("loading tokenizer %s again after the run: %w", r.name, r.err)
		}
	}
	return r.tok
}

// Name is the tokenizer's name, known without loading it.
func (r *reloading) Name() string { return r.name }

// Encode is the loaded tokenizer's Encode (nil when it failed to load).
func (r *reloading) Encode(text string, addSpecialTokens bool) []int {
	if t := r.get(); t != nil {
		return t.Encode(text, addSpecialTokens)
	}
	return nil
}

// Decode is the loaded tokenizer's Decode ("" when it failed to load).
func (r *reloading) Decode(ids []int) string {
	if t := r.get(); t != nil {
		return t.Decode(ids)
	}
	return ""
}

// VocabSize is the loaded tokenizer's vocabulary size.
func (r *reloading) VocabSize() int {
	if t := r.get(); t != nil {
		return t.VocabSize()
	}
	return 0
}

// AllSpecialIDs is the loaded tokenizer's special ids.
func (r *reloading) AllSpecialIDs() []int {
	if t := r.get(); t != nil {
		return t.AllSpecialIDs()
	}
	return nil
}

// NumSpecialTokensToAdd is the loaded tokenizer's count.
func (r *reloading) NumSpecialTokensToAdd() int {
	if t := r.get(); t != nil {
		return t.NumSpecialTokensToAdd()
	}
	return 0
}

// Err is the failure to load it again, else the loaded tokenizer's own;
// nil while it has not been needed.
func (r *reloading) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return r.err
	}
	if r.tok != nil {
		return tokenizer.Err(r.tok)
	}
	return nil
}
