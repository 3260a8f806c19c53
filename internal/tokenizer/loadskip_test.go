package tokenizer

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// modelScanCases are tokenizer.json files for the tests of modelScan,
// with whether the scan parses their (last) "merges" member itself: it
// does for a list of merges, and leaves any other value to parseMerges.
var modelScanCases = []struct {
	name, data string
	scanned    bool
}{
	{"pairs", `{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"]]}}`, true},
	{"indented", "{\n  \"model\": {\n    \"vocab\": {\n      \"a\": 0\n    },\n    \"merges\": [\n      [\n        \"a\",\n        \"\\u0061\"\n      ]\n    ]\n  }\n}\n", true},
	{"empty", `{"model": {"vocab": {}, "merges": []}}`, true},
	{"legacy", `{"model": {"vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["#version: 0.2", "a b"]}}`, true},
	{"legacy with three parts", `{"model": {"vocab": {}, "merges": ["a b c"]}}`, true},
	{"merges before vocab", `{"model": {"merges": [["a", "b"]], "vocab": {"a": 0, "b": 1, "ab": 2}, "type": "BPE"}}`, true},
	{"duplicate merges", `{"model": {"merges": [["a", "b"]], "vocab": {"a": 0}, "merges": [["b", "a"], ["a", "a"]]}}`, true},
	{"duplicate merges, the last wrong", `{"model": {"merges": [["a", "b"]], "merges": [1]}}`, false},
	{"duplicate merges, the first wrong", `{"model": {"merges": [1], "merges": ["a b"]}}`, true},
	{"null", `{"model": {"vocab": {}, "merges": null}}`, false},
	{"object", `{"model": {"merges": {"a": "b"}}}`, false},
	{"numbers", `{"model": {"merges": [1, 2]}}`, false},
	{"one part", `{"model": {"merges": [["a"]]}}`, false},
	{"mixed", `{"model": {"merges": [["a", "b"], "a b"]}}`, false},
	{"bad escape", `{"model": {"merges": [["a", "\q"]]}}`, false},
	{"invalid JSON", `{"model": {"merges": [["a", "b"}, "vocab": {}}}`, false},
	{"beside the model", `{"merges": [["a", "b"]], "model": {"vocab": {}}}`, false},
	{"model not an object", `{"model": [["a", "b"]]}`, false},
}

// checkModelScan checks what objectFieldsNested with a modelScan makes of
// data: the members of "model" are the slices that skipping every value
// finds (objectFields), and the merges the scan parsed are what
// parseMerges makes of the last "merges" member, pairs or error. It
// returns whether the scan parsed that member.
func checkModelScan(t *testing.T, data []byte) bool {
	t.Helper()
	var scan modelScan
	top, inner, err := objectFieldsNested(data, "model", &scan)
	if err != nil || inner == nil {
		return false
	}
	want, err := objectFields(top["model"])
	if err != nil {
		t.Fatalf("%q: the scan split model, objectFields did not: %v", data, err)
	}
	if !maps.EqualFunc(inner, want, bytes.Equal) {
		t.Fatalf("%q: the scan split model into %q, objectFields into %q", data, inner, want)
	}
	raw := inner["merges"]
	merges := scan.merges.of(raw)
	if merges == nil {
		return false
	}
	got, gotErr := merges()
	wantPairs, wantErr := parseMerges(raw)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !slices.Equal(got, wantPairs) {
		t.Fatalf("%q: the scan's merges %q, %v; parseMerges's %q, %v", data, got, gotErr, wantPairs, wantErr)
	}
	return true
}

// TestModelScanParsesMergesAsParseMerges: the merges parsed during the
// scan of the file are parseMerges of the member that counts, the last
// "merges" of "model", and the scan finds the same members as skipping
// every value does.
func TestModelScanParsesMergesAsParseMerges(t *testing.T) {
	t.Parallel()
	for _, tc := range modelScanCases {
		if got := checkModelScan(t, []byte(tc.data)); got != tc.scanned {
			t.Errorf("%s: the scan parsed the merges: %v, want %v", tc.name, got, tc.scanned)
		}
	}
	name := filepath.Join("testdata", "hf", "qwen3", "tokenizer.json")
	if !fileExists(name) {
		return
	}
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !checkModelScan(t, data) {
		t.Errorf("%s: the scan did not parse model.merges", name)
	}
}

// TestModelScanHandsVocabOver: the vocabulary is handed over as soon as
// the scan has passed it, once per "vocab" member of "model", as the
// slice the split finds; other members named vocab are not.
func TestModelScanHandsVocabOver(t *testing.T) {
	t.Parallel()
	data := []byte(`{"vocab": 1, "model": {"vocab": {"a": 0}, "merges": [], "x": {"vocab": 2}, "vocab": {"b": 0}}}`)
	var got [][]byte
	scan := modelScan{vocab: func(raw []byte) { got = append(got, raw) }}
	_, inner, err := objectFieldsNested(data, "model", &scan)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || string(got[0]) != `{"a": 0}` || !sameSlice(got[1], inner["vocab"]) {
		t.Errorf("vocab was handed %q, want the two members of model, the last %q", got, inner["vocab"])
	}
}

// TestLoadErrorsOfScannedMembers: a model.merges that is not a list of
// merges, or whose legacy lines do not split, is the same error as
// parseMerges gives for it, reported after model.vocab's errors; a
// duplicate member is read as its last occurrence, as for the other
// members.
func TestLoadErrorsOfScannedMembers(t *testing.T) {
	t.Parallel()
	const vocab = `"vocab": {"a": 0, "b": 1, "ab": 2}`
	for _, merges := range []string{`{}`, `[1, 2]`, `[["a"]]`, `[["a", "b", "a"]]`, `["a b c"]`, `[["a", "b"], "a b"]`, `"a b"`} {
		_, want := parseMerges([]byte(merges))
		if want == nil {
			t.Fatalf("parseMerges(%s) succeeded", merges)
		}
		for _, model := range []string{
			`"type": "BPE", ` + vocab + `, "merges": ` + merges,
			`"merges": ` + merges + `, "type": "BPE", ` + vocab,
			`"type": "BPE", ` + vocab + `, "merges": [["a", "b"]], "merges": ` + merges,
		} {
			data := `{"model": {` + model + `}}`
			_, _, err := buildFromJSON([]byte(data))
			if got := fmt.Sprint(err); got != "model.merges: "+want.Error() {
				t.Errorf("%s: error %s, want model.merges: %v", data, got, want)
			}
		}
	}
	for _, tc := range []struct{ data, want string }{
		// model.vocab's error comes first, whatever the merges.
		{`{"model": {"type": "BPE", "vocab": [1], "merges": [1]}}`, "model.vocab: "},
		{`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": "x", "vocab": {"a": "0"}}}`, "model.vocab: "},
		// The last vocab and the last merges count.
		{`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [["a", "b"]], "vocab": {"a": 0, "b": 1, "ab": 2}}}`, ""},
		{`{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"]], "vocab": {"a": 0}}}`, `model.merges[0]: token "b" is not in model.vocab`},
		{`{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["b", "a"]], "merges": ["a b"]}}`, ""},
		{`{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"]], "merges": [["b", "a"]]}}`, `model.merges[0]: merged token "ba" is not in model.vocab`},
		// A WordPiece model does not read its merges.
		{`{"model": {"type": "WordPiece", "vocab": {"[UNK]": 0}, "merges": [1], "unk_token": "[UNK]"}, "pre_tokenizer": {"type": "BertPreTokenizer"}}`, ""},
	} {
		_, _, err := buildFromJSON([]byte(tc.data))
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("%s: error %v, want %q", tc.data, err, tc.want)
		}
	}
}

// TestNoParseOutlivesTheBuild: no goroutine of the build still reads the
// file's bytes once it has returned, whether it succeeds or fails at any
// step: the bytes are overwritten then, which the race detector reports
// if one does (and a mapping would fault on, once unmapped).
func TestNoParseOutlivesTheBuild(t *testing.T) {
	t.Parallel()
	basic, err := os.ReadFile(filepath.Join("testdata", "unit", "basic.json"))
	if err != nil {
		t.Fatal(err)
	}
	type file struct {
		data []byte
		ok   bool
	}
	files := []file{{basic, true}}
	for _, edit := range []struct{ old, new string }{
		{`"type": "BPE"`, `"type": "Unigram"`},   // refused before the vocabulary is taken
		{`"version": "1.0"`, `"version": "2.0"`}, // so is this
		{`"merges": [`, `"merges": [1, `},        // parsed by parseMerges, beside the vocabulary
		{`"vocab": {`, `"vocab": {"x": "1", `},   // the vocabulary's own error
		{`"merges": [`, `"merges": [["a", "nope"], `},
		{`"model": {`, `"model": {"vocab": {"a": 0}, "merges": [["a", "a"]], `}, // duplicates
		{`"merges": [`, `"merges": [[`},                                         // invalid JSON
	} {
		if !bytes.Contains(basic, []byte(edit.old)) {
			t.Fatalf("basic.json has no %s", edit.old)
		}
		files = append(files, file{bytes.Replace(basic, []byte(edit.old), []byte(edit.new), 1), edit.old == `"model": {`})
	}
	if name := filepath.Join("testdata", "hf", "qwen3", "tokenizer.json"); fileExists(name) {
		qwen, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, file{qwen, true})
	}
	for i, f := range files {
		if _, _, err := buildFromJSON(f.data); (err == nil) != f.ok {
			t.Errorf("file %d: error %v, want success %v", i, err, f.ok)
		}
		for j := range f.data {
			f.data[j] = '!'
		}
	}
}

// FuzzModelScan checks the scan of a file against skipping every value
// and the merges it parses against parseMerges (checkModelScan).
func FuzzModelScan(f *testing.F) {
	for _, tc := range modelScanCases {
		f.Add([]byte(tc.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkModelScan(t, data)
	})
}
