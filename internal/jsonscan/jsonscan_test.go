package jsonscan

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestMaxDepth: nesting is valid up to encoding/json's bound and not past
// it, as json.Valid says.
func TestMaxDepth(t *testing.T) {
	for _, depth := range []int{1, maxDepth, maxDepth + 1} {
		for _, open := range []string{"[", `{"a":`} {
			closing := map[string]string{"[": "]", `{"a":`: "}"}[open]
			v := []byte(strings.Repeat(open, depth) + "1" + strings.Repeat(closing, depth))
			s := New(v)
			err := s.Skip()
			if err == nil {
				err = s.End()
			}
			if (err == nil) != json.Valid(v) {
				t.Errorf("depth %d of %q: scanner err %v, json.Valid %v", depth, open, err, json.Valid(v))
			}
		}
	}
}

// FuzzText: a valid JSON string decodes as json.Unmarshal decodes it, and
// Skip takes what json.Valid takes.
func FuzzText(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\"b\n"`, "\"\xe2\x82\"", `"\u00e9\ud800"`, `"\ud83d\ude00x"`, `""`, `[1,{"a":null}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		s := New(raw)
		err := s.Skip()
		if err == nil {
			err = s.End()
		}
		if (err == nil) != json.Valid(raw) {
			t.Fatalf("%q: scanner err %v, json.Valid %v", raw, err, json.Valid(raw))
		}
		if err != nil || len(raw) == 0 || New(raw).Peek() != '"' {
			return
		}
		rs, esc, _ := New(raw).Str()
		var want string
		if err := json.Unmarshal(raw, &want); err != nil || Text(rs, esc) != want {
			t.Fatalf("Text(%q) = %q; json.Unmarshal gives %q, %v", raw, Text(rs, esc), want, err)
		}
	})
}

// TestSpecial checks special's first flagged byte against a byte-by-byte
// search, for every byte value at every position among plain bytes, and
// for words of random bytes, where a borrow may flag later bytes falsely.
func TestSpecial(t *testing.T) {
	t.Parallel()
	isSpecial := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 }
	first := func(b []byte) int {
		for i, c := range b {
			if isSpecial(c) {
				return i
			}
		}
		return -1
	}
	got := func(b []byte) int {
		m := special(binary.LittleEndian.Uint64(b))
		if m == 0 {
			return -1
		}
		return bits.TrailingZeros64(m) >> 3
	}
	for c := range 256 {
		for at := range 8 {
			b := []byte("abcdefgh")
			b[at] = byte(c)
			if want := first(b); got(b) != want {
				t.Fatalf("special(%q) flags byte %d first, want %d", b, got(b), want)
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 8)
	for range 1_000_000 {
		binary.LittleEndian.PutUint64(b, r.Uint64())
		for i := range b {
			// Mostly plain bytes, as in text, so that runs are long.
			if r.IntN(4) != 0 {
				b[i] = 0x20 + byte(r.IntN(0x60))
			}
		}
		if want := first(b); got(b) != want {
			t.Fatalf("special(%q) flags byte %d first, want %d", b, got(b), want)
		}
	}
}

// TestOptStringIn checks that OptStringIn decodes as OptString does, and
// that a known value is the known string itself and costs no allocation.
func TestOptStringIn(t *testing.T) {
	known := []string{"error", "text_completion"}
	for _, in := range []string{`"error"`, `"text_completion"`, `"\u0065rror"`, `"other"`, `""`, `"caf\u00e9"`, "\"\xff\"", `null`, `1`, `{}`, `"unterminated`} {
		want, wantOK, wantErr := New([]byte(in)).OptString()
		got, ok, err := New([]byte(in)).OptStringIn(known)
		if got != want || ok != wantOK || (err == nil) != (wantErr == nil) {
			t.Errorf("OptStringIn(%s) = %q, %v, %v; OptString gives %q, %v, %v", in, got, ok, err, want, wantOK, wantErr)
		}
	}
	data := []byte(`"text_completion"`)
	if allocs := testing.AllocsPerRun(100, func() {
		if v, _, _ := New(data).OptStringIn(known); v != known[1] {
			t.Fatalf("got %q", v)
		}
	}); allocs != 0 {
		t.Errorf("a known value cost %v allocations, want 0", allocs)
	}
}
