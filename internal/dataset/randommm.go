package dataset

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"sync"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/numpyrand"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/tokenizer"
)

// MMItem is one synthetic media item of random-mm: a bucket's height,
// width and frame count (1: an image, more: a video) and the pixels drawn
// for it, frame after frame, row after row, RGB.
type MMItem struct {
	Height, Width, Frames int
	Pixels                []byte
}

// Modality is "image" for one frame and "video" for more (vLLM's
// map_config_to_modality).
func (b MMBucket) Modality() string {
	if b.Frames == 1 {
		return "image"
	}
	return "video"
}

// mmPlan is random-mm's validated item parameters (vLLM's
// get_mm_item_sampling_params).
type mmPlan struct {
	min, max int
	limits   map[string]int
	buckets  []MMBucket
	probs    []float64
}

// RandomMM builds vLLM's random-mm dataset (RandomMultiModalDataset.sample,
// vllm/benchmarks/datasets/datasets.py@11dfa3169): the random dataset's
// text, then per request a count of media items and, item by item, a
// bucket drawn with rng.choice and its pixels drawn from the same
// generator, so that every later draw matches vLLM's. Images are sent as
// JPEG data URLs, videos as JPEG frame lists (EncodeMMItem).
func RandomMM(opts Options, tok tokenizer.Tokenizer, _ *Globals, warn io.Writer) ([]Sample, error) {
	if opts.Backend != "openai-chat" {
		return nil, exitcode.Usagef("Multi-modal content (images) is only supported on 'openai-chat' backend.")
	}
	if opts.Seed < 0 {
		return nil, fmt.Errorf("--seed %d: the random-mm dataset needs a non-negative seed (NumPy's default_rng rejects negative seeds)", opts.Seed)
	}
	return randomMM(opts, tok, numpyrand.NewGenerator(uint64(opts.Seed)), warn, EncodeMMItem, runtime.GOMAXPROCS(0))
}

// randomMM is RandomMM drawing from rng, with the item encoder given
// (tests record the pixels instead, and read rng afterwards). The draws
// are serial, in vLLM's order; the encoding, which costs far more (a
// 720×1280 JPEG takes 0.1 s), runs on up to workers goroutines, each
// holding one item's pixels.
func randomMM(opts Options, tok tokenizer.Tokenizer, rng *numpyrand.Generator, warn io.Writer,
	encode func(MMItem) *pyjson.Object, workers int) ([]Sample, error) {
	if opts.RandomBatchSize != 1 {
		return nil, exitcode.Usagef("--random-batch-size %d: batchsize > 1 is not supported for RandomMultiModalDataset.", opts.RandomBatchSize)
	}
	n := opts.NumPrompts
	inLens, outLens, offsets, err := SamplingParams(rng, n, opts.RandomRangeRatio, opts.RandomInputLen, opts.RandomOutputLen, tok)
	if err != nil {
		return nil, err
	}
	plan, err := newMMPlan(opts)
	if err != nil {
		return nil, err
	}
	text := newRandomText(tok, rng, opts.RandomPrefixLen, warn)
	if err := text.prepare(inLens, offsets); err != nil {
		return nil, err
	}
	enc := &encoder{encode: encode, sem: make(chan struct{}, max(1, workers))}
	samples := make([]Sample, n)
	cells := make([][]*mediaCell, n)
	total := 0
	for i := range n {
		prompt, ids, mismatch := text.prompt(i)
		total += mismatch
		err := plan.items(rng, func(it MMItem) { cells[i] = append(cells[i], enc.run(it)) })
		if err != nil {
			enc.wg.Wait()
			return nil, err
		}
		samples[i] = Sample{Prompt: prompt, PromptLen: len(ids), ExpectedOutputLen: int(outLens[i]), RequestID: opts.RequestIDPrefix + strconv.Itoa(i)}
	}
	enc.wg.Wait()
	for i := range samples {
		var media []*pyjson.Object
		for _, c := range cells[i] {
			media = append(media, c.part)
		}
		if opts.EnableMultimodalChat {
			samples[i].PromptParts = multimodalChat(samples[i].Prompt, media)
			samples[i].Prompt = ""
		} else {
			samples[i].MultiModal = media
		}
	}
	warnMismatch(warn, total)
	return samples, nil
}

// mediaCell receives one encoded item.
type mediaCell struct{ part *pyjson.Object }

// encoder encodes items on up to cap(sem) goroutines at a time, so that
// at most that many items' pixels are held.
type encoder struct {
	encode func(MMItem) *pyjson.Object
	sem    chan struct{}
	wg     sync.WaitGroup
}

// run encodes it into a new cell: at once with one worker, else on a
// goroutine once a worker is free.
func (e *encoder) run(it MMItem) *mediaCell {
	c := &mediaCell{}
	if cap(e.sem) == 1 {
		c.part = e.encode(it)
		return c
	}
	e.sem <- struct{}{}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		c.part = e.encode(it)
		<-e.sem
	}()
	return c
}

// multimodalChat is vLLM's apply_multimodal_chat_transformation: one user
// message whose content is the text part (keys "text" then "type", in
// that order) followed by the media parts.
func multimodalChat(prompt string, media []*pyjson.Object) []*pyjson.Object {
	text := pyjson.NewObject()
	text.Set("text", prompt)
	text.Set("type", "text")
	content := append([]*pyjson.Object{text}, media...)
	msg := pyjson.NewObject()
	msg.Set("role", "user")
	msg.Set("content", content)
	return []*pyjson.Object{msg}
}

// newMMPlan checks the --random-mm-* flags in vLLM's order and derives the
// item count bounds, the limits of the modalities present and the
// normalised bucket probabilities.
func newMMPlan(opts Options) (*mmPlan, error) {
	limits, err := parseMMLimits(opts.RandomMMLimitMMPerPrompt)
	if err != nil {
		return nil, err
	}
	buckets, err := parseMMBuckets(opts.RandomMMBucketConfig)
	if err != nil {
		return nil, err
	}
	r := opts.RandomMMNumMMItemsRangeRatio
	if !(r >= 0 && r <= 1) {
		return nil, exitcode.Usagef("--random-mm-num-mm-items-range-ratio %s: num_mm_items_range_ratio must be in [0, 1].", strconv.FormatFloat(r, 'g', -1, 64))
	}
	for _, b := range buckets {
		if _, ok := limits.value(b.Modality()); !ok {
			return nil, exitcode.Usagef("--random-mm-bucket-config: Modality %s is not in limit_mm_per_prompt: %s", b.Modality(), limits.keysRepr())
		}
	}
	p := &mmPlan{limits: map[string]int{}}
	for _, b := range buckets {
		if b.Prob < 0 {
			return nil, exitcode.Usagef("--random-mm-bucket-config: Bucket config values must be non-negative.")
		}
	}
	for _, b := range buckets {
		if b.Prob > 0 {
			p.buckets = append(p.buckets, b)
			p.probs = append(p.probs, b.Prob)
		}
	}
	if len(p.buckets) == 0 {
		return nil, exitcode.Usagef("--random-mm-bucket-config: Got invalid bucket config. Bucket config values must be non-zero.")
	}
	p.probs = normalize(p.probs)
	sum := 0
	for _, b := range p.buckets {
		v, _ := limits.value(b.Modality())
		if _, seen := p.limits[b.Modality()]; !seen {
			p.limits[b.Modality()] = v
			sum += v
		}
	}
	base := float64(opts.RandomMMBaseItemsPerRequest)
	p.max = min(sum, int(math.Ceil(base*(1+r))))
	p.min = max(0, int(math.Floor(base*(1-r))))
	if p.min > p.max {
		return nil, exitcode.Usagef("--random-mm-base-items-per-request: Min num mm items is greater than max mm items: %d > %d", p.min, p.max)
	}
	return p, nil
}

// normalize divides each probability by their sum (Python's sum: left to
// right from 0).
func normalize(p []float64) []float64 {
	total := 0.0
	for _, v := range p {
		total += v
	}
	out := make([]float64, len(p))
	for i, v := range p {
		out[i] = v / total
	}
	return out
}

// items draws one request's media as vLLM's get_mm_item_iterator does,
// consumed by a list comprehension: the count, then per item a bucket
// (rng.choice) and at once its pixels, before the next bucket. A bucket of
// a modality already at its limit is not used: that modality's buckets
// leave the draw and the rest are renormalised.
func (p *mmPlan) items(rng *numpyrand.Generator, emit func(MMItem)) error {
	k := int(rng.Integers(int64(p.min), int64(p.max)+1))
	if k == 0 {
		return nil
	}
	counts := map[string]int{}
	buckets, probs := p.buckets, p.probs
	for done := 0; done < k; {
		j, err := rng.ChoiceP(probs)
		if err != nil {
			return fmt.Errorf("random-mm bucket draw: %w", err)
		}
		b := buckets[j]
		mod := b.Modality()
		if counts[mod] < p.limits[mod] {
			counts[mod]++
			done++
			emit(MMItem{Height: b.Height, Width: b.Width, Frames: b.Frames,
				Pixels: rng.Uint8s(b.Frames * b.Height * b.Width * 3)})
			continue
		}
		var keepB []MMBucket
		var keepP []float64
		for i, o := range buckets {
			if o.Modality() != mod {
				keepB, keepP = append(keepB, o), append(keepP, probs[i])
			}
		}
		if len(keepB) == 0 {
			// vLLM logs "Exhausted all multimodal items of modality"; the
			// count never exceeds the limits' sum, so this is not reached.
			return nil
		}
		buckets, probs = keepB, normalize(keepP)
	}
	return nil
}

// randomText is the random dataset's text, request by request, for the
// datasets that draw something else from the same generator between two
// prompts (random-mm): the prefix is drawn when it is made, and each
// prompt's fix-up tokens when it is asked for, in request order.
type randomText struct {
	tok       tokenizer.Tokenizer
	fx        *fixer
	prefix    []int
	prefixLen int
	allowed   []int
	inLens    []int64
	seqs      [][]int
	first     []roundTrip
}

// newRandomText draws the shared prefix (RandomDataset.get_prefix).
func newRandomText(tok tokenizer.Tokenizer, rng *numpyrand.Generator, prefixLen int, warn io.Writer) *randomText {
	t := &randomText{tok: tok, prefixLen: prefixLen, allowed: allowedTokens(tok),
		fx: &fixer{tok: tok, pad: func(n int) []int64 { return rng.IntegersN(0, int64(tok.VocabSize()), n) }}}
	if prefixLen <= 0 || len(t.allowed) == 0 {
		return t
	}
	idx := rng.IntegersN(0, int64(len(t.allowed)), prefixLen)
	p := make([]int, len(idx))
	for i, j := range idx {
		p[i] = t.allowed[j]
	}
	var mismatch int
	_, t.prefix, mismatch = t.fx.toTargetLen(p, prefixLen, nil)
	if mismatch != 0 {
		fmt.Fprintf(warn, "WARNING: Prefix tokenization produced %d %s tokens than expected after decoding and re-encoding. This is expected due to the imperfect nature of the sampling procedure\n", abs(mismatch), moreFewer(mismatch))
	}
	return t
}

// prepare builds every request's token sequence and its first decode and
// re-encode, which draw nothing, on all cores.
func (t *randomText) prepare(inLens, offsets []int64) error {
	if len(t.allowed) == 0 {
		return fmt.Errorf("tokenizer %s has no non-special token to sample from", t.tok.Name())
	}
	t.inLens = inLens
	t.seqs = make([][]int, len(inLens))
	for i := range inLens {
		seq := make([]int, 0, len(t.prefix)+int(inLens[i]))
		seq = append(seq, t.prefix...)
		for j := range int(inLens[i]) {
			seq = append(seq, t.allowed[(int(offsets[i])+i+j)%len(t.allowed)])
		}
		t.seqs[i] = seq
	}
	t.first = firstRoundTrips(t.tok, t.seqs)
	return nil
}

// prompt is request i's prompt, its token ids and its length mismatch
// (RandomDataset.generate_token_sequence).
func (t *randomText) prompt(i int) (string, []int, int) {
	prompt, ids, mismatch := t.fx.toTargetLen(t.seqs[i], t.prefixLen+int(t.inLens[i]), &t.first[i])
	t.seqs[i], t.first[i] = nil, roundTrip{}
	return prompt, ids, mismatch
}
