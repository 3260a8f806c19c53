package tokenizer

import (
	"fmt"
	"unicode/utf8"
)

// charSymbols is what SentencePiece-style BPE (Llama-2, Mistral, Gemma)
// needs beyond the merge table: there the pre-token is text whose
// characters, not bytes, are the start symbols, and a character missing
// from the vocabulary becomes its UTF-8 bytes as <0xXX> tokens
// (byte_fallback) or the unk token.
type charSymbols struct {
	vocab        map[string]int32
	prefix       string // continuing_subword_prefix
	suffix       string // end_of_word_suffix
	byteFallback bool
	// fallback[b] is the id of the token "<0xBB>", or -1.
	fallback [256]int32
	// ascii[c] is the id of the one-character token c, or -1: most
	// characters are ASCII, and an array beats a map lookup.
	ascii [128]int32
}

// newCharSymbols indexes the vocabulary for char-level BPE.
func newCharSymbols(m *modelJSON, vocab *vocabulary) *charSymbols {
	c := &charSymbols{vocab: make(map[string]int32, vocab.len()), byteFallback: m.ByteFallback}
	for tok, id := range vocab.all() {
		c.vocab[tok] = int32(id)
	}
	if m.ContinuingSubwordPrefix != nil {
		c.prefix = *m.ContinuingSubwordPrefix
	}
	if m.EndOfWordSuffix != nil {
		c.suffix = *m.EndOfWordSuffix
	}
	for b := range c.ascii {
		c.ascii[b] = -1
		if id, ok := vocab.get(string(rune(b))); ok {
			c.ascii[b] = int32(id)
		}
	}
	for b := range c.fallback {
		c.fallback[b] = -1
		// HF spells them with format!("<{b:#04X}>"): "<0x0A>".
		if id, ok := vocab.get(fmt.Sprintf("<0x%02X>", b)); ok {
			c.fallback[b] = int32(id)
		}
	}
	return c
}

// mergeChars is HF's BPE::merge_word for a text pre-token: each character
// (with the continuing-subword prefix unless first and the end-of-word
// suffix if last) is looked up in the vocabulary; a missing one becomes its
// byte_fallback tokens when all of them exist, else unk (fused with a
// preceding unk when fuse_unk), else nothing. Then the merges run.
func (m *bpeModel) mergeChars(word string, out []int32) []int32 {
	c := m.chars
	var symBuf [64]symbol
	syms := symBuf[:0]
	unk, unkSize := int32(-1), int32(0)
	var scratch []byte
	plain := c.prefix == "" && c.suffix == ""
	for i := 0; i < len(word); {
		if b := word[i]; plain && b < utf8.RuneSelf && c.ascii[b] >= 0 {
			if unk >= 0 {
				syms = addSymbol(syms, unk, unkSize)
				unk = -1
			}
			syms = addSymbol(syms, c.ascii[b], 1)
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(word[i:])
		ch := word[i : i+size]
		first, last := i == 0, i+size == len(word)
		i += size
		key := ch
		if (!first && c.prefix != "") || (last && c.suffix != "") {
			scratch = scratch[:0]
			if !first {
				scratch = append(scratch, c.prefix...)
			}
			scratch = append(scratch, ch...)
			if last {
				scratch = append(scratch, c.suffix...)
			}
			key = string(scratch)
		}
		if id, ok := c.vocab[key]; ok {
			if unk >= 0 {
				syms = addSymbol(syms, unk, unkSize)
				unk = -1
			}
			syms = addSymbol(syms, id, int32(size))
			continue
		}
		if c.byteFallback && c.allBytes(key) {
			// As in HF, a pending unk is not flushed first.
			for k := 0; k < len(key); k++ {
				syms = addSymbol(syms, c.fallback[key[k]], 1)
			}
			continue
		}
		if m.unkID < 0 {
			continue
		}
		switch {
		case unk >= 0 && m.fuseUnk:
			unkSize += int32(size)
		case unk >= 0:
			syms = addSymbol(syms, unk, unkSize)
			unk, unkSize = m.unkID, int32(size)
		default:
			unk, unkSize = m.unkID, int32(size)
		}
	}
	if unk >= 0 {
		syms = addSymbol(syms, unk, unkSize)
	}
	return m.mergeSymbols(syms, out)
}

// allBytes reports whether every byte of s has a <0xXX> token.
func (c *charSymbols) allBytes(s string) bool {
	for k := 0; k < len(s); k++ {
		if c.fallback[s[k]] < 0 {
			return false
		}
	}
	return true
}
