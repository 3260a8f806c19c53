package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// appendLossy appends src to dst as valid UTF-8, replacing every maximal
// invalid subpart with one U+FFFD, exactly like Rust's
// String::from_utf8_lossy (which HF tokenizers' decoder uses) and Python's
// bytes.decode("utf-8", "replace"). Go's strings.ToValidUTF8 (one U+FFFD per
// run) and utf8.DecodeRune (one per byte) both differ from it.
func appendLossy[S ~string | ~[]byte](dst []byte, src S) []byte {
	for i := 0; i < len(src); {
		c := src[i]
		if c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		n, valid := maximalSubpart(src[i:])
		if valid {
			dst = append(dst, src[i:i+n]...)
		} else {
			// Invalid: the longest prefix that could still have become a
			// valid sequence (the "maximal subpart"), at least one byte.
			dst = append(dst, "\uFFFD"...)
		}
		i += n
	}
	return dst
}

// maximalSubpart returns how many bytes at the start of b (which starts
// with a byte that is not ASCII) form one maximal subpart of a sequence,
// following the table of well-formed byte sequences in the Unicode Standard
// (chapter 3.9, Table 3-7), and whether they are a whole, valid sequence.
func maximalSubpart[S ~string | ~[]byte](b S) (int, bool) {
	lead := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF) // range of the second byte
	switch {
	case lead >= 0xC2 && lead <= 0xDF:
		need = 1
	case lead == 0xE0:
		need, lo = 2, 0xA0
	case lead >= 0xE1 && lead <= 0xEC, lead == 0xEE, lead == 0xEF:
		need = 2
	case lead == 0xED:
		need, hi = 2, 0x9F
	case lead == 0xF0:
		need, lo = 3, 0x90
	case lead >= 0xF1 && lead <= 0xF3:
		need = 3
	case lead == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1, false // a continuation byte or a byte that never starts a sequence
	}
	n := 1
	for k := 0; k < need && n < len(b); k++ {
		c := b[n]
		if k == 0 {
			if c < lo || c > hi {
				break
			}
		} else if c < 0x80 || c > 0xBF {
			break
		}
		n++
	}
	return n, n == need+1
}

// toValidUTF8 returns s unchanged if it is valid UTF-8 and otherwise its lossy
// conversion. Encode applies it first because HF only ever sees valid
// strings: this is what a Python caller would get from bytes.decode(...,
// "replace").
func toValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return string(appendLossy(make([]byte, 0, len(s)+8), s))
}

// cleanUpTokenizationSpaces mirrors transformers'
// PreTrainedTokenizerBase.clean_up_tokenization, which decode applies when
// tokenizer_config.json sets clean_up_tokenization_spaces. The rules run as
// sequential replacements, like the chained str.replace calls they mirror,
// because a later rule can match text produced by an earlier one.
func cleanUpTokenizationSpaces(s string) string {
	rules := [...][2]string{
		{" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"},
		{" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"},
	}
	for _, r := range rules {
		if strings.Contains(s, r[0]) {
			s = strings.ReplaceAll(s, r[0], r[1])
		}
	}
	return s
}
