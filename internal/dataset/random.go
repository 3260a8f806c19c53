package dataset

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/numpyrand"
	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/tokenizer"
)

// maxRetry is vLLM's retry budget in gen_prompt_decode_to_target_len.
const maxRetry = 10

// RangeRatio is --random-range-ratio resolved into its input and output
// parts.
type RangeRatio struct{ Input, Output float64 }

// ParseRangeRatio parses --random-range-ratio as vLLM does: a float applies
// to both sides, else a JSON object with "input" and "output" keys.
func ParseRangeRatio(s string) (RangeRatio, error) {
	if f, err := pyfmt.ParseFloat(s); err == nil {
		return RangeRatio{f, f}, nil
	}
	bad := fmt.Errorf("--random-range-ratio: invalid value %q: expected a number or a JSON object like {\"input\": 0.3, \"output\": 0.5}", s)
	dec := json.NewDecoder(strings.NewReader(s))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return RangeRatio{}, bad
	}
	var keys []string
	vals := map[string]float64{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return RangeRatio{}, bad
		}
		k, _ := tok.(string)
		var v any
		if err := dec.Decode(&v); err != nil {
			return RangeRatio{}, bad
		}
		keys = append(keys, pyfmt.StrRepr(k))
		if f, ok := v.(float64); ok {
			vals[k] = f
		} else if k == "input" || k == "output" {
			return RangeRatio{}, fmt.Errorf("--random-range-ratio: %q must be a number, got %v", k, v)
		}
	}
	in, okIn := vals["input"]
	out, okOut := vals["output"]
	if !okIn || !okOut {
		return RangeRatio{}, fmt.Errorf("When range_ratio is a dict it must contain 'input' and 'output' keys, got: [%s]", strings.Join(keys, ", "))
	}
	return RangeRatio{in, out}, nil
}

// Validate checks both ratios are in [0, 1), with vLLM's messages
// (get_sampling_params).
func (rr RangeRatio) Validate() error {
	if !(rr.Input >= 0 && rr.Input < 1) {
		return errors.New("input_range_ratio must be in [0, 1).")
	}
	if !(rr.Output >= 0 && rr.Output < 1) {
		return errors.New("output_range_ratio must be in [0, 1).")
	}
	return nil
}

// SamplingParams draws the per-request input lengths, output lengths and
// offsets exactly as vLLM's get_sampling_params (datasets/utils.py) does:
// special tokens are subtracted from the input only, bounds are
// floor(x·(1−r)) and ceil(x·(1+r)) inclusive, the output floor is 1, and
// the three arrays are drawn in that order from rng.
func SamplingParams(rng *numpyrand.Generator, n int, rr RangeRatio, inputLen, outputLen int, tok tokenizer.Tokenizer) (in, out, offsets []int64, err error) {
	if err := rr.Validate(); err != nil {
		return nil, nil, nil, err
	}
	realIn := max(0, inputLen-tok.NumSpecialTokensToAdd())
	inLow := int64(math.Floor(float64(realIn) * (1 - rr.Input)))
	inHigh := int64(math.Ceil(float64(realIn) * (1 + rr.Input)))
	outLow := max(1, int64(math.Floor(float64(outputLen)*(1-rr.Output))))
	outHigh := max(1, int64(math.Ceil(float64(outputLen)*(1+rr.Output))))
	if inLow > inHigh {
		return nil, nil, nil, fmt.Errorf("Invalid input sampling interval: low=%d > high=%d", inLow, inHigh)
	}
	if outLow > outHigh {
		return nil, nil, nil, fmt.Errorf("Invalid output sampling interval: low=%d > high=%d", outLow, outHigh)
	}
	in = rng.IntegersN(inLow, inHigh+1, n)
	out = rng.IntegersN(outLow, outHigh+1, n)
	offsets = rng.IntegersN(0, int64(tok.VocabSize()), n)
	return in, out, offsets, nil
}

// Random builds vLLM's random dataset (RandomDataset.sample), on all
// cores.
func Random(opts Options, tok tokenizer.Tokenizer, _ *Globals, warn io.Writer) ([]Sample, error) {
	return random(opts, tok, warn, runtime.GOMAXPROCS(0))
}

// random is Random on up to workers goroutines; the samples do not depend
// on workers.
func random(opts Options, tok tokenizer.Tokenizer, warn io.Writer, workers int) ([]Sample, error) {
	rr := opts.RandomRangeRatio
	numSpecial := tok.NumSpecialTokensToAdd()
	realIn := max(0, opts.RandomInputLen-numSpecial)
	if minTotal := opts.RandomPrefixLen + int(math.Floor(float64(realIn)*(1-rr.Input))); minTotal < 1 {
		// A command-line mistake (exit status 2), which only the
		// tokenizer's special tokens reveal.
		return nil, exitcode.Usagef("--random-input-len is too small: with tokenizer special tokens %d and input range ratio %s, the minimum possible total input tokens (prefix + sampled) is %d. Increase --random-input-len and/or --random-prefix-len, or decrease the input range ratio so that prefix_len + floor(max(0, random_input_len - num_special)) * (1 - input_range_ratio) >= 1.",
			numSpecial, pyfmt.Float(rr.Input), minTotal)
	}
	if opts.Seed < 0 {
		return nil, fmt.Errorf("--seed %d: the random dataset needs a non-negative seed (NumPy's default_rng rejects negative seeds)", opts.Seed)
	}
	n := opts.NumPrompts
	rng := numpyrand.NewGenerator(uint64(opts.Seed))
	inLens, outLens, offsets, err := SamplingParams(rng, n, rr, opts.RandomInputLen, opts.RandomOutputLen, tok)
	if err != nil {
		return nil, err
	}
	allowed := allowedTokens(tok)
	if len(allowed) == 0 {
		return nil, fmt.Errorf("tokenizer %s has no non-special token to sample from", tok.Name())
	}
	fx := &fixer{tok: tok, pad: func(n int) []int64 { return rng.IntegersN(0, int64(tok.VocabSize()), n) }}

	var prefix []int
	if opts.RandomPrefixLen > 0 {
		idx := rng.IntegersN(0, int64(len(allowed)), opts.RandomPrefixLen)
		p := make([]int, len(idx))
		for i, j := range idx {
			p[i] = allowed[j]
		}
		var mismatch int
		_, prefix, mismatch = fx.toTargetLen(p, opts.RandomPrefixLen, nil)
		if mismatch != 0 {
			fmt.Fprintf(warn, "WARNING: Prefix tokenization produced %d %s tokens than expected after decoding and re-encoding. This is expected due to the imperfect nature of the sampling procedure\n", abs(mismatch), moreFewer(mismatch))
		}
	}

	// Every prompt is fixed on all cores, each worker holding the token
	// ids of the prompt it fixes alone (all 4,096 prompts of 1,024 tokens
	// at once were 100 MB of ids); only the fix-ups' draws from the
	// generator are serial (toTargetLens).
	samples := make([]Sample, n)
	var total atomic.Int64
	seq := func(i int) ([]int, int) {
		ids := append(slices.Clip(prefix), innerSequence(allowed, int(offsets[i]), i, int(inLens[i]))...)
		return ids, opts.RandomPrefixLen + int(inLens[i])
	}
	fx.toTargetLens(n, workers, seq, func(i int, r fixed) {
		total.Add(int64(r.mismatch))
		samples[i] = Sample{
			Prompt:            r.prompt,
			PromptLen:         len(r.ids),
			ExpectedOutputLen: int(outLens[i]),
			RequestID:         opts.RequestIDPrefix + strconv.Itoa(i),
		}
		if opts.PromptTokenIDs {
			samples[i].PromptTokenIDs = r.ids
		}
	})
	warnMismatch(warn, int(total.Load()))
	if opts.RandomBatchSize > 1 {
		samples = batch(samples, opts)
	}
	return samples, nil
}

// batch groups consecutive samples into requests of --random-batch-size
// prompts, as vLLM's RandomDataset.sample does for the embedding
// backends: the prompt is the list of their texts, its length their sum,
// no output length, and the id the batch's number.
func batch(samples []Sample, opts Options) []Sample {
	size := opts.RandomBatchSize
	out := make([]Sample, 0, (len(samples)+size-1)/size)
	for i := 0; i < len(samples); i += size {
		group := samples[i:min(i+size, len(samples))]
		b := Sample{Prompts: make([]string, len(group)), RequestID: opts.RequestIDPrefix + strconv.Itoa(i/size)}
		for j, s := range group {
			b.Prompts[j] = s.Prompt
			b.PromptLen += s.PromptLen
		}
		out = append(out, b)
	}
	return out
}

// warnMismatch logs vLLM's warning when the prompts' total length missed
// the target after the fix-up budget ran out.
func warnMismatch(warn io.Writer, total int) {
	if total != 0 {
		fmt.Fprintf(warn, "WARNING: Across all generated prompts, there were %d %s tokens than expected after decoding and re-encoding. This is expected due to the imperfect nature of the sampling procedure.\n", abs(total), moreFewer(total))
	}
}

// allowedTokens is [0, vocab_size) minus the special ids, ascending (vLLM
// builds it through a Python set of small ints, which iterates in order).
func allowedTokens(tok tokenizer.Tokenizer) []int {
	special := make(map[int]bool)
	for _, id := range tok.AllSpecialIDs() {
		special[id] = true
	}
	v := tok.VocabSize()
	out := make([]int, 0, v)
	for id := range v {
		if !special[id] {
			out = append(out, id)
		}
	}
	return out
}

// roundTrip is one decode then encode.
type roundTrip struct {
	prompt string
	ids    []int
}

// firstRoundTrips decodes and re-encodes every sequence, on all cores.
func firstRoundTrips(tok tokenizer.Tokenizer, seqs [][]int) []roundTrip {
	out := make([]roundTrip, len(seqs))
	workers := min(runtime.GOMAXPROCS(0), len(seqs))
	var wg sync.WaitGroup
	next := make(chan int, len(seqs))
	for i := range seqs {
		next <- i
	}
	close(next)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				p, ids := tokenizer.RoundTrip(tok, seqs[i])
				out[i] = roundTrip{p, ids}
			}
		}()
	}
	wg.Wait()
	return out
}

// fixer runs vLLM's gen_prompt_decode_to_target_len.
type fixer struct {
	tok tokenizer.Tokenizer
	// pad draws n ids in [0, vocab_size): rng.integers from the dataset's
	// own generator, or np.random.randint from the global one when vLLM
	// passes no rng.
	pad func(n int) []int64
}

// toTargetLen decodes seq, re-encodes it without special tokens, and pads
// (with ids drawn from the whole vocabulary, specials included, as vLLM
// does) or truncates until the length is target, at most maxRetry times.
// It returns the last decoded prompt, its re-encoding and, if the budget ran
// out, the remaining mismatch. first, when given, is the already computed
// first round trip of seq.
func (f *fixer) toTargetLen(seq []int, target int, first *roundTrip) (string, []int, int) {
	remain := maxRetry
	// Each round decodes the last one's ids, cut or padded: trip lets it
	// take the last round's ids for the words that did not change.
	var trip *tokenizer.Trip
	for {
		var prompt string
		if first != nil {
			prompt, seq, first = first.prompt, first.ids, nil
		} else {
			prompt, seq, trip = tokenizer.RoundTripNext(f.tok, trip, seq)
		}
		if remain <= 0 {
			return prompt, seq, len(seq) - target
		}
		switch {
		case len(seq) == target:
			return prompt, seq, 0
		case len(seq) < target:
			for _, id := range f.pad(target - len(seq)) {
				seq = append(seq, int(id))
			}
		default:
			seq = seq[:target]
		}
		remain--
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func moreFewer(x int) string {
	if x > 0 {
		return "more"
	}
	return "fewer"
}
