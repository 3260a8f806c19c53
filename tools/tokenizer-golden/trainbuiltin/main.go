// Command trainbuiltin trains gobench's builtin tokenizer, a small
// byte-level BPE tokenizer, and writes it as Hugging Face tokenizer.json and
// tokenizer_config.json files into internal/tokenizer/builtin.
//
// The training text is license-clean: corpus.txt next to this file (written
// for gobench) and the Go distribution's own documentation, licence and
// standard-library source from GOROOT (BSD-3-Clause). A vocabulary is a list
// of frequent byte strings, not a copy of that text.
//
// The result depends only on the training text, so it is reproducible with
// the same Go release; the committed files were made with the Go version
// recorded in internal/tokenizer/builtin/README.md. After regenerating,
// rerun tools/tokenizer-golden (node gen.mjs builtin) to refresh the golden
// file.
//
// Usage, from the repository root:
//
//	go run ./tools/tokenizer-golden/trainbuiltin
package main

import (
	"bytes"
	"container/heap"
	"encoding/json"
	"flag"
	"fmt"
	"go/build"
	"io/fs"
	"log"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/dlclark/regexp2"
)

// splitPattern is the GPT-4 (cl100k) pre-tokenizer, also used by Llama-3.
const splitPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

func main() {
	out := flag.String("out", filepath.Join("internal", "tokenizer", "builtin"), "output folder")
	vocabSize := flag.Int("vocab", 8192, "base vocabulary size (256 bytes + merged tokens)")
	flag.Parse()

	text, err := corpus()
	if err != nil {
		log.Fatal(err)
	}
	words, err := countWords(text)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("corpus: %d bytes, %d distinct words", len(text), len(words))
	vocab, merges := train(words, *vocabSize)
	log.Printf("trained %d tokens with %d merges", len(vocab), len(merges))
	if err := writeFiles(*out, vocab, merges); err != nil {
		log.Fatal(err)
	}
}

// corpus concatenates the training text in a fixed order.
func corpus() (string, error) {
	var b strings.Builder
	_, self, _, _ := runtime.Caller(0)
	own, err := os.ReadFile(filepath.Join(filepath.Dir(self), "corpus.txt"))
	if err != nil {
		return "", err
	}
	b.Write(own)
	root := build.Default.GOROOT
	for _, name := range []string{"LICENSE", "README.md", "CONTRIBUTING.md", "doc/go_spec.html", "doc/go_mem.html", "doc/godebug.md"} {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			return "", err
		}
		b.Write(data)
	}
	// Standard-library packages whose source is part of the training text,
	// chosen for a mix of English comments and everyday Go.
	packages := []string{
		"bufio", "bytes", "context", "encoding/json", "errors", "flag", "fmt", "io",
		"log", "math", "net/http", "net/url", "os", "sort", "strconv", "strings",
		"sync", "text/template", "time", "unicode/utf8",
	}
	for _, pkg := range packages {
		dir := filepath.Join(root, "src", filepath.FromSlash(pkg))
		entries, err := os.ReadDir(dir)
		if err != nil {
			return "", err
		}
		for _, e := range entries { // ReadDir sorts by name
			name := e.Name()
			if e.Type()&fs.ModeType != 0 || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				return "", err
			}
			b.Write(data)
		}
	}
	return b.String(), nil
}

// countWords pre-tokenizes text and counts each piece.
func countWords(text string) (map[string]int, error) {
	re := regexp2.MustCompile(splitPattern, regexp2.None)
	words := map[string]int{}
	m, err := re.FindStringMatch(text)
	for m != nil && err == nil {
		words[m.String()]++
		m, err = re.FindNextMatch(m)
	}
	return words, err
}

// pair is two adjacent token ids.
type pair struct{ a, b int }

// candidate is a pair and its count when it was queued.
type candidate struct {
	p     pair
	count int
	key   string // tie-break: the merged token's bytes, then the left part
}

type queue []candidate

func (q queue) Len() int { return len(q) }
func (q queue) Less(i, j int) bool {
	if q[i].count != q[j].count {
		return q[i].count > q[j].count
	}
	return q[i].key < q[j].key
}
func (q queue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)   { *q = append(*q, x.(candidate)) }
func (q *queue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// trainer is train's state: the vocabulary so far, each distinct word as
// token ids with its frequency, and each pair's count and the words it is in.
type trainer struct {
	tokens    [][]byte
	byBytes   map[string]int
	words     [][]int
	freq      []int
	pairCount map[pair]int
	where     map[pair]map[int]bool
	q         *queue
}

// train learns merges until the vocabulary has size tokens. Ties between
// equally frequent pairs are broken by the bytes of the pair, so the result
// does not depend on map order.
func train(counts map[string]int, size int) (tokens [][]byte, merges []pair) {
	t := newTrainer(counts)
	for len(t.tokens) < size && t.q.Len() > 0 {
		top := heap.Pop(t.q).(candidate)
		if c := t.pairCount[top.p]; c != top.count {
			if c > 0 {
				heap.Push(t.q, candidate{top.p, c, top.key})
			}
			continue
		}
		if top.count < 2 {
			break
		}
		t.merge(top.p)
		merges = append(merges, top.p)
	}
	return t.tokens, merges
}

// newTrainer starts from the 256 bytes and every word spelled in them.
func newTrainer(counts map[string]int) *trainer {
	t := &trainer{byBytes: map[string]int{}, pairCount: map[pair]int{}, where: map[pair]map[int]bool{}, q: &queue{}}
	for b := 0; b < 256; b++ {
		t.tokens = append(t.tokens, []byte{byte(b)})
		t.byBytes[string([]byte{byte(b)})] = b
	}
	keys := slices.Sorted(maps.Keys(counts))
	t.words = make([][]int, len(keys))
	t.freq = make([]int, len(keys))
	for i, w := range keys {
		t.freq[i] = counts[w]
		for j := 0; j < len(w); j++ {
			t.words[i] = append(t.words[i], int(w[j]))
		}
		t.addPairs(i, nil)
	}
	for p, c := range t.pairCount {
		*t.q = append(*t.q, candidate{p, c, t.keyOf(p)})
	}
	heap.Init(t.q)
	return t
}

// keyOf is a pair's tie-break key: its bytes, then its first token's.
func (t *trainer) keyOf(p pair) string {
	return string(t.tokens[p.a]) + string(t.tokens[p.b]) + "\x00" + string(t.tokens[p.a])
}

// addPairs counts the pairs of word i (noting them in changed, if given).
func (t *trainer) addPairs(i int, changed map[pair]bool) {
	w := t.words[i]
	for j := 0; j+1 < len(w); j++ {
		p := pair{w[j], w[j+1]}
		t.pairCount[p] += t.freq[i]
		if changed != nil {
			changed[p] = true
		}
		if t.where[p] == nil {
			t.where[p] = map[int]bool{}
		}
		t.where[p][i] = true
	}
}

// merge makes pair p one token in every word that has it and queues the
// pairs whose counts changed.
func (t *trainer) merge(p pair) {
	merged := append(slices.Clone(t.tokens[p.a]), t.tokens[p.b]...)
	id, ok := t.byBytes[string(merged)]
	if !ok {
		id = len(t.tokens)
		t.tokens = append(t.tokens, merged)
		t.byBytes[string(merged)] = id
	}
	changed := map[pair]bool{}
	affected := slices.Sorted(maps.Keys(t.where[p]))
	for _, i := range affected {
		w := t.words[i]
		for j := 0; j+1 < len(w); j++ {
			t.pairCount[pair{w[j], w[j+1]}] -= t.freq[i]
			changed[pair{w[j], w[j+1]}] = true
		}
		var nw []int
		for j := 0; j < len(w); j++ {
			if j+1 < len(w) && w[j] == p.a && w[j+1] == p.b {
				nw = append(nw, id)
				j++
			} else {
				nw = append(nw, w[j])
			}
		}
		t.words[i] = nw
		t.addPairs(i, changed)
	}
	delete(t.where, p)
	for c := range changed {
		if n := t.pairCount[c]; n > 0 {
			heap.Push(t.q, candidate{c, n, t.keyOf(c)})
		} else {
			delete(t.pairCount, c)
		}
	}
}

// byteLevel maps bytes to GPT-2's printable runes (bytes_to_unicode).
func byteLevel() [256]rune {
	var m [256]rune
	n := 0
	for b := 0; b < 256; b++ {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			m[b] = rune(b)
		} else {
			m[b] = rune(256 + n)
			n++
		}
	}
	return m
}

// jsonString encodes s without HTML escaping, as HF writes it.
func jsonString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// tokenizerHead is tokenizer.json up to the vocabulary's entries; its verbs
// are the end-of-text id, the split pattern (JSON) and the id again.
const tokenizerHead = `{
  "version": "1.0",
  "truncation": null,
  "padding": null,
  "added_tokens": [
    {"id": %d, "content": "<|endoftext|>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}
  ],
  "normalizer": null,
  "pre_tokenizer": {
    "type": "Sequence",
    "pretokenizers": [
      {"type": "Split", "pattern": {"Regex": %s}, "behavior": "Isolated", "invert": false},
      {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false}
    ]
  },
  "post_processor": {
    "type": "TemplateProcessing",
    "single": [{"SpecialToken": {"id": "<|endoftext|>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
    "pair": [{"SpecialToken": {"id": "<|endoftext|>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "<|endoftext|>", "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
    "special_tokens": {"<|endoftext|>": {"id": "<|endoftext|>", "ids": [%d], "tokens": ["<|endoftext|>"]}}
  },
  "decoder": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
  "model": {
    "type": "BPE",
    "dropout": null,
    "unk_token": null,
    "continuing_subword_prefix": null,
    "end_of_word_suffix": null,
    "fuse_unk": false,
    "byte_fallback": false,
    "ignore_merges": false,
    "vocab": {
`

// tokenizerConfig is tokenizer_config.json.
const tokenizerConfig = `{
  "bos_token": "<|endoftext|>",
  "eos_token": "<|endoftext|>",
  "unk_token": null,
  "clean_up_tokenization_spaces": false,
  "model_max_length": 131072,
  "tokenizer_class": "PreTrainedTokenizerFast"
}
`

// writeFiles writes tokenizer.json (one vocabulary entry or merge per line,
// so diffs stay readable) and tokenizer_config.json.
func writeFiles(dir string, tokens [][]byte, merges []pair) error {
	bl := byteLevel()
	names := make([]string, len(tokens))
	for id, t := range tokens {
		var b strings.Builder
		for _, c := range t {
			b.WriteRune(bl[c])
		}
		names[id] = b.String()
	}
	eos := len(tokens)
	var b strings.Builder
	fmt.Fprintf(&b, tokenizerHead, eos, jsonString(splitPattern), eos)
	for id, name := range names {
		fmt.Fprintf(&b, "      %s: %d%s\n", jsonString(name), id, comma(id, len(names)))
	}
	b.WriteString("    },\n    \"merges\": [\n")
	for i, m := range merges {
		fmt.Fprintf(&b, "      [%s, %s]%s\n", jsonString(names[m.a]), jsonString(names[m.b]), comma(i, len(merges)))
	}
	b.WriteString("    ]\n  }\n}\n")
	if !json.Valid([]byte(b.String())) {
		return fmt.Errorf("generated tokenizer.json is not valid JSON")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(tokenizerConfig), 0o644)
}

// comma separates list entries: every one but the last of n.
func comma(i, n int) string {
	if i == n-1 {
		return ""
	}
	return ","
}
