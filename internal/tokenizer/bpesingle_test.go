package tokenizer

import (
	"math/rand/v2"
	"testing"
)

// TestRawTokensFind: the raw-bytes table finds every token of the Qwen3
// vocabulary with its id, and finds no word that is not a token: the
// vocabulary's tokens with a byte changed or cut or grown, and random
// strings.
func TestRawTokensFind(t *testing.T) {
	t.Parallel()
	tok, err := Load(hfDir(t, "qwen3"))
	if err != nil {
		t.Fatal(err)
	}
	h := tok.(*hfTokenizer)
	words := h.model.(*bpeModel).singles.words.get()
	want := map[string]int32{}
	for id := range h.vocabSize {
		if raw := h.decodeBytes[h.decodeOff[id]:h.decodeOff[id+1]]; len(raw) > 0 {
			want[string(raw)] = int32(id)
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	check := func(w string) {
		t.Helper()
		id, _, _, ok := words.find(w)
		wantID, wantOK := want[w]
		if ok != wantOK || (ok && id != wantID) {
			t.Fatalf("find(%q) = %d, %v; want %d, %v", w, id, ok, wantID, wantOK)
		}
	}
	for w := range want {
		check(w)
		b := []byte(w)
		b[r.IntN(len(b))] ^= byte(1 + r.IntN(255))
		check(string(b))
		check(w[:len(w)-1])
		check(w + w[:1])
	}
	for range 100_000 {
		b := make([]byte, 1+r.IntN(12))
		for i := range b {
			b[i] = "abcdeint \xe4\xb8"[r.IntN(11)]
		}
		check(string(b))
	}
}
