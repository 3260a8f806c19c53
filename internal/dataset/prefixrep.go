package dataset

import (
	"fmt"
	"io"
	"math"

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
	numPrefixes := opts.PrefixRepetitionNumPrefixes
	perPrefix := opts.NumPrompts / numPrefixes // Validate checked numPrefixes >= 1
	if perPrefix == 0 {
		return nil, fmt.Errorf("num_requests (%d) must be greater than or equal to num_prefixes (%d)", opts.NumPrompts, numPrefixes)
	}
	if opts.Seed < 0 || opts.Seed > math.MaxUint32 {
		return nil, fmt.Errorf("--seed %d: the prefix_repetition dataset needs a seed in [0, 2**32) (np.random.seed rejects others)", opts.Seed)
	}
	g.Random.Seed(opts.Seed)
	np := g.NumPy
	np.Seed(uint32(opts.Seed))
	vocab := int64(tok.VocabSize())
	fx := &fixer{tok: tok, pad: func(n int) []int64 { return np.RandIntN(0, vocab, n) }}
	exact := func(target int) ([]int, int) {
		drawn := np.RandIntN(0, vocab, target)
		seq := make([]int, target)
		for i, id := range drawn {
			seq[i] = int(id)
		}
		_, ids, mismatch := fx.toTargetLen(seq, target, nil)
		return ids, mismatch
	}

	samples := make([]Sample, 0, numPrefixes*perPrefix)
	total := 0
	for range numPrefixes {
		prefix, mismatch := exact(opts.PrefixRepetitionPrefixLen)
		total += mismatch
		for range perPrefix {
			suffix, mismatch := exact(opts.PrefixRepetitionSuffixLen)
			total += mismatch
			combined := append(append(make([]int, 0, len(prefix)+len(suffix)), prefix...), suffix...)
			samples = append(samples, Sample{
				Prompt:            tok.Decode(combined),
				PromptLen:         len(combined),
				ExpectedOutputLen: opts.PrefixRepetitionOutputLen,
			})
		}
	}
	warnMismatch(warn, total)
	if !opts.DisableShuffle {
		g.Random.Shuffle(len(samples), func(i, j int) { samples[i], samples[j] = samples[j], samples[i] })
	}
	return samples, nil
}
