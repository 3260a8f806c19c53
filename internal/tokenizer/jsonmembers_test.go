package tokenizer

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestFastVocabMatchesEncodingJSON(t *testing.T) {
	tests := []string{
		`{}`,
		` { "a" : 1 , "b":2 } `,
		`{"a\"b": 1, "\u00e9": 2, "\ud83d\ude00": 3, "\\n": 5, "x\/y": 6, "\t\r\n\b\f": 7}`,
		`{"\ud800": 1, "\udc00x": 2, "\ud800\u0041": 3}`, // lone surrogates become U+FFFD
		`{"Ġthe": 262, "ĊĊ": 628}`,
		`{"a": 1, "b": 2, "a": 3}`, // as in a map, the last one wins
	}
	for _, in := range tests {
		want := map[string]int{}
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatalf("bad test input %s: %v", in, err)
		}
		got, err := fastVocab([]byte(in))
		if err != nil {
			t.Errorf("fastVocab(%s): %v", in, err)
			continue
		}
		if !maps.Equal(vocabMap(got), want) || got.len() != len(want) {
			t.Errorf("fastVocab(%s) = %v, want %v", in, got, want)
		}
	}
	for _, bad := range []string{`{"a": -1}`, `{"a": 1.5}`, `{"a" 1}`, `{"a": 1,}`, `["a"]`, `{"a": "1"}`, `{"a\x01": 1}`, `{"\q": 1}`, `{"a": 1} x`} {
		if _, err := fastVocab([]byte(bad)); err == nil {
			t.Errorf("fastVocab(%s) succeeded, want an error", bad)
		}
	}
}

func TestFastMerges(t *testing.T) {
	pairs, legacy, err := fastMerges([]byte(`[["a", "b"], ["Ġ", "\u0120t"]]`))
	if err != nil || legacy != nil || !slices.Equal(pairs, [][2]string{{"a", "b"}, {"Ġ", "Ġt"}}) {
		t.Errorf("pairs: got %q %q %v", pairs, legacy, err)
	}
	pairs, legacy, err = fastMerges([]byte(`["#version: 0.2", "a b"]`))
	if err != nil || pairs != nil || !slices.Equal(legacy, []string{"#version: 0.2", "a b"}) {
		t.Errorf("legacy: got %q %q %v", pairs, legacy, err)
	}
	for _, bad := range []string{`[["a"]]`, `[["a", "b", "c"]]`, `[["a", "b"], "c d"]`, `{}`, `[1]`} {
		if _, _, err := fastMerges([]byte(bad)); err == nil {
			t.Errorf("fastMerges(%s) succeeded, want an error", bad)
		}
		if _, _, _, err := fastMergesPrefix([]byte(bad + `, 1]`)); err == nil {
			t.Errorf("fastMergesPrefix(%s, 1]) succeeded, want an error", bad)
		}
	}
	if _, _, err := fastMerges([]byte(`[["a", "b"]] x`)); err == nil {
		t.Errorf("fastMerges with data after the list succeeded, want an error")
	}
	pairs, _, n, err := fastMergesPrefix([]byte(` [["a", "b"]] x`))
	if err != nil || n != 13 || !slices.Equal(pairs, [][2]string{{"a", "b"}}) {
		t.Errorf("fastMergesPrefix with data after the list: got %q %d %v, want its 13 bytes", pairs, n, err)
	}
}

// FuzzFastVocab checks the hand-written vocabulary parser against
// encoding/json on keys that encoding/json writes (with its escapes).
func FuzzFastVocab(f *testing.F) {
	for _, s := range []string{"", "a", "Ġ", "\"\\/", "<&>", "\x00\x1f", "😀", "\xff"} {
		f.Add(s, 7)
	}
	f.Fuzz(func(t *testing.T, key string, id int) {
		if id < 0 || id > 1<<30 {
			return
		}
		data, err := json.Marshal(map[string]int{key: id, "z": 1})
		if err != nil {
			t.Skip()
		}
		// The key again, with another id: the last one wins, as in
		// encoding/json's map.
		data = append(append(data[:len(data)-1:len(data)-1], ',', ' '), append(data[1:len(data)-1:len(data)-1], ',', '"', 'z', '"', ':', '9', '}')...)
		want := map[string]int{}
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		got, err := fastVocab(data)
		if err != nil || !maps.Equal(vocabMap(got), want) || got.len() != len(want) {
			t.Fatalf("fastVocab(%s) = %v, %v; want %v", data, got, err, want)
		}
		for tok, id := range want {
			if v, ok := got.get(tok); !ok || v != id {
				t.Errorf("fastVocab(%s).get(%q) = %d, %v; want %d", data, tok, v, ok, id)
			}
		}
	})
}

// FuzzFastMerges checks the hand-written merges parser against
// encoding/json on lists of pairs (and of "a b" strings) that
// encoding/json writes, compact or indented as tokenizer.json files are,
// so that the arena sizing and the pairs cut from it are exercised with
// parts of every length.
func FuzzFastMerges(f *testing.F) {
	f.Add("a", "b", 3, false)
	f.Add("Ġ", "t", 40, true)
	f.Add("", "\"\\/", 1, false)
	f.Add("😀\xff", "\x00", 7, true)
	f.Fuzz(func(t *testing.T, a, b string, n int, indent bool) {
		n = 1 + abs(n)%64
		pairs := make([][2]string, n)
		lines := make([]string, n)
		for i := range pairs {
			pairs[i] = [2]string{strings.Repeat(a, i%5), b + strings.Repeat("x", i)}
			lines[i] = pairs[i][0] + " " + pairs[i][1]
		}
		for _, v := range []any{pairs, lines} {
			data, err := json.Marshal(v)
			if indent {
				data, err = json.MarshalIndent(v, "    ", "  ")
			}
			if err != nil {
				t.Skip()
			}
			var wantPairs [][2]string
			var wantLines []string
			if _, ok := v.([]string); ok {
				err = json.Unmarshal(data, &wantLines)
			} else {
				err = json.Unmarshal(data, &wantPairs)
			}
			if err != nil {
				t.Fatal(err)
			}
			gotPairs, gotLines, err := fastMerges(data)
			if err != nil || !slices.Equal(gotPairs, wantPairs) || !slices.Equal(gotLines, wantLines) {
				t.Fatalf("fastMerges(%s) = %q, %q, %v; want %q, %q", data, gotPairs, gotLines, err, wantPairs, wantLines)
			}
			// As the scan of a file meets the member: the rest of the
			// file follows it.
			rest := append(append([]byte(nil), data...), `, "vocab": {"a": 0}}}`...)
			gotPairs, gotLines, n, err := fastMergesPrefix(rest)
			if err != nil || n != len(data) || !slices.Equal(gotPairs, wantPairs) || !slices.Equal(gotLines, wantLines) {
				t.Fatalf("fastMergesPrefix(%s) = %q, %q, %d, %v; want %q, %q, %d", rest, gotPairs, gotLines, n, err, wantPairs, wantLines, len(data))
			}
		}
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// TestRealMergeRanks makes sure the unit tokenizers number their merged
// tokens against merge order, so that their golden files (which match HF)
// prove that merges are ranked by position in the merge list, not by the
// merged token's id as tiktoken-style BPE would rank them.
func TestRealMergeRanks(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "unit", "basic.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Model struct {
			Vocab  map[string]int `json:"vocab"`
			Merges [][2]string    `json:"merges"`
		} `json:"model"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	prev, violations := -1, 0
	for _, m := range f.Model.Merges {
		id := f.Model.Vocab[m[0]+m[1]]
		if id < prev {
			violations++
		}
		prev = id
	}
	if violations == 0 {
		t.Error("basic.json's merge order follows token ids; it no longer tests real merge ranks")
	}
}

// TestVocabIDRange: an id above 2^30 is refused, naming the first such
// token in the file (1073741825 is 2^30+1).
func TestVocabIDRange(t *testing.T) {
	t.Parallel()
	_, err := parseVocab([]byte(`{"a": 0, "b": 1073741825, "c": 2000000000}`))
	if want := `token "b" has id 1073741825, outside [0, 2^30]`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	if v, err := parseVocab([]byte(`{"a": 1073741824}`)); err != nil || vocabMap(v)["a"] != 1<<30 {
		t.Errorf("parseVocab(2^30) = %v, %v", v, err)
	}
}

// TestFastJSONTrailingNUL: a NUL byte after the value is data after it,
// as for encoding/json (the scanner's peek returns 0 for it and for the
// end alike).
func TestFastJSONTrailingNUL(t *testing.T) {
	if _, err := fastVocab([]byte("{\"a\": 1}\x00")); err == nil {
		t.Error(`fastVocab took {"a": 1} and a NUL byte`)
	}
	if _, _, err := fastMerges([]byte("[[\"a\", \"b\"]]\x00")); err == nil {
		t.Error(`fastMerges took [["a", "b"]] and a NUL byte`)
	}
	if _, err := fastVocab([]byte("{\"a\": 1} \n")); err != nil {
		t.Errorf("trailing whitespace: %v", err)
	}
}

// TestFastVocabStrings checks the vocabulary's strings, read through
// jsonscan, on what encoding/json never writes: escapes it would not use,
// surrogate pairs and lone surrogates (decoded as encoding/json decodes
// them), and raw control characters, which Hugging Face's loader refuses
// and so does this one (bytes that are not UTF-8: TestLoadRefusesNonUTF8).
func TestFastVocabStrings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		json, want string // want "" for an error
	}{
		{`{"\u0041\/\"\\\b\f\n\r\t": 0}`, "A/\"\\\b\f\n\r\t"},
		{`{"\ud83d\ude00": 0}`, "😀"},
		{`{"\ud83d": 0}`, "\uFFFD"},
		{`{"\ud83dx": 0}`, "\uFFFDx"},
		{`{"\ud83d\u0041": 0}`, "\uFFFDA"},
		{"{\"a\x01b\": 0}", ""},
		{`{"a\qb": 0}`, ""},
		{`{"a\u00zz": 0}`, ""},
		{`{"ab: 0}`, ""},
	}
	for _, tt := range tests {
		v, err := fastVocab([]byte(tt.json))
		if tt.want == "" {
			if err == nil {
				t.Errorf("fastVocab(%q) took it, want an error", tt.json)
			}
			continue
		}
		if err != nil {
			t.Errorf("fastVocab(%q): %v", tt.json, err)
			continue
		}
		if id, ok := v.get(tt.want); !ok || id != 0 || v.len() != 1 {
			t.Errorf("fastVocab(%q) does not hold %q alone (%v)", tt.json, tt.want, vocabMap(v))
		}
		var ref map[string]int
		if err := json.Unmarshal([]byte(tt.json), &ref); err != nil || ref[tt.want] != 0 || len(ref) != 1 {
			t.Errorf("encoding/json reads %q as %v (%v), not %q", tt.json, ref, err, tt.want)
		}
	}
}
