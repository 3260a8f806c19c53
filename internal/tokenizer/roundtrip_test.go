package tokenizer

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// roundTripNames are the tokenizers RoundTrip is checked on: every
// decoder and model kind (byte-level BPE, SentencePiece-style BPE with
// the Metaspace decoder, WordPiece), so that the ones without hints are
// checked to fall back too.
var roundTripNames = []string{"builtin", "qwen3", "llama3", "mistral", "mistral-metaspace", "bert"}

// checkRoundTrip fails t unless RoundTrip(tok, ids) equals Decode then
// Encode without special tokens, and returns the ids.
func checkRoundTrip(t *testing.T, tok Tokenizer, ids []int) []int {
	t.Helper()
	text, got := RoundTrip(tok, ids)
	checkDecodeEncode(t, tok, ids, text, got)
	return got
}

// checkRoundTripNext is checkRoundTrip for RoundTripNext after last; it
// also returns the Trip for the next round.
func checkRoundTripNext(t *testing.T, tok Tokenizer, last *Trip, ids []int) ([]int, *Trip) {
	t.Helper()
	text, got, next := RoundTripNext(tok, last, ids)
	checkDecodeEncode(t, tok, ids, text, got)
	return got, next
}

// checkDecodeEncode fails t unless text and got are Decode(ids) and
// Encode of it without special tokens.
func checkDecodeEncode(t *testing.T, tok Tokenizer, ids []int, text string, got []int) {
	t.Helper()
	wantText := tok.Decode(ids)
	want := tok.Encode(wantText, false)
	if text != wantText {
		t.Fatalf("RoundTrip(%v) text = %q, Decode = %q", ids, text, wantText)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("RoundTrip(%v) of %q = %v, Encode = %v", ids, text, got, want)
	}
}

// TestRoundTripEqualsDecodeEncode: RoundTrip gives Decode's text and
// Encode's ids on the id sequences the datasets decode: windows of
// consecutive ids (random), uniform ids over the whole vocabulary with
// the special and added ids and ids that name nothing (prefix_repetition
// and padding), each taken through three round trips cut or padded as
// vLLM's fix-up does, so that the later ones use the piece states the
// earlier ones recorded; and text whose decoded bytes are invalid UTF-8
// (ids of byte fragments, which Qwen3 has thousands of).
func TestRoundTripEqualsDecodeEncode(t *testing.T) {
	for _, name := range roundTripNames {
		t.Run(name, func(t *testing.T) {
			tok := namedTokenizer(t, name)
			WaitBuilt(tok)
			r := rand.New(rand.NewPCG(11, uint64(len(name))))
			vocab := tok.VocabSize()
			all := vocab + 300 // added tokens and ids that name nothing
			// The tokenizers that take no hints are only checked to fall
			// back, which fewer sequences show.
			rounds := 300
			if ht, ok := tok.(*hfTokenizer); !ok || ht.decoder != decodeByteLevel || ht.cleanup {
				rounds = 30
			}
			for i := range rounds {
				n := 1 + r.IntN(400)
				seq := make([]int, n)
				off := r.IntN(vocab)
				for j := range seq {
					switch i % 3 {
					case 0:
						seq[j] = (off + j) % vocab
					case 1:
						seq[j] = r.IntN(all) - 2
					default:
						// Mostly byte fragments: ids whose bytes alone
						// are not valid UTF-8, beside ordinary ones.
						seq[j] = r.IntN(all)
						if r.IntN(3) > 0 {
							seq[j] = fragment(tok, r)
						}
					}
				}
				// Every other sequence takes its later rounds after
				// the last one (RoundTripNext, as the datasets do), and
				// cuts or pads anywhere, not only to its length.
				next := i%2 == 0
				var trip *Trip
				for range 3 {
					if next {
						seq, trip = checkRoundTripNext(t, tok, trip, seq)
					} else {
						seq = checkRoundTrip(t, tok, seq)
					}
					if len(seq) == n && !next {
						break
					}
					m := n
					if next {
						m = 1 + r.IntN(2*n)
					}
					for len(seq) < m {
						seq = append(seq, r.IntN(vocab))
					}
					seq = seq[:m]
				}
			}
			checkRoundTrip(t, tok, nil)
			checkRoundTrip(t, tok, []int{-1, all + 5})
		})
	}
}

// fragment returns a random id whose decoded bytes alone are invalid
// UTF-8, or any id if the first tries find none.
func fragment(tok Tokenizer, r *rand.Rand) int {
	for range 200 {
		id := r.IntN(tok.VocabSize())
		if !utf8.ValidString(tok.Decode([]int{id})) {
			return id
		}
	}
	return r.IntN(tok.VocabSize())
}

// TestRoundTripTakesHints: on a byte-level tokenizer the round trip does
// take pre-tokens as the ids they were decoded from (a change that lost
// the hints would pass the equality tests while giving up the speed). In
// a window of the vocabulary (vLLM's random dataset) over a third of
// the pre-tokens are one id's bytes; after the window's round trip, the round
// trip of its encoding finds most of its pre-tokens by their place, and a
// third, of the same ids, has a piece state for every one it finds.
func TestRoundTripTakesHints(t *testing.T) {
	for _, name := range []string{"builtin", "qwen3"} {
		t.Run(name, func(t *testing.T) {
			ht := namedTokenizer(t, name).(*hfTokenizer)
			ids := make([]int, 1000)
			for i := range ids {
				ids[i] = ht.VocabSize()/2 + i
			}
			h1, enc := ht.roundTripHints(ids)
			h2, enc2 := ht.roundTripHints(enc)
			h3, _ := ht.roundTripHints(enc2)
			t.Logf("found %d/%d/%d of %d/%d/%d pre-tokens, %d/%d/%d with a state, %d/%d/%d anchored", h1.found, h2.found, h3.found,
				h1.pieces, h2.pieces, h3.pieces, h1.known, h2.known, h3.known, h1.anchored, h2.anchored, h3.anchored)
			if h1.found < h1.pieces/3 || h2.found < h2.pieces/2 || h3.found < h3.pieces/2 || h3.known != h3.found {
				t.Error("too few pre-tokens found by their place, or without a state the second time")
			}
		})
	}
}

// TestRoundTripConcurrent: goroutines that take round trips of the same
// windows at once, through a fresh tokenizer's shared piece states and
// anchors, each get Decode then Encode (under -race, the tables' atomics
// are checked too).
func TestRoundTripConcurrent(t *testing.T) {
	for _, name := range []string{"builtin", "qwen3"} {
		t.Run(name, func(t *testing.T) {
			tok := namedTokenizer(t, name)
			vocab := tok.VocabSize()
			seqs := make([][]int, 24)
			for i := range seqs {
				seqs[i] = make([]int, 300)
				for j := range seqs[i] {
					seqs[i][j] = (vocab/3 + 37*(i%4) + j) % vocab
				}
			}
			// Encode alone leaves the round-trip tables untouched.
			want1 := make([][]int, len(seqs))
			want2 := make([][]int, len(seqs))
			for i, s := range seqs {
				want1[i] = tok.Encode(tok.Decode(s), false)
				want2[i] = tok.Encode(tok.Decode(want1[i]), false)
			}
			got1 := make([][]int, len(seqs))
			got2 := make([][]int, len(seqs))
			var wg sync.WaitGroup
			for w := range 4 {
				wg.Go(func() {
					for i := w; i < len(seqs); i += 4 {
						_, got1[i] = RoundTrip(tok, seqs[i])
						_, got2[i] = RoundTrip(tok, got1[i])
					}
				})
			}
			wg.Wait()
			for i := range seqs {
				if !slices.Equal(got1[i], want1[i]) || !slices.Equal(got2[i], want2[i]) {
					t.Fatalf("sequence %d: RoundTrip %v then %v, Decode then Encode %v then %v", i, got1[i], got2[i], want1[i], want2[i])
				}
			}
		})
	}
}

// TestDecodeHintsLossy: the spans of ids whose bytes touch invalid UTF-8
// are dropped, the others are moved by the replacement characters before
// them. Bytes of each id and the expected result worked out by hand:
// U+FFFD is 3 bytes, and a maximal invalid subpart is one replacement.
func TestDecodeHintsLossy(t *testing.T) {
	cases := []struct {
		name       string
		parts      []string // the bytes of ids 0, 1, ...
		wantText   string
		wantIDs    []int32
		wantStarts []int32
	}{
		{
			name:  "a lone continuation byte between two words",
			parts: []string{"ab", "\x80", "cd"},
			// "ab" + U+FFFD + "cd"
			wantText:   "ab\uFFFDcd",
			wantIDs:    []int32{0, -1, 2},
			wantStarts: []int32{0, 2, 5, 7},
		},
		{
			name: "a valid character split over two ids, after a replacement",
			// é is C3 A9: valid, so both ids keep their bytes (no
			// pre-token starts between them), moved by the replacement
			// of FF (1 byte) with U+FFFD (3).
			parts:      []string{"\xff", "\xc3", "\xa9", "a"},
			wantText:   "\uFFFDéa",
			wantIDs:    []int32{-1, 1, 2, 3},
			wantStarts: []int32{0, 3, 4, 5, 6},
		},
		{
			name: "a truncated sequence ending one id, invalid with the next",
			// E4 B8 is a prefix of 中 (E4 B8 AD); "z" ends it: one
			// replacement for the two bytes.
			parts:      []string{"w", "\xe4\xb8", "z", "\xff"},
			wantText:   "w\uFFFDz\uFFFD",
			wantIDs:    []int32{0, -1, 2, -1},
			wantStarts: []int32{0, 1, 4, 5, 8},
		},
		{
			name: "an invalid subpart spread over two ids",
			// F0 9F 98 is a prefix of 😀 (F0 9F 98 80), cut by "!":
			// one replacement for bytes of two ids.
			parts:      []string{"\xf0\x9f", "\x98", "!"},
			wantText:   "\uFFFD!",
			wantIDs:    []int32{-1, -1, 2},
			wantStarts: []int32{0, 0, 3, 4},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := &decodeHints{}
			raw := ""
			for i, p := range c.parts {
				h.ids = append(h.ids, int32(i))
				h.starts = append(h.starts, int32(len(raw)))
				raw += p
			}
			h.starts = append(h.starts, int32(len(raw)))
			text := h.lossy(raw)
			if want := string(appendLossy(nil, raw)); text != want || text != c.wantText {
				t.Fatalf("text %q, appendLossy %q, want %q", text, want, c.wantText)
			}
			if !slices.Equal(h.ids, c.wantIDs) || !slices.Equal(h.starts, c.wantStarts) {
				t.Errorf("ids %v starts %v, want %v %v", h.ids, h.starts, c.wantIDs, c.wantStarts)
			}
		})
	}
}

// FuzzRoundTrip: RoundTrip equals Decode then Encode for any ids, on the
// built-in tokenizer and, when the test data is there, Qwen3's. Each
// pair of input bytes is an id over the vocabulary plus the added ids
// and a few that name nothing.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("hello world"))
	f.Add([]byte{0xff, 0xff, 0x00, 0x01, 0x80, 0x00, 0x12, 0x34})
	f.Add([]byte{})
	toks := []Tokenizer{Builtin()}
	if _, err := os.Stat(filepath.Join("testdata", "hf", "qwen3", "tokenizer.json")); err == nil || requireTestdata() {
		toks = append(toks, namedTokenizer(f, "qwen3"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, tok := range toks {
			span := tok.VocabSize() + 64
			ids := make([]int, 0, len(data)/2)
			for i := 0; i+1 < len(data); i += 2 {
				v := int(data[i])<<8 | int(data[i+1])
				ids = append(ids, (v*7919)%span-2)
			}
			var trip *Trip
			for range 3 {
				ids, trip = checkRoundTripNext(t, tok, trip, ids)
				if len(ids) > 2 {
					ids = ids[:len(ids)-1]
				}
			}
		}
	})
}

// TestNextRoundEqualsDecodeEncode takes prompts of the datasets' length
// through several rounds, each the last one's ids cut anywhere or padded
// with random ids, and checks every round that nextRound takes (the
// next round from the last one's text) against Decode then Encode; it
// must take most of them on the tokenizers it serves.
func TestNextRoundEqualsDecodeEncode(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"builtin", "qwen3"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tok := namedTokenizer(t, name)
			h := tok.(*hfTokenizer)
			WaitBuilt(tok)
			r := rand.New(rand.NewPCG(17, uint64(len(name))))
			vocab := tok.VocabSize()
			rounds, taken := 0, 0
			for i := range 60 {
				seq := sampleIDs(tok, r, i%3, 1024)
				var trip *Trip
				for round := range 6 {
					if round > 0 {
						rounds++
						if text, got, _, ok := h.nextRound(trip, seq); ok {
							taken++
							checkDecodeEncode(t, tok, seq, text, got)
							// A dataset keeps the prompt: it must not
							// keep the last round's longer text alive.
							if shares(text, trip.norm) {
								t.Fatalf("the next round's text lies in the last round's")
							}
						}
					}
					seq, trip = checkRoundTripNext(t, tok, trip, seq)
					if r.IntN(4) == 0 {
						for range 1 + r.IntN(20) {
							seq = append(seq, r.IntN(vocab))
						}
					} else {
						seq = seq[:max(1, len(seq)-r.IntN(len(seq)/4+2))]
					}
				}
			}
			t.Logf("nextRound took %d of %d rounds", taken, rounds)
			if taken < rounds*3/4 {
				t.Errorf("nextRound took %d of %d rounds", taken, rounds)
			}
		})
	}
}

// FuzzNextRound takes a prompt of random ids (uniform, a window of the
// vocabulary or byte fragments, as seed says) through rounds that cut
// or pad the last one's ids as cuts say, and checks every round against
// Decode then Encode: most rounds after the first are nextRound's.
func FuzzNextRound(f *testing.F) {
	f.Add(uint64(1), uint16(300), []byte{3, 0x85, 40})
	f.Add(uint64(2), uint16(1024), []byte{0, 0, 0x90})
	f.Add(uint64(3), uint16(50), []byte{1, 255})
	tok := Builtin()
	if _, err := os.Stat(filepath.Join("testdata", "hf", "qwen3", "tokenizer.json")); err == nil || requireTestdata() {
		tok = namedTokenizer(f, "qwen3")
	}
	f.Fuzz(func(t *testing.T, seed uint64, n uint16, cuts []byte) {
		r := rand.New(rand.NewPCG(seed, 0))
		vocab := tok.VocabSize()
		seq := sampleIDs(tok, r, int(seed%3), 1+int(n)%2048)
		var trip *Trip
		for k := 0; k <= len(cuts) && k < 8; k++ {
			seq, trip = checkRoundTripNext(t, tok, trip, seq)
			if k == len(cuts) {
				break
			}
			// A cut byte below 0x80 cuts that many ids (of the last ones);
			// from 0x80 on it pads with c-0x80 random ids.
			if c := int(cuts[k]); c >= 0x80 {
				for range c - 0x80 {
					seq = append(seq, r.IntN(vocab))
				}
			} else {
				seq = seq[:max(0, len(seq)-c)]
			}
		}
	})
}

// sampleIDs returns n ids of one of the kinds the datasets decode: a
// window of the vocabulary (kind 0), uniform ids (1) or byte fragments
// (2).
func sampleIDs(tok Tokenizer, r *rand.Rand, kind, n int) []int {
	vocab := tok.VocabSize()
	seq := make([]int, n)
	off := r.IntN(vocab)
	for j := range seq {
		switch kind {
		case 0:
			seq[j] = (off + j) % vocab
		case 1:
			seq[j] = r.IntN(vocab)
		default:
			seq[j] = fragment(tok, r)
		}
	}
	return seq
}

// shares reports whether a and b share memory.
func shares(a, b string) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	pa, pb := uintptr(unsafe.Pointer(unsafe.StringData(a))), uintptr(unsafe.Pointer(unsafe.StringData(b)))
	return pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a))
}
