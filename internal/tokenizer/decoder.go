package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// decodeStep is one of HF's decoders (decode_chain): it rewrites the list of
// token strings. HF's Decoder::decode runs the steps in order and joins
// what is left.
type decodeStep func(tokens []string) []string

// decoderKind tells Decode how to turn ids into text.
type decoderKind int

const (
	// decodeByteLevel: the decoder is ByteLevel (alone or repeated), so
	// every id has fixed bytes and Decode concatenates them (fast path).
	decodeByteLevel decoderKind = iota
	// decodeChain: the general case, the decoder steps on token strings.
	decodeChain
	// decodeNone: no decoder; HF joins the tokens with spaces.
	decodeNone
)

// buildDecoder reads tokenizer.json's "decoder".
func buildDecoder(raw json.RawMessage, field string) (decoderKind, []decodeStep, error) {
	if isNull(raw) {
		return decodeNone, nil, nil
	}
	steps, allByteLevel, err := collectDecoders(raw, field)
	if err != nil {
		return 0, nil, err
	}
	if allByteLevel && len(steps) > 0 {
		return decodeByteLevel, steps, nil
	}
	return decodeChain, steps, nil
}

// collectDecoders flattens a decoder (Sequence) into steps and reports
// whether every step is ByteLevel.
func collectDecoders(raw json.RawMessage, field string) ([]decodeStep, bool, error) {
	var t typedJSON
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, false, fieldError(field, err)
	}
	var v struct {
		Pattern       patternJSON `json:"pattern"`
		Content       string      `json:"content"`
		Start, Stop   int
		Prefix        *string `json:"prefix"`
		Cleanup       *bool   `json:"cleanup"`
		Suffix        *string `json:"suffix"`
		Replacement   string  `json:"replacement"`
		PrependScheme string  `json:"prepend_scheme"`
		AddPrefix     *bool   `json:"add_prefix_space"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, false, fieldError(field, err)
	}
	switch t.Type {
	case "Sequence":
		var seq sequenceJSON
		if err := json.Unmarshal(raw, &seq); err != nil {
			return nil, false, fieldError(field, err)
		}
		var steps []decodeStep
		all := true
		for i, r := range seq.Decoders {
			sub, bl, err := collectDecoders(r, fmt.Sprintf("%s.decoders[%d]", field, i))
			if err != nil {
				return nil, false, err
			}
			steps = append(steps, sub...)
			all = all && bl
		}
		return steps, all, nil
	case "ByteLevel":
		return []decodeStep{decodeByteLevelStep(newByteLevel())}, true, nil
	case "Replace":
		step, err := decodeReplace(v.Pattern, v.Content, field)
		return []decodeStep{step}, false, err
	case "ByteFallback":
		return []decodeStep{decodeByteFallback}, false, nil
	case "Fuse":
		return []decodeStep{func(tokens []string) []string { return []string{strings.Join(tokens, "")} }}, false, nil
	case "Strip":
		c, size := utf8.DecodeRuneInString(v.Content)
		if size == 0 || size != len(v.Content) {
			return nil, false, fieldError(field+".content", fmt.Errorf("want one character, got %q", v.Content))
		}
		return []decodeStep{decodeStrip(c, v.Start, v.Stop)}, false, nil
	case "Metaspace":
		scheme, err := prependScheme(v.PrependScheme, v.AddPrefix, field)
		if err != nil {
			return nil, false, err
		}
		r, size := utf8.DecodeRuneInString(v.Replacement)
		if size == 0 || size != len(v.Replacement) {
			return nil, false, fieldError(field+".replacement", fmt.Errorf("want one character, got %q", v.Replacement))
		}
		return []decodeStep{decodeMetaspace(r, scheme != prependNever)}, false, nil
	case "WordPiece":
		prefix, cleanup := "##", true
		if v.Prefix != nil {
			prefix = *v.Prefix
		}
		if v.Cleanup != nil {
			cleanup = *v.Cleanup
		}
		return []decodeStep{decodeWordPiece(prefix, cleanup)}, false, nil
	case "BPEDecoder":
		suffix := "</w>"
		if v.Suffix != nil {
			suffix = *v.Suffix
		}
		return []decodeStep{decodeBPESuffix(suffix)}, false, nil
	default:
		return nil, false, unsupportedf(field, "decoder %q", t.Type)
	}
}

// decodeByteLevelStep is the ByteLevel decoder: every token's byte-level
// characters become their bytes (a token with other characters keeps its
// UTF-8 bytes), and the bytes become one string, lossily.
func decodeByteLevelStep(bl *byteLevel) decodeStep {
	return func(tokens []string) []string {
		var buf []byte
		for _, t := range tokens {
			buf = append(buf, bl.decode(t)...)
		}
		return []string{string(appendLossy(nil, buf))}
	}
}

// decodeReplace is the Replace decoder, applied to each token.
func decodeReplace(p patternJSON, content, field string) (decodeStep, error) {
	switch {
	case p.String != nil:
		old := *p.String
		return func(tokens []string) []string {
			if old == "" {
				return tokens
			}
			for i, t := range tokens {
				tokens[i] = strings.ReplaceAll(t, old, content)
			}
			return tokens
		}, nil
	case p.Regex != nil:
		re, err := regexp2.Compile(*p.Regex, regexp2.None)
		if err != nil {
			return nil, fieldError(field+".pattern.Regex", err)
		}
		return func(tokens []string) []string {
			for i, t := range tokens {
				if out, err := re.Replace(t, regexpLiteral(content), -1, -1); err == nil {
					tokens[i] = out
				}
			}
			return tokens
		}, nil
	default:
		return nil, fieldError(field+".pattern", fmt.Errorf("want {\"String\": ...} or {\"Regex\": ...}"))
	}
}

// decodeByteFallback is the ByteFallback decoder: runs of <0xXX> tokens
// become the string of their bytes, or one U+FFFD per byte when those bytes
// are not valid UTF-8 (not per maximal subpart: HF's rule here differs from
// its ByteLevel decoder).
func decodeByteFallback(tokens []string) []string {
	out := make([]string, 0, len(tokens))
	var run []byte
	flush := func() {
		if len(run) == 0 {
			return
		}
		if utf8.Valid(run) {
			out = append(out, string(run))
		} else {
			for range run {
				out = append(out, "\uFFFD")
			}
		}
		run = run[:0]
	}
	for _, t := range tokens {
		if b, ok := fallbackByte(t); ok {
			run = append(run, b)
			continue
		}
		flush()
		out = append(out, t)
	}
	flush()
	return out
}

// fallbackByte parses a "<0xXX>" token as HF does: six bytes, and
// u8::from_str_radix on the two in the middle (which accepts either case
// and a leading '+').
func fallbackByte(t string) (byte, bool) {
	if len(t) != 6 || !strings.HasPrefix(t, "<0x") || t[5] != '>' {
		return 0, false
	}
	digits := t[3:5]
	if digits[0] == '+' {
		digits = digits[1:]
	}
	v := 0
	for i := 0; i < len(digits); i++ {
		d := hexDigit(digits[i])
		if d < 0 {
			return 0, false
		}
		v = v*16 + d
	}
	return byte(v), true
}

func hexDigit(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// decodeStrip is the Strip decoder: up to start leading and stop trailing
// occurrences of c are removed from each token.
func decodeStrip(c rune, start, stop int) decodeStep {
	return func(tokens []string) []string {
		for i, t := range tokens {
			rs := []rune(t)
			lo := 0
			for lo < start && lo < len(rs) && rs[lo] == c {
				lo++
			}
			hi := len(rs)
			for k := 0; k < stop && hi > lo && rs[hi-1] == c; k++ {
				hi--
			}
			tokens[i] = string(rs[lo:hi])
		}
		return tokens
	}
}

// decodeMetaspace is the Metaspace decoder: the replacement character
// becomes a space, except in the first token, where HF drops every one of
// them (not only the leading one) unless the prepend scheme is "never".
func decodeMetaspace(r rune, dropFirst bool) decodeStep {
	rep := string(r)
	return func(tokens []string) []string {
		for i, t := range tokens {
			if i == 0 && dropFirst {
				tokens[i] = strings.ReplaceAll(t, rep, "")
			} else {
				tokens[i] = strings.ReplaceAll(t, rep, " ")
			}
		}
		return tokens
	}
}

// decodeWordPiece is the WordPiece decoder: tokens after the first lose the
// continuing-subword prefix or get a space before them; cleanup applies
// HF's own rules (which differ from transformers' by " do not").
func decodeWordPiece(prefix string, cleanup bool) decodeStep {
	return func(tokens []string) []string {
		for i, t := range tokens {
			if i != 0 {
				if rest, ok := strings.CutPrefix(t, prefix); ok {
					t = rest
				} else {
					t = " " + t
				}
			}
			if cleanup {
				t = wordPieceCleanup(t)
			}
			tokens[i] = t
		}
		return tokens
	}
}

// wordPieceCleanup is HF's decoders::wordpiece::cleanup.
func wordPieceCleanup(s string) string {
	rules := [...][2]string{
		{" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"}, {" n't", "n't"},
		{" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"},
	}
	for _, r := range rules {
		if strings.Contains(s, r[0]) {
			s = strings.ReplaceAll(s, r[0], r[1])
		}
	}
	return s
}

// decodeBPESuffix is the BPEDecoder: the end-of-word suffix becomes a space,
// or nothing in the last token.
func decodeBPESuffix(suffix string) decodeStep {
	return func(tokens []string) []string {
		for i, t := range tokens {
			rep := " "
			if i == len(tokens)-1 {
				rep = ""
			}
			if suffix != "" {
				tokens[i] = strings.ReplaceAll(t, suffix, rep)
			}
		}
		return tokens
	}
}
