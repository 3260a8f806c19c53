package dataset

import (
	"fmt"
	"io"
	"strconv"

	"github.com/gobench/gobench/internal/numpyrand"
	"github.com/gobench/gobench/internal/tokenizer"
)

// RandomRerank builds vLLM's random-rerank dataset
// (vllm/benchmarks/datasets/datasets.py@11dfa3169
// RandomDatasetForReranking.sample): one random query and --num-prompts
// random documents, drawn as the random dataset draws its prompts, sent
// --random-batch-size documents per request as the list prompt [query,
// documents...] that vllm-rerank sends as query and documents.
//
// A native reranker (the default) reads query and document as one
// sequence joined by a separator token: the query takes half of
// --random-input-len less that token, each document the rest, and a
// request's length counts the query and the separator once per document.
// With --no-reranker the query and the documents are each
// --random-input-len long and the query counts once, and vLLM takes the
// query out of the counts: --num-prompts - 1 documents, batches of
// --random-batch-size - 1. The lengths are drawn with --random-range-ratio;
// --random-prefix-len and --random-output-len are not read (vLLM passes
// neither).
func RandomRerank(opts Options, tok tokenizer.Tokenizer, _ *Globals, warn io.Writer) ([]Sample, error) {
	if opts.Seed < 0 {
		return nil, fmt.Errorf("--seed %d: the random-rerank dataset needs a non-negative seed (NumPy's default_rng rejects negative seeds)", opts.Seed)
	}
	reranker := !opts.NoReranker
	sep := 0
	queryLenParam := opts.RandomInputLen
	if reranker {
		sep = 1
		queryLenParam = opts.RandomInputLen/2 - sep
	}
	rng := numpyrand.NewGenerator(uint64(opts.Seed))
	queryLens, _, queryOffsets, err := SamplingParams(rng, 1, opts.RandomRangeRatio, queryLenParam, 0, tok)
	if err != nil {
		return nil, err
	}
	queryLen := int(queryLens[0])
	n, size, docLenParam := opts.NumPrompts, opts.RandomBatchSize, opts.RandomInputLen-queryLen-sep
	if !reranker {
		// Validate checked both are at least 2 (vLLM asserts it).
		n, size, docLenParam = n-1, size-1, opts.RandomInputLen
	}
	docLens, _, docOffsets, err := SamplingParams(rng, n, opts.RandomRangeRatio, docLenParam, 0, tok)
	if err != nil {
		return nil, err
	}
	allowed := allowedTokens(tok)
	if len(allowed) == 0 {
		return nil, fmt.Errorf("tokenizer %s has no non-special token to sample from", tok.Name())
	}
	// The query has index 0 and document i index i+1 in vLLM's
	// generate_token_sequence; the query's fix-ups draw first.
	seqs := make([][]int, n+1)
	seqs[0] = innerSequence(allowed, int(queryOffsets[0]), 0, queryLen)
	for i := range n {
		seqs[i+1] = innerSequence(allowed, int(docOffsets[i]), i+1, int(docLens[i]))
	}
	first := firstRoundTrips(tok, seqs)
	fx := &fixer{tok: tok, pad: func(k int) []int64 { return rng.IntegersN(0, int64(tok.VocabSize()), k) }}
	query, queryIDs, total := fx.toTargetLen(seqs[0], queryLen, &first[0])
	docs := make([]string, n)
	docLensOut := make([]int, n)
	for i := range n {
		prompt, ids, mismatch := fx.toTargetLen(seqs[i+1], int(docLens[i]), &first[i+1])
		docs[i], docLensOut[i] = prompt, len(ids)
		total += mismatch
	}
	var samples []Sample
	for i := 0; i < n; i += size {
		end := min(i+size, n)
		s := Sample{Prompts: append([]string{query}, docs[i:end]...), RequestID: opts.RequestIDPrefix + strconv.Itoa(i/size)}
		s.PromptLen = len(queryIDs)
		if reranker {
			s.PromptLen = (len(queryIDs) + sep) * (end - i)
		}
		for _, l := range docLensOut[i:end] {
			s.PromptLen += l
		}
		samples = append(samples, s)
	}
	warnMismatch(warn, total)
	return samples, nil
}

// innerSequence is vLLM's generate_token_sequence without a prefix: length
// consecutive allowed tokens from offset+index, wrapping around.
func innerSequence(allowed []int, offset, index, length int) []int {
	seq := make([]int, length)
	for j := range seq {
		seq[j] = allowed[(offset+index+j)%len(allowed)]
	}
	return seq
}
