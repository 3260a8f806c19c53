package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeJSON writes v (or, for a string, the text itself) to dir/name.
func writeJSON(t *testing.T, dir, name string, v any) string {
	t.Helper()
	data, ok := v.(string)
	if !ok {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		data = string(b)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// basicJSON returns testdata/unit/basic.json as a map, for tests that
// break one field of a valid file.
func basicJSON(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "unit", "basic.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestLoadRefusesUnsupportedKinds(t *testing.T) {
	tests := []struct {
		file, kind, field string
	}{
		{"unigram.json", "Unigram", "model.type"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			file := filepath.Join("testdata", "unit", tc.file)
			_, err := Load(file)
			var u *UnsupportedError
			if !errors.As(err, &u) {
				t.Fatalf("Load(%s) error = %v, want an *UnsupportedError", file, err)
			}
			if u.File != file || u.Field != tc.field || !strings.Contains(u.Kind, tc.kind) {
				t.Errorf("got %+v, want file %s, field %s, kind %s", u, file, tc.field, tc.kind)
			}
			want := "tokenizer kind " + u.Kind + " in " + file + " is not supported yet"
			if !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error %q does not start with %q", err, want)
			}
		})
	}
}

// loadErrorCase is a broken tokenizer.json (an edit of basicJSON, or raw
// text) and what Load's error must say of it.
type loadErrorCase struct {
	name        string
	edit        func(m map[string]any)
	raw         string // used instead of the edited file when set
	unsupported bool
	want        []string
}

// loadErrorCases are the broken files TestLoadErrorsNameFileAndField loads.
func loadErrorCases() []loadErrorCase {
	return []loadErrorCase{
		{name: "truncated JSON", raw: `{"version": "1.0", "model": {"type": "BPE", "vocab": {"a": 0}`, want: []string{"invalid JSON"}},
		{name: "not an object", raw: `[1, 2]`, want: []string{"want a JSON object"}},
		{name: "missing model", edit: func(m map[string]any) { delete(m, "model") }, want: []string{"model: missing"}},
		{name: "bad version", edit: func(m map[string]any) { m["version"] = "2.0" }, want: []string{"version", `"2.0"`}},
		{name: "merge token not in vocab", edit: func(m map[string]any) {
			model := m["model"].(map[string]any)
			model["merges"] = append([]any{[]any{"h", "nope"}}, model["merges"].([]any)...)
		}, want: []string{"model.merges[0]", `"nope"`}},
		{name: "merged token not in vocab", edit: func(m map[string]any) {
			model := m["model"].(map[string]any)
			model["merges"] = []any{[]any{"x", "q"}}
		}, want: []string{"model.merges[0]", `"xq"`}},
		{name: "legacy merge with three parts", edit: func(m map[string]any) {
			m["model"].(map[string]any)["merges"] = []any{"a b c"}
		}, want: []string{"model.merges", `"a b c"`}},
		{name: "vocab is a list", edit: func(m map[string]any) {
			m["model"].(map[string]any)["vocab"] = []any{1, 2}
		}, want: []string{"model.vocab"}},
		{name: "vocab id is a string", edit: func(m map[string]any) {
			m["model"].(map[string]any)["vocab"] = map[string]any{"a": "0"}
		}, want: []string{"model.vocab", `"a"`}},
		{name: "missing merges", edit: func(m map[string]any) { delete(m["model"].(map[string]any), "merges") }, want: []string{"model.merges: missing"}},
		{name: "added_tokens not a list", edit: func(m map[string]any) { m["added_tokens"] = "x" }, want: []string{"added_tokens"}},
		{name: "template names unknown token", edit: func(m map[string]any) {
			pp := m["post_processor"].(map[string]any)
			pp["special_tokens"] = map[string]any{}
		}, want: []string{"post_processor.single[0]", `"<s>"`}},
		{name: "bad split regex", edit: func(m map[string]any) {
			pre := m["pre_tokenizer"].(map[string]any)["pretokenizers"].([]any)
			pre[0].(map[string]any)["pattern"] = map[string]any{"Regex": "(unclosed"}
		}, want: []string{"pre_tokenizer.pretokenizers[0].pattern"}},
		{name: "unknown normalizer", unsupported: true, edit: func(m map[string]any) {
			m["normalizer"] = map[string]any{"type": "Precompiled"}
		}, want: []string{`normalizer "Precompiled"`, "field normalizer"}},
		{name: "unknown pre-tokenizer", unsupported: true, edit: func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "UnicodeScripts"}
		}, want: []string{"UnicodeScripts"}},
		{name: "pre-tokenizer after ByteLevel", unsupported: true, edit: func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "Sequence", "pretokenizers": []any{
				map[string]any{"type": "ByteLevel"}, map[string]any{"type": "Whitespace"}}}
		}, want: []string{"after ByteLevel"}},
		{name: "WordPiece on bytes", unsupported: true, edit: func(m map[string]any) {
			m["model"] = map[string]any{"type": "WordPiece", "unk_token": "a", "vocab": map[string]any{"a": 0}}
		}, want: []string{"WordPiece with a ByteLevel pre-tokenizer"}},
		{name: "WordPiece without its unk token", edit: func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "BertPreTokenizer"}
			m["model"] = map[string]any{"type": "WordPiece", "vocab": map[string]any{"a": 0}}
		}, want: []string{"model.unk_token", "[UNK]"}},
		{name: "CTC decoder", unsupported: true, edit: func(m map[string]any) {
			m["decoder"] = map[string]any{"type": "CTC"}
		}, want: []string{`decoder "CTC"`, "field decoder"}},
		{name: "bad Metaspace", edit: func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "Metaspace", "replacement": "ab"}
		}, want: []string{"pre_tokenizer.replacement"}},
		{name: "dropout", unsupported: true, edit: func(m map[string]any) {
			m["model"].(map[string]any)["dropout"] = 0.1
		}, want: []string{"dropout"}},
	}
}

func TestLoadErrorsNameFileAndField(t *testing.T) {
	for _, tc := range loadErrorCases() {
		t.Run(tc.name, func(t *testing.T) {
			content := tc.raw
			if content == "" {
				m := basicJSON(t)
				tc.edit(m)
				b, err := json.Marshal(m)
				if err != nil {
					t.Fatal(err)
				}
				content = string(b)
			}
			file := writeJSON(t, t.TempDir(), "tokenizer.json", content)
			_, err := Load(file)
			if err == nil {
				t.Fatalf("Load succeeded, want an error")
			}
			msg := err.Error()
			if !strings.Contains(msg, file) {
				t.Errorf("error %q does not name the file %s", msg, file)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not mention %s", msg, w)
				}
			}
			var u *UnsupportedError
			if got := errors.As(err, &u); got != tc.unsupported {
				t.Errorf("errors.As(*UnsupportedError) = %v, want %v (error %q)", got, tc.unsupported, msg)
			}
		})
	}
}

func TestLoadPaths(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("Load of a missing file: error %v does not name the file", err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "tokenizer.json")) {
		t.Errorf("Load of a folder without tokenizer.json: error %v does not name tokenizer.json", err)
	}
	data, err := os.ReadFile(filepath.Join("testdata", "unit", "basic.json"))
	if err != nil {
		t.Fatal(err)
	}
	writeJSON(t, dir, "tokenizer.json", string(data))
	cfg := writeJSON(t, dir, "tokenizer_config.json", `{"bos_token": 12}`)
	_, err = Load(dir)
	if err == nil || !strings.Contains(err.Error(), cfg) || !strings.Contains(err.Error(), "bos_token") {
		t.Errorf("bad tokenizer_config.json: error %v does not name %s and bos_token", err, cfg)
	}
	writeJSON(t, dir, "tokenizer_config.json", `{"bos_token": `)
	if _, err = Load(dir); err == nil || !strings.Contains(err.Error(), cfg) {
		t.Errorf("malformed tokenizer_config.json: error %v does not name %s", err, cfg)
	}
}

func TestSpecialTokensAndTemplate(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "unit", "basic.json"))
	if err != nil {
		t.Fatal(err)
	}
	// basic.json: base vocabulary of 270, added tokens from 270 on:
	// <s> 270, </s> 271, <|x|> 272, <|x|>y 273, [L] 274, [R] 275 (special),
	// [LR] 276, word 277, ÉCOLE 278; "hello" is also a model token, so as an
	// added token it keeps the model's id 264. Template "<s> $A </s>".
	tests := []struct {
		name     string
		config   string // tokenizer_config.json, if any
		tokenMap string // special_tokens_map.json, if any
		special  []int
		cleanup  bool
	}{
		{name: "no config: added tokens marked special", special: []int{270, 271, 272, 273, 274, 275}},
		{name: "config", config: `{"bos_token": "<s>", "eos_token": {"__type": "AddedToken", "content": "</s>"},
			"pad_token": null, "additional_special_tokens": ["[L]", "</s>"], "clean_up_tokenization_spaces": true}`,
			special: []int{270, 271, 274}, cleanup: true},
		{name: "special_tokens_map overrides", config: `{"bos_token": "<s>", "eos_token": "</s>"}`,
			tokenMap: `{"eos_token": "[R]", "unk_token": "[LR]"}`, special: []int{270, 275, 276}},
		{name: "unknown token maps to unk", config: `{"unk_token": "[LR]", "sep_token": "<nope>"}`, special: []int{276}},
		{name: "unknown token without unk is dropped", config: `{"sep_token": "<nope>"}`, special: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeJSON(t, dir, "tokenizer.json", string(data))
			if tc.config != "" {
				writeJSON(t, dir, "tokenizer_config.json", tc.config)
			}
			if tc.tokenMap != "" {
				writeJSON(t, dir, "special_tokens_map.json", tc.tokenMap)
			}
			tok, err := Load(filepath.Join(dir, "tokenizer.json"))
			if err != nil {
				t.Fatal(err)
			}
			if got := tok.AllSpecialIDs(); !slices.Equal(got, tc.special) {
				t.Errorf("AllSpecialIDs() = %v, want %v", got, tc.special)
			}
			if got := tok.VocabSize(); got != 270 {
				t.Errorf("VocabSize() = %d, want 270", got)
			}
			if got := tok.NumSpecialTokensToAdd(); got != 2 {
				t.Errorf("NumSpecialTokensToAdd() = %d, want 2", got)
			}
			if got, want := tok.Encode("hello world", true), []int{270, 264, 259, 271}; !slices.Equal(got, want) {
				t.Errorf("Encode(true) = %v, want %v", got, want)
			}
			if got, want := tok.Encode("hello world", false), []int{264, 259}; !slices.Equal(got, want) {
				t.Errorf("Encode(false) = %v, want %v", got, want)
			}
			want := "hello , world"
			if tc.cleanup {
				want = "hello, world"
			}
			if got := tok.Decode([]int{264, 32, 44, 259}); got != want {
				t.Errorf("Decode = %q, want %q", got, want)
			}
			if tok.Name() != filepath.Join(dir, "tokenizer.json") {
				t.Errorf("Name() = %q, want the path given to Load", tok.Name())
			}
		})
	}
}

func TestPostProcessors(t *testing.T) {
	tests := []struct {
		name string
		post any
		want []int // Encode("a", true); "a" is id 97
	}{
		{"none", nil, []int{97}},
		{"ByteLevel", map[string]any{"type": "ByteLevel", "trim_offsets": true}, []int{97}},
		{"Bert", map[string]any{"type": "BertProcessing", "sep": []any{"</s>", 271}, "cls": []any{"<s>", 270}}, []int{270, 97, 271}},
		{"Roberta", map[string]any{"type": "RobertaProcessing", "sep": []any{"</s>", 271}, "cls": []any{"<s>", 270}}, []int{270, 97, 271}},
		{"Sequence", map[string]any{"type": "Sequence", "processors": []any{
			map[string]any{"type": "ByteLevel"},
			map[string]any{"type": "TemplateProcessing", "single": []any{
				map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}},
				map[string]any{"SpecialToken": map[string]any{"id": "</s>", "type_id": 0}},
			}, "pair": []any{}, "special_tokens": map[string]any{"</s>": map[string]any{"id": "</s>", "ids": []any{271, 272}, "tokens": []any{"</s>", "<|x|>"}}}},
		}}, []int{97, 271, 272}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := basicJSON(t)
			m["post_processor"] = tc.post
			tok, err := Load(writeJSON(t, t.TempDir(), "tokenizer.json", m))
			if err != nil {
				t.Fatal(err)
			}
			if got := tok.Encode("a", true); !slices.Equal(got, tc.want) {
				t.Errorf("Encode(%q, true) = %v, want %v", "a", got, tc.want)
			}
			if got := tok.NumSpecialTokensToAdd(); got != len(tc.want)-1 {
				t.Errorf("NumSpecialTokensToAdd() = %d, want %d", got, len(tc.want)-1)
			}
		})
	}
}

// TestLoadFormatting loads the same tokenizer written compactly, indented,
// and with white space before commas and colons, which the hand-written JSON
// scanner must all accept.
func TestLoadFormatting(t *testing.T) {
	compact, err := json.Marshal(basicJSON(t))
	if err != nil {
		t.Fatal(err)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, compact, "\t", "  "); err != nil {
		t.Fatal(err)
	}
	spacey := strings.NewReplacer(`null,`, "null \n\t,", `false,`, "false\r\n ,", `": `, "\"\t : ").Replace(indented.String())
	want, err := Load(filepath.Join("testdata", "unit", "basic.json"))
	if err != nil {
		t.Fatal(err)
	}
	text := "Hello <|x|>y [L] world 123 'ſo"
	for name, content := range map[string]string{"compact": string(compact), "indented": indented.String(), "spacey": spacey} {
		tok, err := Load(writeJSON(t, t.TempDir(), "tokenizer.json", content))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got, w := tok.Encode(text, true), want.Encode(text, true); !slices.Equal(got, w) {
			t.Errorf("%s: Encode = %v, want %v", name, got, w)
		}
		if got, w := tok.AllSpecialIDs(), want.AllSpecialIDs(); !slices.Equal(got, w) {
			t.Errorf("%s: AllSpecialIDs = %v, want %v", name, got, w)
		}
	}
}

// TestLlamaTokenizerClass checks that tokenizer_class LlamaTokenizerFast
// rebuilds the template from add_bos_token/add_eos_token, as transformers
// does, while other classes keep tokenizer.json's post-processor.
func TestLlamaTokenizerClass(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "unit", "basic.json"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, config string
		want         []int // Encode("a", true); "a" is 97, <s> 270, </s> 271
		wantErr      string
	}{
		{"other class keeps the file's template", `{"tokenizer_class": "Qwen2Tokenizer", "bos_token": "<s>"}`, []int{270, 97, 271}, ""},
		{"llama default adds BOS only", `{"tokenizer_class": "LlamaTokenizerFast", "bos_token": "<s>", "eos_token": "</s>"}`, []int{270, 97}, ""},
		{"llama add_eos_token", `{"tokenizer_class": "LlamaTokenizer", "bos_token": "<s>", "eos_token": "</s>", "add_eos_token": true}`, []int{270, 97, 271}, ""},
		{"llama add_bos_token false", `{"tokenizer_class": "LlamaTokenizerFast", "bos_token": "<s>", "add_bos_token": false}`, []int{97}, ""},
		{"llama without bos_token", `{"tokenizer_class": "LlamaTokenizerFast"}`, nil, "bos_token"},
		{"llama bos_token not a token", `{"tokenizer_class": "LlamaTokenizerFast", "bos_token": "<nope>"}`, nil, `"<nope>"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeJSON(t, dir, "tokenizer.json", string(data))
			writeJSON(t, dir, "tokenizer_config.json", tc.config)
			tok, err := Load(dir)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "tokenizer_config.json") {
					t.Fatalf("Load error = %v, want one naming tokenizer_config.json and %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := tok.Encode("a", true); !slices.Equal(got, tc.want) {
				t.Errorf("Encode(%q, true) = %v, want %v", "a", got, tc.want)
			}
			if got := tok.NumSpecialTokensToAdd(); got != len(tc.want)-1 {
				t.Errorf("NumSpecialTokensToAdd() = %d, want %d", got, len(tc.want)-1)
			}
		})
	}
}

// TestLoadKeepsNothingOfTheFile loads every test tokenizer, overwrites
// the bytes of its tokenizer.json and uses all it keeps: it must work as
// one loaded from the file, since none of it may point into those bytes
// (they would be kept alive, 11 MB for Qwen3).
func TestLoadKeepsNothingOfTheFile(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob(filepath.Join("testdata", "unit", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"qwen3", "llama3", "mistral", "mistral-metaspace", "bert"} {
		if requireTestdata() || fileExists(filepath.Join("testdata", "hf", name, "tokenizer.json")) {
			paths = append(paths, filepath.Join(hfDir(t, name), "tokenizer.json"))
		}
	}
	use := func(tok Tokenizer) string {
		text := "Hello, world! naïve café 東京 😀 <|im_start|> [CLS] 12345"
		ids := tok.Encode(text, true)
		out := fmt.Sprint(ids, tok.Decode(ids), tok.AllSpecialIDs())
		if c, ok := tok.(ChatTemplater); ok {
			s, err := c.ApplyChatTemplate([]Message{{Role: "user", Content: text}}, true, nil)
			out += fmt.Sprint(s, err)
		}
		WaitBuilt(tok)
		return out + fmt.Sprint(tok.Encode(strings.Repeat(text, 20), false))
	}
	loaded := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		configs, chat, err := readConfigs(filepath.Dir(p))
		if err != nil {
			t.Fatal(err)
		}
		tok, err := build(p, namedJSON{file: p, data: data}, configs, chat)
		if err != nil {
			continue // the unit files that are meant to fail
		}
		loaded++
		for i := range data {
			data[i] = '!'
		}
		ref, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := use(tok), use(ref); got != want {
			t.Errorf("%s: with its file's bytes overwritten:\n%s\nwant\n%s", p, got, want)
		}
	}
	// testdata/unit has 9 files, of which unigram.json is refused.
	if loaded < 8 {
		t.Fatalf("%d of %d tokenizers loaded; the unit ones alone are 8", loaded, len(paths))
	}
}

// TestLoadRefusesNonUTF8: tokenizer.json must be UTF-8, as Hugging Face
// reads it into a string, although encoding/json takes such bytes; a file
// that is invalid JSON too is reported as invalid JSON.
func TestLoadRefusesNonUTF8(t *testing.T) {
	t.Parallel()
	const file = "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\xffb\": 0}, \"merges\": []}}"
	if _, _, err := buildFromJSON([]byte(file)); err == nil || err.Error() != "the file is not UTF-8 (at byte 38)" {
		t.Errorf("error %v, want the file is not UTF-8 (at byte 38)", err)
	}
	if _, _, err := buildFromJSON([]byte(file + "x")); err == nil || !strings.HasPrefix(err.Error(), "invalid JSON") {
		t.Errorf("error %v, want invalid JSON", err)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
