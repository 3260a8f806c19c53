package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"

	"github.com/dlclark/regexp2"
	"golang.org/x/text/unicode/norm"
)

// normalizer rewrites text before pre-tokenization, like HF's normalizers.
// HF applies it to each stretch of text between added tokens, and Encode does
// the same.
type normalizer func(string) string

// nfcOnly reports whether a normalizer field is NFC alone: then roundTrip
// follows the decoded ids' bytes through its changes (nfcMapped).
func nfcOnly(raw json.RawMessage) bool {
	var t typedJSON
	return !isNull(raw) && json.Unmarshal(raw, &t) == nil && t.Type == "NFC"
}

// buildNormalizer turns tokenizer.json's "normalizer" into a function; nil
// means no normalizer. field is the JSON path used in errors.
func buildNormalizer(raw json.RawMessage, field string) (normalizer, error) {
	if isNull(raw) {
		return nil, nil
	}
	var t typedJSON
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fieldError(field, err)
	}
	switch t.Type {
	case "NFC":
		// The table nfcString needs takes a few milliseconds to build:
		// start it now, beside the rest of the load.
		go nfcStableBits()
		return nfcString, nil
	case "NFD":
		return norm.NFD.String, nil
	case "NFKC":
		return norm.NFKC.String, nil
	case "NFKD":
		return norm.NFKD.String, nil
	case "Lowercase":
		return lowercase, nil
	case "Strip":
		return buildStrip(raw, field)
	case "Prepend":
		return buildPrepend(raw, field)
	case "Replace":
		return buildReplace(raw, field)
	case "BertNormalizer":
		return buildBertNormalizer(raw, field)
	case "Sequence":
		return buildNormalizerSequence(raw, field)
	default:
		return nil, unsupportedf(field, "normalizer %q", t.Type)
	}
}

// buildStrip builds HF's Strip normalizer: white space off either end.
func buildStrip(raw json.RawMessage, field string) (normalizer, error) {
	var v struct {
		Left  bool `json:"strip_left"`
		Right bool `json:"strip_right"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fieldError(field, err)
	}
	return func(s string) string {
		if v.Left {
			s = strings.TrimLeftFunc(s, unicode.IsSpace)
		}
		if v.Right {
			s = strings.TrimRightFunc(s, unicode.IsSpace)
		}
		return s
	}, nil
}

// buildPrepend builds HF's Prepend normalizer, which leaves "" alone.
func buildPrepend(raw json.RawMessage, field string) (normalizer, error) {
	var v struct {
		Prepend string `json:"prepend"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fieldError(field, err)
	}
	return func(s string) string {
		if s == "" {
			return s
		}
		return v.Prepend + s
	}, nil
}

// buildNormalizerSequence builds HF's Sequence of normalizers, applied in
// order.
func buildNormalizerSequence(raw json.RawMessage, field string) (normalizer, error) {
	var seq sequenceJSON
	if err := json.Unmarshal(raw, &seq); err != nil {
		return nil, fieldError(field, err)
	}
	var steps []normalizer
	for i, r := range seq.Normalizers {
		n, err := buildNormalizer(r, fmt.Sprintf("%s.normalizers[%d]", field, i))
		if err != nil {
			return nil, err
		}
		if n != nil {
			steps = append(steps, n)
		}
	}
	return func(s string) string {
		for _, n := range steps {
			s = n(s)
		}
		return s
	}, nil
}

// buildReplace builds HF's Replace normalizer. A String pattern is a literal;
// a Regex pattern is compiled with regexp2, whose syntax is close to the
// Oniguruma engine HF uses.
func buildReplace(raw json.RawMessage, field string) (normalizer, error) {
	var v struct {
		Pattern patternJSON `json:"pattern"`
		Content string      `json:"content"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fieldError(field, err)
	}
	switch {
	case v.Pattern.String != nil:
		old := *v.Pattern.String
		if old == "" {
			return func(s string) string { return s }, nil
		}
		return func(s string) string { return strings.ReplaceAll(s, old, v.Content) }, nil
	case v.Pattern.Regex != nil:
		re, err := regexp2.Compile(*v.Pattern.Regex, regexp2.None)
		if err != nil {
			return nil, fieldError(field+".pattern.Regex", err)
		}
		return func(s string) string {
			out, err := re.Replace(s, regexpLiteral(v.Content), -1, -1)
			if err != nil {
				return s // only a match timeout, which is not set
			}
			return out
		}, nil
	default:
		return nil, fieldError(field+".pattern", fmt.Errorf("want {\"String\": ...} or {\"Regex\": ...}"))
	}
}

// regexpLiteral escapes a replacement string so regexp2 inserts it verbatim
// ("$" starts a substitution there, but not in HF's Replace).
func regexpLiteral(s string) string { return strings.ReplaceAll(s, "$", "$$") }

// lowercase is HF's Lowercase normalizer: Rust's char::to_lowercase on every
// character. That is Unicode's simple lowercase mapping except for U+0130
// (capital I with dot), the one character whose full lowercase is two
// characters.
func lowercase(s string) string {
	if !strings.ContainsRune(s, 'İ') {
		return strings.ToLower(s)
	}
	var b strings.Builder
	for _, r := range s {
		if r == 'İ' {
			b.WriteString("i\u0307")
		} else {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}
