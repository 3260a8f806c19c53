package dataset

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/pyrandom"
	"github.com/gobench/gobench/internal/tokenizer"
)

// TimedTrace builds vLLM's timed_trace dataset (TimedTrace,
// vllm/benchmarks/datasets/datasets.py@11dfa3169): a JSONL trace, one
// request per line in file order (no shuffle, no oversampling), up to
// --num-prompts. The --timed-trace-label-* flags name each line's fields:
// the arrival time (times --timed-trace-sec-multiplier: Sample.Timestamp,
// which --self-timed sends the request at), the input and output lengths,
// and the prompt's block hash ids. Each hash id stands for
// --timed-trace-chunk-hash-size tokens, so requests that share hash ids
// share a prompt prefix as the traced requests shared their KV cache: the
// prompt is the ids' chunks, the last one cut to reach the input length (a
// prompt is shorter when the ids run out), sent as token ids
// (Sample.PromptTokenIDs; Prompt holds their decoded text).
//
// A hash id's chunk is random.Random(hash_id).choices(the vocabulary
// without special ids, sorted, k=chunk size), and a cut chunk is the start
// of the full one. The pinned vLLM seeds each (hash id, size) with Python's
// string hash, which changes from process to process unless PYTHONHASHSEED
// is set, so no run can reproduce another; the later upstream requires
// prompts independent of the hash seed and a cut chunk to be the start of
// the full one (tests/benchmarks/test_timed_trace_dataset.py@c99c8c47),
// which this meets. vLLM's dispatcher passes TimedTrace no seed, so it
// reseeds the global generators with 0 whatever --seed says, and the
// arrival gammas of --no-self-timed continue from there.
func TimedTrace(opts Options, tok tokenizer.Tokenizer, g *Globals, warn io.Writer) ([]Sample, error) {
	if opts.Backend != "" && opts.Backend != "openai" && opts.Backend != "vllm" {
		return nil, fmt.Errorf("--dataset-name timed_trace sends its prompts as token ids, which only the completions backends (openai, vllm) take, not --backend %s", opts.Backend)
	}
	g.Random.Seed(0)
	g.NumPy.Seed(0)
	fmt.Fprintf(warn, "timed-trace: chunk_size: %d, sec_multiplier: %s, label_ts: %q, label_input_length: %q, label_output_length: %q, label_hash_ids: %q\n",
		opts.TimedTraceChunkHashSize, strconv.FormatFloat(opts.TimedTraceSecMultiplier, 'g', -1, 64), opts.TimedTraceLabelTimestamp,
		opts.TimedTraceLabelInputLength, opts.TimedTraceLabelOutputLength, opts.TimedTraceLabelHashIDs)
	ex := newChunkExpander(tok, opts.TimedTraceChunkHashSize)
	var samples []Sample
	errEnough := errors.New("enough samples")
	name := "--dataset-path " + opts.Path
	err := readJSONLines(opts.Path, name, func(line int, b []byte) error {
		if len(samples) >= opts.NumPrompts {
			return errEnough
		}
		entry, err := pyjson.DecodeObject(b)
		if err != nil {
			return fmt.Errorf("%s:%d: not a JSON object: %w", name, line, err)
		}
		s, err := traceSample(entry, opts, ex)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		// vLLM numbers the requests by line (ind of enumerate(lines)).
		s.RequestID = opts.RequestIDPrefix + strconv.Itoa(line-1)
		s.Prompt = tok.Decode(s.PromptTokenIDs)
		samples = append(samples, s)
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return nil, err
	}
	return samples, nil
}

// traceSample reads one trace entry.
func traceSample(entry *pyjson.Object, opts Options, ex *chunkExpander) (Sample, error) {
	in, err := traceInt(entry, opts.TimedTraceLabelInputLength, "Input length", "--timed-trace-label-input-length")
	if err != nil {
		return Sample{}, err
	}
	out, err := traceInt(entry, opts.TimedTraceLabelOutputLength, "Output length", "--timed-trace-label-output-length")
	if err != nil {
		return Sample{}, err
	}
	var hashes []any
	if v, ok := entry.Get(opts.TimedTraceLabelHashIDs); ok {
		if hashes, ok = v.([]any); !ok {
			return Sample{}, fmt.Errorf("field '%s' must be a list of integers", opts.TimedTraceLabelHashIDs)
		}
	}
	ids, err := ex.expand(hashes, in)
	if err != nil {
		return Sample{}, fmt.Errorf("field '%s': %w", opts.TimedTraceLabelHashIDs, err)
	}
	v, ok := entry.Get(opts.TimedTraceLabelTimestamp)
	if !ok || v == nil {
		return Sample{}, missingField(entry, "Timestamp", opts.TimedTraceLabelTimestamp, "--timed-trace-label-timestamp")
	}
	ts, ok := pyjson.Number(v)
	if ts *= opts.TimedTraceSecMultiplier; !ok || math.IsNaN(ts) || math.IsInf(ts, 0) {
		return Sample{}, fmt.Errorf("field '%s' must be a finite number of (scaled) seconds, got %v", opts.TimedTraceLabelTimestamp, v)
	}
	return Sample{PromptTokenIDs: ids, PromptLen: len(ids), ExpectedOutputLen: out, Timestamp: &ts}, nil
}

// traceInt reads a length field: an integer from 0 to MaxTokens.
func traceInt(entry *pyjson.Object, label, what, flag string) (int, error) {
	v, ok := entry.Get(label)
	if !ok || v == nil {
		return 0, missingField(entry, what, label, flag)
	}
	n, ok := v.(int)
	if !ok || n < 0 || n > MaxTokens {
		return 0, fmt.Errorf("field '%s' must be an integer from 0 to %d, got %v", label, MaxTokens, v)
	}
	return n, nil
}

// missingField is vLLM's message for a trace entry without a field.
func missingField(entry *pyjson.Object, what, label, flag string) error {
	keys := make([]string, 0, entry.Len())
	for _, k := range entry.Keys() {
		keys = append(keys, "'"+k+"'")
	}
	return fmt.Errorf("%s field '%s' not found in trace entry. Available fields: [%s]. Use %s to specify the correct field name.",
		what, label, strings.Join(keys, ", "), flag)
}

// chunkExpander turns hash ids into token ids, each hash id's chunk drawn
// once and kept (requests that share an id share its tokens).
type chunkExpander struct {
	size   int
	vocab  []int // the vocabulary without special ids, ascending
	chunks map[int64][]int
}

// newChunkExpander prepares the vocabulary vLLM samples from: get_vocab()
// without all_special_ids, sorted. gobench's tokenizers list the base
// vocabulary (0 to VocabSize-1), so added tokens that are not special are
// not drawn.
func newChunkExpander(tok tokenizer.Tokenizer, size int) *chunkExpander {
	special := tok.AllSpecialIDs()
	vocab := make([]int, 0, tok.VocabSize())
	for id := range tok.VocabSize() {
		if !slices.Contains(special, id) {
			vocab = append(vocab, id)
		}
	}
	return &chunkExpander{size: size, vocab: vocab, chunks: map[int64][]int{}}
}

// expand is vLLM's _expand_prompt: chunk after chunk until target tokens,
// the last one cut.
func (e *chunkExpander) expand(hashes []any, target int) ([]int, error) {
	ids := []int{}
	for _, hv := range hashes {
		if target <= 0 {
			break
		}
		h, ok := hv.(int)
		if !ok {
			return nil, fmt.Errorf("hash ids must be integers, got %v", hv)
		}
		size := min(e.size, target)
		ids = append(ids, e.chunk(int64(h))[:size]...)
		target -= size
	}
	return ids, nil
}

// chunk is random.Random(h).choices(vocab, k=size): floor(random() * n)
// per token, as CPython draws choices without weights.
func (e *chunkExpander) chunk(h int64) []int {
	if c, ok := e.chunks[h]; ok {
		return c
	}
	rng := pyrandom.New(h)
	c := make([]int, e.size)
	n := float64(len(e.vocab))
	for i := range c {
		c[i] = e.vocab[int(math.Floor(rng.Random()*n))]
	}
	e.chunks[h] = c
	return c
}

// SelfTimed reports whether the run sends each request at its trace
// timestamp (Sample.Timestamp) instead of the --request-rate schedule:
// vLLM's --self-timed, on by default for timed_trace
// (vllm/benchmarks/serve.py@11dfa3169 main_async); the other datasets
// refuse the flags (checkSelfTimedElsewhere).
func SelfTimed(opts Options) bool {
	return opts.Name == "timed_trace" && !opts.NoSelfTimed
}

// checkSelfTimedElsewhere refuses --self-timed and --no-self-timed with
// another dataset than timed_trace, as vLLM raises.
func checkSelfTimedElsewhere(opts Options) error {
	if opts.SelfTimed || opts.NoSelfTimed {
		return errors.New("--self-timed/--no-self-timed is only supported with --dataset-name=timed_trace")
	}
	return nil
}

// checkTimedTrace checks the timed_trace flags: --self-timed and
// --no-self-timed exclude each other; a chunk holds at least one token;
// the multiplier is a positive finite number.
func checkTimedTrace(opts Options) error {
	switch {
	case opts.SelfTimed && opts.NoSelfTimed:
		return errors.New("argument --no-self-timed: not allowed with argument --self-timed")
	case opts.TimedTraceChunkHashSize < 1 || opts.TimedTraceChunkHashSize > MaxTokens:
		return fmt.Errorf("argument --timed-trace-chunk-hash-size: must be between 1 and %d tokens (got %d)", MaxTokens, opts.TimedTraceChunkHashSize)
	case !(opts.TimedTraceSecMultiplier > 0) || math.IsInf(opts.TimedTraceSecMultiplier, 0):
		return fmt.Errorf("argument --timed-trace-sec-multiplier: must be a positive number (got %v)", opts.TimedTraceSecMultiplier)
	}
	return nil
}
