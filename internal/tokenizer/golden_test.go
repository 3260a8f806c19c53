package tokenizer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// goldenFile is what tools/tokenizer-golden/gen.mjs writes: ids and text
// computed by Hugging Face tokenizers (Rust) for one tokenizer.json.
type goldenFile struct {
	Tokenizer string       `json:"tokenizer"`
	Source    string       `json:"source"`
	SHA256    string       `json:"sha256"`
	VocabSize int          `json:"vocab_size"`
	Cases     []goldenCase `json:"cases"`
}

// goldenCase is a tricky text ("text") or a sequence of random ids
// ("random": base vocabulary, "random_full": any id, even unknown ones).
type goldenCase struct {
	Kind           string `json:"kind"`
	Text           string `json:"text"`
	IDs            []int  `json:"ids"`
	IDsSpecial     []int  `json:"ids_special"`
	Decoded        string `json:"decoded"`
	DecodedSpecial string `json:"decoded_special"`
	Reencoded      []int  `json:"reencoded"`
}

// requireTestdata is true when CI has fetched the real tokenizers
// (make testdata, i.e. go run ./tools/fetchtestdata) and asks tests not to skip without them.
func requireTestdata() bool {
	_, ok := os.LookupEnv("GOBENCH_REQUIRE_TESTDATA")
	return ok
}

// hfDir returns testdata/hf/<name>, skipping the test (or failing it when
// GOBENCH_REQUIRE_TESTDATA is set) if the files have not been fetched.
func hfDir(tb testing.TB, name string) string {
	tb.Helper()
	dir := filepath.Join("testdata", "hf", name)
	if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); err != nil {
		msg := fmt.Sprintf("%s is missing; run make testdata (go run ./tools/fetchtestdata) to fetch it", dir)
		if requireTestdata() {
			tb.Fatalf("GOBENCH_REQUIRE_TESTDATA is set but %s", msg)
		}
		tb.Skip(msg)
	}
	return dir
}

// namedTokenizer is the built-in tokenizer for "builtin", else the one in
// testdata/hf/<name> (hfDir).
func namedTokenizer(tb testing.TB, name string) Tokenizer {
	tb.Helper()
	if name == "builtin" {
		return Builtin()
	}
	tok, err := Load(hfDir(tb, name))
	if err != nil {
		tb.Fatal(err)
	}
	return tok
}

func readGolden(tb testing.TB, name string) *goldenFile {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "golden", name+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	var g goldenFile
	if err := json.Unmarshal(data, &g); err != nil {
		tb.Fatalf("golden %s: %v", name, err)
	}
	return &g
}

// checkSHA fails if the tokenizer file is not the one the golden file was
// made from, which would make every mismatch below meaningless.
func checkSHA(tb testing.TB, file, want string) {
	tb.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != want {
		tb.Fatalf("%s has sha256 %s but the golden file was made from %s; rerun tools/tokenizer-golden", file, got, want)
	}
}

// withoutCleanup returns a copy of tok that does not apply
// clean_up_tokenization_spaces, because the oracle (HF tokenizers) does not.
func withoutCleanup(tok Tokenizer) *hfTokenizer {
	c := *tok.(*hfTokenizer)
	c.cleanup = false
	return &c
}

func TestGolden(t *testing.T) {
	tests := []struct {
		name    string
		load    func(t *testing.T) (Tokenizer, string)
		cleanup bool // clean_up_tokenization_spaces in the config
	}{
		{"builtin", func(t *testing.T) (Tokenizer, string) {
			return Builtin(), filepath.Join("builtin", "tokenizer.json")
		}, false},
		{"unit_basic", loadUnit("basic"), false},
		{"unit_legacy_merges", loadUnit("legacy_merges"), false},
		{"unit_gpt2", loadUnit("gpt2"), false},
		{"unit_regex_split", loadUnit("regex_split"), false},
		{"qwen3", func(t *testing.T) (Tokenizer, string) { return loadHF(t, "qwen3") }, false},
		{"llama3", func(t *testing.T) (Tokenizer, string) { return loadHF(t, "llama3") }, true},
		{"mistral", func(t *testing.T) (Tokenizer, string) { return loadHF(t, "mistral") }, false},
		{"mistral_metaspace", func(t *testing.T) (Tokenizer, string) { return loadHF(t, "mistral-metaspace") }, false},
		{"bert", func(t *testing.T) (Tokenizer, string) { return loadHF(t, "bert") }, true},
		{"unit_metaspace_bpe", loadUnit("metaspace_bpe"), false},
		{"unit_metaspace_split", loadUnit("metaspace_split"), false},
		{"unit_wordpiece", loadUnit("wordpiece"), false},
		{"unit_bpe_suffix", loadUnit("bpe_suffix"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := readGolden(t, tc.name)
			tok, file := tc.load(t)
			checkSHA(t, file, g.SHA256)
			if got := tok.VocabSize(); got != g.VocabSize {
				t.Errorf("VocabSize() = %d, want %d", got, g.VocabSize)
			}
			runGolden(t, withoutCleanup(tok), g)
			checkCleanup(t, tok, g, tc.cleanup)
		})
	}
}

// loadUnit loads a hand-made tokenizer of testdata/unit.
func loadUnit(name string) func(t *testing.T) (Tokenizer, string) {
	return func(t *testing.T) (Tokenizer, string) {
		file := filepath.Join("testdata", "unit", name+".json")
		tok, err := Load(file)
		if err != nil {
			t.Fatal(err)
		}
		return tok, file
	}
}

func loadHF(t *testing.T, name string) (Tokenizer, string) {
	dir := hfDir(t, name)
	tok, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return tok, filepath.Join(dir, "tokenizer.json")
}

// runGolden compares every case exactly and reports the totals, so a
// regression shows how much broke and not only the first failure.
func runGolden(t *testing.T, tok Tokenizer, g *goldenFile) {
	counts := map[string][2]int{} // kind -> matched, total
	for i, c := range g.Cases {
		ok := true
		fail := func(format string, args ...any) {
			ok = false
			t.Errorf("case %d (%s): "+format, append([]any{i, c.Kind}, args...)...)
		}
		switch c.Kind {
		case "text":
			if got := tok.Encode(c.Text, false); !slices.Equal(got, c.IDs) {
				fail("Encode(%q, false)\n got %v\nwant %v", c.Text, got, c.IDs)
			}
			if got := tok.Encode(c.Text, true); !slices.Equal(got, c.IDsSpecial) {
				fail("Encode(%q, true)\n got %v\nwant %v", c.Text, got, c.IDsSpecial)
			}
			if got := tok.Decode(c.IDs); got != c.Decoded {
				fail("Decode(%v) = %q, want %q", c.IDs, got, c.Decoded)
			}
			if got := tok.Decode(c.IDsSpecial); got != c.DecodedSpecial {
				fail("Decode(%v) = %q, want %q", c.IDsSpecial, got, c.DecodedSpecial)
			}
		default:
			if got := tok.Decode(c.IDs); got != c.Decoded {
				fail("Decode(%v) = %q, want %q", c.IDs, got, c.Decoded)
			}
			if got := tok.Encode(c.Decoded, false); !slices.Equal(got, c.Reencoded) {
				fail("Encode(%q, false)\n got %v\nwant %v", c.Decoded, got, c.Reencoded)
			}
		}
		n := counts[c.Kind]
		n[1]++
		if ok {
			n[0]++
		}
		counts[c.Kind] = n
	}
	for _, kind := range []string{"text", "random", "random_full"} {
		t.Logf("%s: %s %d/%d cases match HF exactly", g.Tokenizer, kind, counts[kind][0], counts[kind][1])
	}
}
