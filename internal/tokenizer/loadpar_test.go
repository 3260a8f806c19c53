package tokenizer

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestMergeValuesFirstError: the merges are resolved in chunks on several
// goroutines, yet the error names the first bad merge, as a serial loop
// would.
func TestMergeValuesFirstError(t *testing.T) {
	t.Parallel()
	vocab := map[string]int{}
	var merges [][2]string
	for i := range 40000 {
		a, b := "a"+strconv.Itoa(i), "b"+strconv.Itoa(i)
		vocab[a], vocab[b], vocab[a+b] = 3*i, 3*i+1, 3*i+2
		merges = append(merges, [2]string{a, b})
	}
	keys, vals, err := mergeValues(vocabularyOf(vocab), merges, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 20000, 39999} {
		if keys[i] != pairKey(int32(3*i), int32(3*i+1)) || vals[i] != uint64(i)<<32|uint64(3*i+2) {
			t.Errorf("merge %d: key %x value %x", i, keys[i], vals[i])
		}
	}
	merges[39000][1] = "missing"
	merges[25000][0] = "absent"
	_, _, err = mergeValues(vocabularyOf(vocab), merges, "")
	if err == nil || !strings.Contains(err.Error(), "model.merges[25000]") || !strings.Contains(err.Error(), `"absent"`) {
		t.Errorf("error %v, want one naming model.merges[25000] and \"absent\"", err)
	}
}

// TestMergeValuesOrderEqualsLookup: resolving merged tokens by trying the
// id after the previous merge's (with the vocabulary in file order) gives
// what the lookups give, where merged ids follow each other, where they
// jump, where the file order is not id order, where the token at the
// guessed id is another one, and where a later duplicate of a token
// overrides the entry at the guessed id.
func TestMergeValuesOrderEqualsLookup(t *testing.T) {
	t.Parallel()
	// Single letters a..j are ids 0..9; merge i makes token 10+i, except
	// that merges 5 and 6 make ids swapped and merge 8 makes an id far away.
	vocab := map[string]int{}
	for i := range 10 {
		vocab[string(rune('a'+i))] = i
	}
	var merges [][2]string
	for i := range 12 {
		a, b := string(rune('a'+i%10)), string(rune('a'+(i*3)%10))
		merges = append(merges, [2]string{a, b})
		id := 10 + i
		switch i {
		case 5:
			id = 16
		case 6:
			id = 15
		case 8:
			id = 40
		}
		vocab[a+b] = id
	}
	// The lookups alone: a vocabulary whose file order says nothing of ids.
	want, wantVals, err := mergeValues(vocabularyOf(vocab), merges, "")
	if err != nil {
		t.Fatal(err)
	}
	var toks []string
	var ids []int
	for id := range 41 {
		for tok, v := range vocab {
			if v == id {
				toks, ids = append(toks, tok), append(ids, id)
			}
		}
	}
	// Positions no longer equal ids past the gap before 40: the guess for
	// merge 9 (id 41 after 40) finds nothing there and falls back.
	swapped, swappedIDs := slices.Clone(toks), slices.Clone(ids)
	swapped[11], swapped[12] = swapped[12], swapped[11]
	swappedIDs[11], swappedIDs[12] = swappedIDs[12], swappedIDs[11]
	for name, v := range map[string]*vocabulary{"id order": vocabInOrder(toks, ids), "two swapped": vocabInOrder(swapped, swappedIDs)} {
		keys, vals, err := mergeValues(v, merges, "")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Equal(keys, want) || !slices.Equal(vals, wantVals) {
			t.Errorf("%s: keys %x values %x, want %x %x", name, keys, vals, want, wantVals)
		}
	}
	// "abb" again at the end with id 9: position 3 still holds id 3, the
	// guess for the second merge, but the token's id is 9.
	dup := vocabInOrder([]string{"a", "b", "ab", "abb", "abb"}, []int{0, 1, 2, 3, 9})
	_, vals, err := mergeValues(dup, [][2]string{{"a", "b"}, {"ab", "b"}}, "")
	if err != nil || vals[1] != 1<<32|9 {
		t.Errorf("duplicate: values %x (%v), want the second merge to make id 9", vals, err)
	}
}

// TestInvalidJSONWinsOverParseErrors: whatever the parse made of a file,
// invalid JSON is what is reported.
func TestInvalidJSONWinsOverParseErrors(t *testing.T) {
	t.Parallel()
	for _, data := range []string{
		`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [["a", "a"]]}`,
		`{"version": "9", "model": {"type": "BPE", "vocab": {"a": 0,}, "merges": []}}`,
		`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [["a", "a"]]}} x`,
	} {
		if _, _, err := buildFromJSON([]byte(data)); err == nil || !strings.HasPrefix(err.Error(), "invalid JSON") {
			t.Errorf("%s: error %v, want invalid JSON", data, err)
		}
	}
}

// FuzzValidationEqualsJSONValid: the load reports invalid JSON exactly when
// encoding/json's json.Valid refuses the whole file, which the load
// validates with jsonscan as it scans it.
func FuzzValidationEqualsJSONValid(f *testing.F) {
	for _, seed := range []string{
		`{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"]]}}`,
		`{"model": {"merges": ["a b"], "vocab": {"a": 0, "b": 1, "ab": 2}, "type": "BPE"}, "added_tokens": []}`,
		`{"model": {"type": "BPE", "vocab": {"a": 00, "b": 1, "ab": 2}, "merges": [["a", "b"]]}}`,
		`{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"]]}, "decoder": [1,]}`,
		`{"model": {"type": "BPE", "vocab": {"\u00e9": 0, "\ud800": 1, "\u00e9\ud800": 2}, "merges": [["\u00e9", "\ud800"]]}}`,
		`{"model": {"type": "WordPiece", "vocab": {"[UNK]": 0, "a": 1}, "merges": [1, 2], "unk_token": "[UNK]"}}`,
		`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [["a", "a"]]}`,
		`{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [["a", "a"]]}} x`,
		` {"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":[["a","b"]]}}` + "\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, err := buildFromJSON(data)
		reported := err != nil && strings.HasPrefix(err.Error(), "invalid JSON")
		if want := !json.Valid(data); reported != want {
			t.Errorf("%q: error %v, want invalid JSON reported %v", data, err, want)
		}
	})
}
