package tokenizer

import (
	"encoding/json"
	"os"
	"slices"
	"testing"
)

func TestTmpStress(t *testing.T) {
	for _, name := range []string{"builtin", "qwen3", "llama3"} {
		data, err := os.ReadFile("/tmp/stress-" + name + ".json")
		if err != nil {
			t.Skip()
		}
		var g goldenFile
		if err := json.Unmarshal(data, &g); err != nil {
			t.Fatal(err)
		}
		var tok Tokenizer
		if name == "builtin" {
			tok = Builtin()
		} else {
			tok, _ = Load("testdata/hf/" + name)
		}
		tok = withoutCleanup(tok)
		bad := 0
		for _, c := range g.Cases {
			if c.Kind == "text" {
				if got := tok.Encode(c.Text, false); !slices.Equal(got, c.IDs) {
					bad++
					if bad < 5 {
						t.Errorf("%s %q: got %v want %v", name, c.Text, got, c.IDs)
					}
				}
				if got := tok.Encode(c.Text, true); !slices.Equal(got, c.IDsSpecial) {
					bad++
				}
				if got := tok.Decode(c.IDs); got != c.Decoded {
					bad++
				}
			} else {
				if got := tok.Decode(c.IDs); got != c.Decoded {
					bad++
					if bad < 5 {
						t.Errorf("%s decode %v: got %q want %q", name, c.IDs, got, c.Decoded)
					}
				}
				if got := tok.Encode(c.Decoded, false); !slices.Equal(got, c.Reencoded) {
					bad++
					if bad < 5 {
						t.Errorf("%s reencode %q: got %v want %v", name, c.Decoded, got, c.Reencoded)
					}
				}
			}
		}
		t.Logf("%s: %d cases, %d mismatches", name, len(g.Cases), bad)
	}
}
