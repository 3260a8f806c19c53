package tokenizer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// bertNormalizerJSON holds BertNormalizer's options; HF's defaults apply to
// missing fields.
type bertNormalizerJSON struct {
	CleanText          *bool `json:"clean_text"`
	HandleChineseChars *bool `json:"handle_chinese_chars"`
	StripAccents       *bool `json:"strip_accents"`
	Lowercase          *bool `json:"lowercase"`
}

// buildBertNormalizer is HF's BertNormalizer: clean_text (drop NUL, U+FFFD
// and control characters, turn whitespace into spaces), handle_chinese_chars
// (spaces around CJK ideographs), strip_accents (NFD, then drop nonspacing
// marks; by default as lowercase says) and lowercase, in that order. The
// character classes are those of the Rust crate HF uses (berttables.go),
// not Go's newer Unicode tables.
func buildBertNormalizer(raw json.RawMessage, field string) (normalizer, error) {
	var v bertNormalizerJSON
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fieldError(field, err)
	}
	flag := func(p *bool, def bool) bool {
		if p == nil {
			return def
		}
		return *p
	}
	clean := flag(v.CleanText, true)
	chinese := flag(v.HandleChineseChars, true)
	lower := flag(v.Lowercase, true)
	strip := flag(v.StripAccents, lower)
	return func(s string) string {
		if clean {
			s = bertCleanText(s)
		}
		if chinese {
			s = bertPadChinese(s)
		}
		if strip {
			s = bertStripAccents(s)
		}
		if lower {
			s = lowercase(s)
		}
		return s
	}, nil
}

// bertCleanText removes NUL, U+FFFD and "other" characters (except tab, LF
// and CR) and maps whitespace to ' '.
func bertCleanText(s string) string {
	clean := true
	for _, c := range s {
		if c == 0xFFFD || c != ' ' && unicode.IsSpace(c) || unicode.Is(bertOther, c) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, c := range s {
		switch {
		case c == 0 || c == 0xFFFD:
		case c == '\t' || c == '\n' || c == '\r':
			b.WriteByte(' ')
		case unicode.Is(bertOther, c):
		case unicode.IsSpace(c):
			b.WriteByte(' ')
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// isChineseChar is HF's is_chinese_char: the CJK ideograph blocks.
func isChineseChar(c rune) bool {
	return c >= 0x4E00 && c <= 0x9FFF || c >= 0x3400 && c <= 0x4DBF ||
		c >= 0x20000 && c <= 0x2A6DF || c >= 0x2A700 && c <= 0x2B73F ||
		c >= 0x2B740 && c <= 0x2B81F || c >= 0x2B920 && c <= 0x2CEAF ||
		c >= 0xF900 && c <= 0xFAFF || c >= 0x2F800 && c <= 0x2FA1F
}

// bertPadChinese puts a space on each side of every CJK ideograph.
func bertPadChinese(s string) string {
	n := 0
	for _, c := range s {
		if isChineseChar(c) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	for _, c := range s {
		if isChineseChar(c) {
			b.WriteByte(' ')
			b.WriteRune(c)
			b.WriteByte(' ')
		} else {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// bertStripAccents decomposes s (NFD) and drops nonspacing marks.
func bertStripAccents(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	d := norm.NFD.String(s)
	var b strings.Builder
	b.Grow(len(d))
	for _, c := range d {
		if !unicode.Is(bertNonspacingMark, c) {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// isBertPunct is BertPreTokenizer's is_bert_punc: ASCII punctuation or the
// crate's punctuation categories.
func isBertPunct(c rune) bool {
	if c < 0x80 {
		return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
	}
	return unicode.Is(bertPunct, c)
}

// applyBertConfig mirrors BertTokenizerFast.__init__ in transformers, which
// AutoTokenizer runs for tokenizer_class "BertTokenizer(Fast)": when
// do_lower_case (default true), strip_accents (default None) or
// tokenize_chinese_chars (default true) of tokenizer_config.json disagree
// with the BertNormalizer of tokenizer.json, the normalizer is rebuilt with
// the config's values. A config without do_lower_case therefore lowercases
// even when tokenizer.json says otherwise.
func (t *hfTokenizer) applyBertConfig(cfg *configJSON, vocab *vocabulary) error {
	if cfg.Class != "BertTokenizer" && cfg.Class != "BertTokenizerFast" || isNull(t.normalizerJSON) {
		return nil
	}
	var state map[string]json.RawMessage
	if err := json.Unmarshal(t.normalizerJSON, &state); err != nil || string(state["type"]) != `"BertNormalizer"` {
		return nil
	}
	lower, chinese := true, true
	if cfg.DoLowerCase != nil {
		lower = *cfg.DoLowerCase
	}
	if cfg.TokenizeChineseChars != nil {
		chinese = *cfg.TokenizeChineseChars
	}
	strip := json.RawMessage("null")
	if len(cfg.StripAccents) > 0 {
		strip = cfg.StripAccents
	}
	// state.get(key, config value) != config value, as transformers compares.
	differs := func(key string, want json.RawMessage) bool {
		got, ok := state[key]
		return ok && string(compactJSON(got)) != string(compactJSON(want))
	}
	lowerJSON, chineseJSON := json.RawMessage(fmt.Sprint(lower)), json.RawMessage(fmt.Sprint(chinese))
	if !differs("lowercase", lowerJSON) && !differs("strip_accents", strip) && !differs("handle_chinese_chars", chineseJSON) {
		return nil
	}
	state["lowercase"], state["strip_accents"], state["handle_chinese_chars"] = lowerJSON, strip, chineseJSON
	raw, err := json.Marshal(state)
	if err != nil {
		return err
	}
	n, err := buildBertNormalizer(raw, "normalizer")
	if err != nil {
		return err
	}
	t.normalize = n
	// Normalized added tokens are matched in normalized text: rebuild
	// their matchers (the tokens and their ids, so the decode table, stay
	// the same).
	_, err = t.addTokens(t.addedJSON, vocab)
	return err
}

// compactJSON drops insignificant whitespace so values compare by content.
func compactJSON(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}
