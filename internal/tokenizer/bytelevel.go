package tokenizer

import "unicode/utf8"

// byteLevel is GPT-2's bytes_to_unicode table: byte b is written as the rune
// toRune[b] in a byte-level vocabulary. Printable bytes map to themselves
// and the other 68 to U+0100..U+0143, so every token is printable text.
type byteLevel struct {
	toRune [256]rune
	toByte [0x144]int16 // rune -> byte, or -1
}

func newByteLevel() *byteLevel {
	bl := &byteLevel{}
	for i := range bl.toByte {
		bl.toByte[i] = -1
	}
	n := 0
	for b := 0; b < 256; b++ {
		printable := (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
		if printable {
			bl.toRune[b] = rune(b)
		} else {
			bl.toRune[b] = rune(256 + n)
			n++
		}
		bl.toByte[bl.toRune[b]] = int16(b)
	}
	return bl
}

// rawBytes maps a byte-level token back to the bytes it stands for; ok is
// false if a rune of the token is outside the byte-level alphabet.
func (bl *byteLevel) rawBytes(tok string) ([]byte, bool) {
	return bl.appendRaw(make([]byte, 0, len(tok)), tok)
}

// appendRaw is rawBytes appending to out; on failure out is returned
// unchanged with ok false.
func (bl *byteLevel) appendRaw(out []byte, tok string) ([]byte, bool) {
	start := len(out)
	for i := 0; i < len(tok); {
		r, size := rune(tok[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(tok[i:])
		}
		if r >= rune(len(bl.toByte)) || bl.toByte[r] < 0 {
			return out[:start], false
		}
		out = append(out, byte(bl.toByte[r]))
		i += size
	}
	return out, true
}

// decode turns a token string into the bytes it stands for, as the
// ByteLevel decoder of HF tokenizers does: if every rune of the token is in
// the byte-level alphabet the token is mapped back rune by rune; otherwise
// (added tokens such as "<|im_start|>\n" with a raw newline) the token's own
// UTF-8 bytes are used unchanged.
func (bl *byteLevel) decode(tok string) []byte {
	if out, ok := bl.rawBytes(tok); ok {
		return out
	}
	return []byte(tok)
}
