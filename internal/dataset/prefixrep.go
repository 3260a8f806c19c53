package dataset

import (
	"fmt"
	"io"
	"math"
	"runtime"

	"github.com/gobench/gobench/internal/numpyrand"
	"github.com/gobench/gobench/internal/tokenizer"
)

// PrefixRepetition builds vLLM's prefix_repetition dataset
// (vllm/benchmarks/datasets/datasets.py@11dfa3169
// PrefixRepetitionRandomDataset): --prefix-repetition-num-prefixes random
// prefixes, each followed by num_prompts // num_prefixes random suffixes, so
// that a server's prefix cache sees the same prefix again and again.
//
// vLLM reseeds CPython's global random and NumPy's legacy global generator
// with the seed, draws every token (and every fix-up token of
// gen_prompt_decode_to_target_len, which gets no rng here) with
// np.random.randint over the whole vocabulary, special ids included, and
// shuffles the requests with the global random unless --disable-shuffle.
// The count is num_prefixes × (num_prompts // num_prefixes), which may be
// fewer than --num-prompts, and the requests carry no request id.
func PrefixRepetition(opts Options, tok tokenizer.Tokenizer, g *Globals, warn io.Writer) ([]Sample, error) {
	return prefixRepetition(opts, tok, g, warn, runtime.GOMAXPROCS(0))
}

// prefixRepetition is PrefixRepetition on up to workers goroutines; the
// samples, and the state the global generators are left in, do not depend
// on workers.
func prefixRepetition(opts Options, tok tokenizer.Tokenizer, g *Globals, warn io.Writer, workers int) ([]Sample, error) {
	numPrefixes := opts.PrefixRepetitionNumPrefixes
	perPrefix := opts.NumPrompts / numPrefixes // Validate checked numPrefixes >= 1
	if perPrefix == 0 {
		return nil, fmt.Errorf("num_requests (%d) must be greater than or equal to num_prefixes (%d)", opts.NumPrompts, numPrefixes)
	}
	if opts.Seed < 0 || opts.Seed > math.MaxUint32 {
		return nil, fmt.Errorf("--seed %d: the prefix_repetition dataset needs a seed in [0, 2**32) (np.random.seed rejects others)", opts.Seed)
	}
	g.Random.Seed(opts.Seed)
	g.NumPy.Seed(uint32(opts.Seed))
	// The sequences in vLLM's order: each prefix, then its suffixes.
	targets := make([]int, 0, numPrefixes*(1+perPrefix))
	for range numPrefixes {
		targets = append(targets, opts.PrefixRepetitionPrefixLen)
		for range perPrefix {
			targets = append(targets, opts.PrefixRepetitionSuffixLen)
		}
	}
	seqs, total := exactLens(tok, g.NumPy, targets, workers)

	samples := make([]Sample, numPrefixes*perPrefix)
	forEach(len(samples), workers, func(i int) {
		p := i / perPrefix
		prefix, suffix := seqs[p*(1+perPrefix)], seqs[p*(1+perPrefix)+1+i%perPrefix]
		combined := append(append(make([]int, 0, len(prefix)+len(suffix)), prefix...), suffix...)
		samples[i] = Sample{
			Prompt:            tok.Decode(combined),
			PromptLen:         len(combined),
			ExpectedOutputLen: opts.PrefixRepetitionOutputLen,
		}
	})
	warnMismatch(warn, total)
	if !opts.DisableShuffle {
		g.Random.Shuffle(len(samples), func(i, j int) { samples[i], samples[j] = samples[j], samples[i] })
	}
	return samples, nil
}

// exactSeq is one sequence of exactLens: drawn from a copy of the
// generator, then fixed to its length.
type exactSeq struct {
	ids      []int
	mismatch int
	// np is the generator after the draw and the fix-ups' draws;
	// padded says the fix-ups drew.
	np     numpyrand.Legacy
	padded bool
}

// exactLens draws targets[k] ids over the whole vocabulary from np for
// every k in order and fixes each sequence to its length
// (gen_prompt_decode_to_target_len, whose padding draws from np too),
// returning the fixed sequences and the total mismatch, with np left as
// the serial loop leaves it.
//
// Sequence k's first draw follows the fix-up draws of sequence k-1, which
// are known only once k-1 is fixed; but fixing rarely pads (decoding
// random ids and encoding the text mostly gives more tokens, which are
// cut). So a window of sequences is drawn ahead in order as if none
// padded, each from a copy of the generator taken after the draws before
// it, and fixed in parallel; they are taken in order up to and including
// the first that padded (its padding drew from its own copy, which was
// right), and the rest are drawn again from that one's generator.
func exactLens(tok tokenizer.Tokenizer, np *numpyrand.Legacy, targets []int, workers int) ([][]int, int) {
	vocab := int64(tok.VocabSize())
	out := make([][]int, 0, len(targets))
	total := 0
	for len(out) < len(targets) {
		lo := len(out)
		window := make([]exactSeq, min(genWindow, len(targets)-lo))
		seqs := make([][]int, len(window))
		cur := *np
		for j := range window {
			seqs[j] = intsOf(cur.RandIntN(0, vocab, targets[lo+j]))
			window[j].np = cur
		}
		forEach(len(window), workers, func(j int) {
			w := &window[j]
			fx := &fixer{tok: tok, pad: func(n int) []int64 {
				w.padded = true
				return w.np.RandIntN(0, vocab, n)
			}}
			_, w.ids, w.mismatch = fx.toTargetLen(seqs[j], targets[lo+j], nil)
		})
		for j := range window {
			w := &window[j]
			out = append(out, w.ids)
			total += w.mismatch
			*np = w.np
			if w.padded {
				break
			}
		}
	}
	return out, total
}

// intsOf converts drawn ids to ints.
func intsOf(drawn []int64) []int {
	seq := make([]int, len(drawn))
	for i, id := range drawn {
		seq[i] = int(id)
	}
	return seq
}
