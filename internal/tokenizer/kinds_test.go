package tokenizer

import (
	"encoding/binary"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzTextKinds runs the SentencePiece-style BPE and WordPiece tokenizers
// of testdata/unit on arbitrary text and ids: Encode and Decode never panic,
// ids stay in range, decoded text is valid UTF-8, and the pieces of the text
// pre-tokenizers are never empty and cover only the input's characters.
func FuzzTextKinds(f *testing.F) {
	for _, s := range []string{"", "hello world", "  a  b ", "▁▁x", "你好!", "don't", "<0x0A>", "<s>x</s>", "\xff", "é\u0301"} {
		f.Add(s, []byte{1, 0, 0, 0, 40, 0, 0, 0, 255, 255, 255, 255})
	}
	var toks []Tokenizer
	for _, name := range []string{"metaspace_bpe", "metaspace_split", "wordpiece", "bpe_suffix"} {
		tok, err := Load(filepath.Join("testdata", "unit", name+".json"))
		if err != nil {
			f.Fatal(err)
		}
		toks = append(toks, tok)
	}
	pres := []func(string, bool, []string) []string{
		metaspace('▁', prependAlways, true), metaspace('▁', prependFirst, true), metaspace('▁', prependNever, true),
		bertPreTokenize, whitespacePre, whitespaceSplit,
	}
	f.Fuzz(func(t *testing.T, s string, raw []byte) {
		ids := make([]int, 0, len(raw)/4)
		for len(raw) >= 4 {
			ids = append(ids, int(int32(binary.LittleEndian.Uint32(raw))))
			raw = raw[4:]
		}
		for _, tok := range toks {
			for _, id := range tok.Encode(s, true) {
				if id < 0 || id >= len(tok.(*hfTokenizer).tokens) {
					t.Fatalf("%s: Encode(%q) gave id %d", tok.Name(), s, id)
				}
			}
			if d := tok.Decode(ids); !utf8.ValidString(d) {
				t.Fatalf("%s: Decode(%v) = %q is not UTF-8", tok.Name(), ids, d)
			}
		}
		if !utf8.ValidString(s) || s == "" {
			return
		}
		for i, pre := range pres {
			for _, p := range pre(s, true, nil) {
				if p == "" {
					t.Fatalf("pre-tokenizer %d cut an empty piece from %q", i, s)
				}
				for _, c := range strings.ReplaceAll(p, "▁", "") {
					if !strings.ContainsRune(s, c) {
						t.Fatalf("pre-tokenizer %d: piece %q of %q has %q", i, p, s, c)
					}
				}
			}
		}
		if b, ok := fallbackByte(s); ok && len(s) != 6 {
			t.Fatalf("fallbackByte(%q) = %d", s, b)
		}
	})
}

func TestFallbackByte(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int // -1: not a byte token
	}{
		{"<0x0A>", 0x0A}, {"<0xff>", 0xFF}, {"<0x+A>", 0x0A}, {"<0x0G>", -1}, {"<0x0A", -1},
		{"<0x00>", 0}, {"<0x-1>", -1}, {"<0xé>", -1}, {"<0x0A>>", -1},
	}
	for _, tc := range tests {
		b, ok := fallbackByte(tc.in)
		if got := map[bool]int{true: int(b), false: -1}[ok]; got != tc.want {
			t.Errorf("fallbackByte(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestDecoderSteps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		step decodeStep
		in   []string
		want []string
	}{
		{"byte fallback, valid", decodeByteFallback, []string{"a", "<0xE4>", "<0xBD>", "<0xA0>", "b"}, []string{"a", "你", "b"}},
		// One U+FFFD per byte, not per maximal subpart.
		{"byte fallback, invalid", decodeByteFallback, []string{"<0xE4>", "<0xBD>", "x"}, []string{"\uFFFD", "\uFFFD", "x"}},
		{"strip", decodeStrip(' ', 1, 1), []string{"  a  ", " ", ""}, []string{" a ", "", ""}},
		// HF drops every ▁ of the first token, not only the leading one.
		{"metaspace", decodeMetaspace('▁', true), []string{"▁a▁b", "▁c"}, []string{"ab", " c"}},
		{"metaspace never", decodeMetaspace('▁', false), []string{"▁a", "▁c"}, []string{" a", " c"}},
		{"wordpiece", decodeWordPiece("##", true), []string{"##a", "##b", "c", "do", "not", "."}, []string{"##a", "b", " c", " do", " not", "."}},
		{"bpe suffix", decodeBPESuffix("</w>"), []string{"a</w>", "b</w>"}, []string{"a ", "b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.step(slices.Clone(tc.in)); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want Kind
	}{
		{"basic.json", KindByteLevelBPE},
		{"metaspace_split.json", KindSentencePieceBPE},
		{"bpe_suffix.json", KindSentencePieceBPE},
		{"wordpiece.json", KindWordPiece},
	}
	for _, tc := range tests {
		tok, err := Load(filepath.Join("testdata", "unit", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		if got := tok.(*hfTokenizer).Kind(); got != tc.want {
			t.Errorf("%s: Kind() = %q, want %q", tc.file, got, tc.want)
		}
	}
}

// TestBertConfigRebuildsTheNormalizer: transformers' BertTokenizerFast
// rebuilds the normalizer when tokenizer_config.json disagrees with it.
func TestBertConfigRebuildsTheNormalizer(t *testing.T) {
	t.Parallel()
	vocab := `{"[UNK]": 0, "hello": 1, "Hello": 2, "cafe": 3, "café": 4}`
	file := func(lower string) string {
		return `{"version": "1.0", "added_tokens": [{"id": 0, "content": "[UNK]", "special": true, "normalized": false}],
			"normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": ` + lower + `},
			"pre_tokenizer": {"type": "BertPreTokenizer"}, "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
			"model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100, "vocab": ` + vocab + `}}`
	}
	tests := []struct {
		name, lower, config string
		want                []int // ids of "Hello café"
	}{
		{"agree", "true", `{"tokenizer_class": "BertTokenizer", "do_lower_case": true}`, []int{1, 3}},
		{"config lowercases by default", "false", `{"tokenizer_class": "BertTokenizer"}`, []int{1, 3}},
		{"config keeps case", "true", `{"tokenizer_class": "BertTokenizerFast", "do_lower_case": false}`, []int{2, 4}},
		{"config keeps case, strips accents", "true", `{"tokenizer_class": "BertTokenizer", "do_lower_case": false, "strip_accents": true}`, []int{2, 3}},
		{"other class untouched", "false", `{"tokenizer_class": "PreTrainedTokenizerFast"}`, []int{2, 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeJSON(t, dir, "tokenizer.json", file(tc.lower))
			writeJSON(t, dir, "tokenizer_config.json", tc.config)
			tok, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := tok.Encode("Hello café", false); !slices.Equal(got, tc.want) {
				t.Errorf("Encode = %v, want %v", got, tc.want)
			}
		})
	}
}
