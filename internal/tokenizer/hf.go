package tokenizer

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// hfTokenizer is a tokenizer read from a tokenizer.json. It is immutable
// after loading except for the BPE word cache, which is safe for concurrent
// use, so Encode and Decode may be called from any goroutine.
type hfTokenizer struct {
	name      string
	kind      Kind
	model     wordModel
	vocabSize int        // len(model.vocab): HF's vocab_size
	normalize normalizer // nil: none
	nfc       bool       // normalize is nfcString
	pre       []preStep
	post      []template

	added     map[string]*addedToken // by content
	rawMatch  *matcher               // added tokens matched before normalization
	normMatch *matcher               // added tokens matched in normalized text

	// decoder says how Decode works. With decodeByteLevel, the bytes of id
	// are decodeBytes[decodeOff[id]:decodeOff[id+1]] (none for ids that do
	// not exist): two flat arrays, of which Decode reads 4 bytes per id
	// rather than a slice header of 24, a sixth of the cache misses on
	// random ids. Otherwise tokens holds each id's token string (known
	// says which ids exist) for decodeSteps.
	decoder     decoderKind
	decodeSteps []decodeStep
	decodeOff   []uint32
	decodeBytes []byte
	tokens      []string
	known       []bool

	cleanup    bool  // clean_up_tokenization_spaces
	specialIDs []int // all_special_ids, ascending

	chat *chatTemplate // nil: the tokenizer has no chat template

	// rt holds roundTrip's tables (nil: roundTrip decodes and encodes).
	rt *roundTripTables

	// What transformers may rebuild from tokenizer_config.json.
	normalizerJSON json.RawMessage
	addedJSON      []addedTokenJSON
}

// wordModel turns one pre-token into ids: BPE (byte-level or
// SentencePiece-style) or WordPiece.
type wordModel interface {
	tokenize(word string, out []int) []int
}

var _ Tokenizer = (*hfTokenizer)(nil)

// Name returns the path the tokenizer was loaded from, or BuiltinName.
func (t *hfTokenizer) Name() string { return t.name }

// VocabSize is the number of entries of model.vocab.
func (t *hfTokenizer) VocabSize() int { return t.vocabSize }

// AllSpecialIDs returns a copy of the special token ids, ascending.
func (t *hfTokenizer) AllSpecialIDs() []int { return slices.Clone(t.specialIDs) }

// NumSpecialTokensToAdd is the number of ids the post-processor adds.
func (t *hfTokenizer) NumSpecialTokensToAdd() int { return numAdded(t.post) }

// Encode follows HF's Tokenizer::encode: added tokens are split out of the
// raw text, the rest is normalized piece by piece, normalized added tokens
// are split out of that, then each remaining piece is pre-tokenized and run
// through BPE; finally the post-processor adds its tokens if asked. Invalid
// UTF-8 in text is first replaced as Python's errors="replace" would.
func (t *hfTokenizer) Encode(text string, addSpecialTokens bool) []int {
	return t.encode(toValidUTF8(text), addSpecialTokens, nil)
}

// encode is Encode of valid UTF-8 text; h, when given, is what decoding
// text recorded (see roundTrip).
func (t *hfTokenizer) encode(text string, addSpecialTokens bool, h *decodeHints) []int {
	out := make([]int, 0, len(text)/3+2)
	var segBuf, subBuf [8]segment
	var pieces []string
	var trip *tripRecorder
	if h != nil {
		trip = h.trip
	}
	for i, seg := range t.rawMatch.split(text, segBuf[:0]) {
		if seg.tok != nil {
			out = append(out, seg.tok.id)
			trip.skip()
			continue
		}
		s, hs := seg.text, h
		switch {
		case h != nil && t.nfc:
			var edits [4]textEdit
			e := edits[:0]
			ns := nfcMapped(s, &e)
			if len(e) > 0 {
				hs = h.edited(s, ns, e)
			}
			s = ns
		case t.normalize != nil:
			s = t.normalize(s)
		}
		for j, sub := range t.normMatch.split(s, subBuf[:0]) {
			if sub.tok != nil {
				out = append(out, sub.tok.id)
				trip.skip()
				continue
			}
			trip.segment(sub.text)
			// Only the first piece of the input starts at offset 0, which
			// Metaspace's prepend_scheme "first" asks about.
			first := i == 0 && j == 0
			pieces = t.preTokenize(sub.text, first, pieces[:0])
			for _, p := range pieces {
				n := len(out)
				if hs != nil {
					out = t.tokenizeHinted(p, out, hs)
				} else {
					out = t.model.tokenize(p, out)
				}
				trip.record(p, n, len(out))
			}
		}
	}
	if addSpecialTokens {
		out = wrap(t.post, out)
	}
	return out
}

// preTokenize runs the pre-tokenizer steps on a non-empty piece of text;
// first says the piece starts the input. After a first step, the first
// of its pieces is taken to start where the piece did.
func (t *hfTokenizer) preTokenize(s string, first bool, out []string) []string {
	if len(t.pre) == 0 {
		return append(out, s)
	}
	if len(t.pre) == 1 {
		return t.pre[0].apply(s, first, out)
	}
	cur := []string{s}
	for _, st := range t.pre {
		var next []string
		for k, p := range cur {
			next = st.apply(p, first && k == 0, next)
		}
		cur = next
	}
	return append(out, cur...)
}

// Decode is transformers' decode(ids) with skip_special_tokens=False: the
// bytes of all tokens (special ones included) are joined, converted to text
// with one U+FFFD per maximal invalid subpart, and cleaned up if
// clean_up_tokenization_spaces is set. Ids that are negative or name no
// token are skipped, as HF skips them.
func (t *hfTokenizer) Decode(ids []int) string {
	if t.decoder != decodeByteLevel {
		return t.decodeTokens(ids)
	}
	// The bytes go straight into the string's memory, which is then
	// returned as it is when they are valid UTF-8 (as they mostly are).
	off, arena := t.decodeOff, t.decodeBytes
	n := 0
	for _, id := range ids {
		if uint(id) < uint(len(off)-1) {
			n += int(off[id+1] - off[id])
		}
	}
	var b strings.Builder
	b.Grow(n)
	for _, id := range ids {
		if uint(id) < uint(len(off)-1) {
			b.Write(arena[off[id]:off[id+1]])
		}
	}
	s := b.String()
	if !utf8.ValidString(s) {
		s = string(appendLossy(make([]byte, 0, len(s)+16), s))
	}
	if t.cleanup {
		s = cleanUpTokenizationSpaces(s)
	}
	return s
}

// decodeTokens is HF's decode through the decoder's steps on token
// strings (or, without a decoder, the tokens joined by spaces), followed by
// transformers' clean-up.
func (t *hfTokenizer) decodeTokens(ids []int) string {
	toks := make([]string, 0, len(ids))
	for _, id := range ids {
		if id >= 0 && id < len(t.tokens) && t.known[id] {
			toks = append(toks, t.tokens[id])
		}
	}
	var s string
	if t.decoder == decodeNone {
		s = strings.Join(toks, " ")
	} else {
		for _, step := range t.decodeSteps {
			toks = step(toks)
		}
		s = strings.Join(toks, "")
	}
	if t.cleanup {
		s = cleanUpTokenizationSpaces(s)
	}
	return s
}

// tokenID is HF's token_to_id: added tokens first, then the model's
// vocabulary (by its byte-level spelling). It is only needed while loading.
func (t *hfTokenizer) tokenID(content string, vocab *vocabulary) (int, bool) {
	if tok, ok := t.added[content]; ok {
		return tok.id, true
	}
	id, ok := vocab.get(content)
	return id, ok
}

// applyConfig takes clean_up_tokenization_spaces and the special tokens
// from tokenizer_config.json (and special_tokens_map.json). Without any
// config file, the added tokens marked special are the special tokens.
func (t *hfTokenizer) applyConfig(cfg *configJSON, haveConfig bool, vocab *vocabulary) error {
	if cfg.CleanUp != nil {
		t.cleanup = *cfg.CleanUp
	}
	var ids []int
	if !haveConfig {
		for _, tok := range t.added {
			if tok.special {
				ids = append(ids, tok.id)
			}
		}
	} else {
		var texts []string
		fields := []struct {
			name string
			raw  json.RawMessage
		}{
			{"bos_token", cfg.BOS}, {"eos_token", cfg.EOS}, {"unk_token", cfg.UNK},
			{"sep_token", cfg.SEP}, {"pad_token", cfg.PAD}, {"cls_token", cfg.CLS},
			{"mask_token", cfg.Mask},
		}
		for _, f := range fields {
			s, ok, err := specialTokenText(f.raw)
			if err != nil {
				return fieldError(f.name, err)
			}
			if ok {
				texts = append(texts, s)
			}
		}
		if len(cfg.Additional) > 0 && string(cfg.Additional) != "null" {
			var list []json.RawMessage
			if err := json.Unmarshal(cfg.Additional, &list); err != nil {
				return fieldError("additional_special_tokens", err)
			}
			for i, raw := range list {
				s, ok, err := specialTokenText(raw)
				if err != nil {
					return fieldError(fmt.Sprintf("additional_special_tokens[%d]", i), err)
				}
				if ok {
					texts = append(texts, s)
				}
			}
		}
		// convert_tokens_to_ids maps an unknown token to the unk id, if any.
		unk, hasUnk := -1, false
		if s, ok, _ := specialTokenText(cfg.UNK); ok {
			unk, hasUnk = t.tokenID(s, vocab)
		}
		for _, s := range texts {
			if id, ok := t.tokenID(s, vocab); ok {
				ids = append(ids, id)
			} else if hasUnk {
				ids = append(ids, unk)
			}
		}
	}
	slices.Sort(ids)
	t.specialIDs = slices.Compact(ids)
	return t.applyLlamaTemplate(cfg, vocab)
}

// applyLlamaTemplate mirrors LlamaTokenizerFast.update_post_processor in
// transformers, which AutoTokenizer runs for tokenizer_class
// "LlamaTokenizer(Fast)" (DeepSeek-V3/R1 among the byte-level models): it
// replaces the post-processor of tokenizer.json by "[BOS] $A [EOS]", with
// BOS unless add_bos_token is false and EOS only if add_eos_token is true.
// Other classes keep the post-processor of tokenizer.json.
func (t *hfTokenizer) applyLlamaTemplate(cfg *configJSON, vocab *vocabulary) error {
	if cfg.Class != "LlamaTokenizerFast" && cfg.Class != "LlamaTokenizer" {
		return nil
	}
	addBOS := cfg.AddBOS == nil || *cfg.AddBOS
	addEOS := cfg.AddEOS != nil && *cfg.AddEOS
	var tmpl template
	for _, side := range []struct {
		add   bool
		field string
		raw   json.RawMessage
		dst   *[]int
	}{{addBOS, "bos_token", cfg.BOS, &tmpl.before}, {addEOS, "eos_token", cfg.EOS, &tmpl.after}} {
		if !side.add {
			continue
		}
		s, ok, _ := specialTokenText(side.raw)
		if !ok {
			return fieldError(side.field, fmt.Errorf("tokenizer_class %s adds it but it is not set", cfg.Class))
		}
		id, ok := t.tokenID(s, vocab)
		if !ok {
			return fieldError(side.field, fmt.Errorf("%q is not a token", s))
		}
		*side.dst = []int{id}
	}
	t.post = []template{tmpl}
	return nil
}
