package tokenizer

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// Split behaviours of HF's SplitDelimiterBehavior.
const (
	behaviorIsolated = iota
	behaviorRemoved
	behaviorMergedWithPrevious
	behaviorMergedWithNext
	behaviorContiguous
)

// preStep is one pre-tokenizer of the pipeline. Pre-tokenizers only ever cut
// text (the byte-level mapping is implicit, see bpeModel), so a step maps a
// piece to sub-pieces.
type preStep struct {
	// Split: fast is a hand-written matcher used when the behaviour is
	// Isolated; otherwise re is used with behavior and invert.
	fast     func(s string, out []string) []string
	re       *regexp2.Regexp
	behavior int
	invert   bool

	// ByteLevel: prefix a space to every piece that does not start with
	// one; then split with the GPT-2 pattern when useRegex.
	byteLevel      bool
	addPrefixSpace bool

	// text is a pre-tokenizer of the text kinds (Metaspace, BERT,
	// Whitespace); first says the piece starts the input.
	text func(s string, first bool, out []string) []string
}

// apply appends the sub-pieces of the non-empty piece s to out. Empty
// pieces are never emitted, as PreTokenizedString::split drops them. first
// says s starts at offset 0 of the input (Metaspace's "first" scheme).
func (p *preStep) apply(s string, first bool, out []string) []string {
	if p.text != nil {
		return p.text(s, first, out)
	}
	if p.byteLevel {
		if p.addPrefixSpace && s[0] != ' ' {
			s = " " + s
		}
		if p.fast == nil {
			return append(out, s)
		}
	}
	if p.fast != nil && p.behavior == behaviorIsolated {
		return p.fast(s, out)
	}
	return p.applyRegex(s, out)
}

// span is a piece of a string and whether the pattern matched it.
type span struct {
	start, end int
	match      bool
}

// applyRegex is HF's NormalizedString::split with a regex Pattern.
func (p *preStep) applyRegex(s string, out []string) []string {
	spans := regexSpans(p.re, s)
	if p.invert {
		for i := range spans {
			spans[i].match = !spans[i].match
		}
	}
	var kept []span
	switch p.behavior {
	case behaviorIsolated:
		kept = spans
	case behaviorRemoved:
		for _, sp := range spans {
			if !sp.match {
				kept = append(kept, sp)
			}
		}
	case behaviorContiguous:
		prev := false
		for _, sp := range spans {
			if sp.match == prev && len(kept) > 0 {
				kept[len(kept)-1].end = sp.end
			} else {
				kept = append(kept, span{start: sp.start, end: sp.end})
			}
			prev = sp.match
		}
	case behaviorMergedWithPrevious:
		prev := false
		for _, sp := range spans {
			if sp.match && !prev && len(kept) > 0 {
				kept[len(kept)-1].end = sp.end
			} else {
				kept = append(kept, span{start: sp.start, end: sp.end})
			}
			prev = sp.match
		}
	case behaviorMergedWithNext:
		prev := false
		for i := len(spans) - 1; i >= 0; i-- {
			sp := spans[i]
			if sp.match && !prev && len(kept) > 0 {
				kept[len(kept)-1].start = sp.start
			} else {
				kept = append(kept, span{start: sp.start, end: sp.end})
			}
			prev = sp.match
		}
		for i, j := 0, len(kept)-1; i < j; i, j = i+1, j-1 {
			kept[i], kept[j] = kept[j], kept[i]
		}
	}
	for _, sp := range kept {
		if sp.end > sp.start {
			out = append(out, s[sp.start:sp.end])
		}
	}
	return out
}

// regexSpans lists the matches of re in s and the gaps between them, in
// byte offsets, like HF's Pattern::find_matches for a regex.
func regexSpans(re *regexp2.Regexp, s string) []span {
	if s == "" {
		return []span{{0, 0, false}}
	}
	// regexp2 reports offsets in runes; map them back to bytes.
	offsets := make([]int, 0, len(s)+1)
	for i := range s {
		offsets = append(offsets, i)
	}
	offsets = append(offsets, len(s))
	var spans []span
	prev := 0
	m, err := re.FindStringMatch(s)
	for m != nil && err == nil {
		start, end := offsets[m.Index], offsets[m.Index+m.Length]
		if prev != start {
			spans = append(spans, span{prev, start, false})
		}
		spans = append(spans, span{start, end, true})
		prev = end
		m, err = re.FindNextMatch(m)
	}
	if prev != len(s) {
		spans = append(spans, span{prev, len(s), false})
	}
	return spans
}

// buildPreTokenizer flattens tokenizer.json's "pre_tokenizer" into steps.
// byteLevel reports a ByteLevel step, which must come last: it is what makes
// a BPE tokenizer byte-level (its pre-tokens are then raw bytes). Without
// one the pre-tokens are text, for SentencePiece-style BPE and WordPiece.
func buildPreTokenizer(raw json.RawMessage, field string) (steps []preStep, byteLevel bool, err error) {
	steps, err = collectPreSteps(raw, field)
	if err != nil {
		return nil, false, err
	}
	for i, st := range steps {
		if st.byteLevel && i != len(steps)-1 {
			// After ByteLevel the text is in byte-level runes, which later
			// steps would see; no real tokenizer does this.
			return nil, false, unsupportedf(field, "pre-tokenizer after ByteLevel")
		}
	}
	if len(steps) == 0 || !steps[len(steps)-1].byteLevel {
		return steps, false, nil
	}
	// A ByteLevel step that neither prefixes nor splits changes nothing.
	if last := steps[len(steps)-1]; !last.addPrefixSpace && last.fast == nil {
		steps = steps[:len(steps)-1]
	}
	return steps, true, nil
}

func collectPreSteps(raw json.RawMessage, field string) ([]preStep, error) {
	if isNull(raw) {
		return nil, nil
	}
	var t typedJSON
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fieldError(field, err)
	}
	switch t.Type {
	case "Sequence":
		var seq sequenceJSON
		if err := json.Unmarshal(raw, &seq); err != nil {
			return nil, fieldError(field, err)
		}
		var steps []preStep
		for i, r := range seq.PreTokenizers {
			sub, err := collectPreSteps(r, fmt.Sprintf("%s.pretokenizers[%d]", field, i))
			if err != nil {
				return nil, err
			}
			steps = append(steps, sub...)
		}
		return steps, nil
	case "ByteLevel":
		var bl byteLevelJSON
		if err := json.Unmarshal(raw, &bl); err != nil {
			return nil, fieldError(field, err)
		}
		st := preStep{byteLevel: true, addPrefixSpace: bl.AddPrefixSpace}
		if bl.UseRegex == nil || *bl.UseRegex {
			st.fast = splitGPT2
		}
		return []preStep{st}, nil
	case "Metaspace":
		var v struct {
			Replacement   string `json:"replacement"`
			PrependScheme string `json:"prepend_scheme"`
			AddPrefix     *bool  `json:"add_prefix_space"`
			Split         *bool  `json:"split"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fieldError(field, err)
		}
		scheme, err := prependScheme(v.PrependScheme, v.AddPrefix, field)
		if err != nil {
			return nil, err
		}
		r, size := utf8.DecodeRuneInString(v.Replacement)
		if size == 0 || size != len(v.Replacement) {
			return nil, fieldError(field+".replacement", fmt.Errorf("want one character, got %q", v.Replacement))
		}
		return []preStep{{text: metaspace(r, scheme, v.Split == nil || *v.Split)}}, nil
	case "BertPreTokenizer":
		return []preStep{{text: bertPreTokenize}}, nil
	case "Whitespace":
		return []preStep{{text: whitespacePre}}, nil
	case "WhitespaceSplit":
		return []preStep{{text: whitespaceSplit}}, nil
	case "Split":
		st, err := buildSplit(raw, field)
		if err != nil {
			return nil, err
		}
		return []preStep{st}, nil
	default:
		return nil, unsupportedf(field, "pre-tokenizer %s", t.Type)
	}
}

// buildSplit builds a Split step. A String pattern is matched literally.
func buildSplit(raw json.RawMessage, field string) (preStep, error) {
	var sp splitJSON
	if err := json.Unmarshal(raw, &sp); err != nil {
		return preStep{}, fieldError(field, err)
	}
	behaviors := map[string]int{
		"Isolated": behaviorIsolated, "Removed": behaviorRemoved,
		"MergedWithPrevious": behaviorMergedWithPrevious,
		"MergedWithNext":     behaviorMergedWithNext, "Contiguous": behaviorContiguous,
	}
	b, ok := behaviors[sp.Behavior]
	if !ok {
		return preStep{}, fieldError(field+".behavior", fmt.Errorf("unknown behavior %q", sp.Behavior))
	}
	var pattern string
	switch {
	case sp.Pattern.Regex != nil:
		pattern = *sp.Pattern.Regex
	case sp.Pattern.String != nil:
		pattern = regexp2.Escape(*sp.Pattern.String)
	default:
		return preStep{}, fieldError(field+".pattern", fmt.Errorf("want {\"Regex\": ...} or {\"String\": ...}"))
	}
	re, err := regexp2.Compile(pattern, regexp2.None)
	if err != nil {
		return preStep{}, fieldError(field+".pattern", err)
	}
	st := preStep{re: re, behavior: b, invert: sp.Invert}
	if sp.Pattern.Regex != nil {
		st.fast = fastSplitter(pattern)
	}
	return st, nil
}
