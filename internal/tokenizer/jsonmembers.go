package tokenizer

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"unsafe"

	"github.com/gobench/gobench/internal/jsonscan"
)

// model.vocab and model.merges are most of a tokenizer.json (11 MB for
// Qwen3, 150k entries each): they are read with jsonscan in one pass each,
// their strings packed into one arena, where encoding/json would reflect
// over every entry.

// keyArena collects many short strings in one buffer and makes them
// substrings of one string at the end: one allocation for a vocabulary's
// 150k tokens (or a merge list's 300k parts) instead of one each. The
// strings keep the whole buffer alive, which costs nothing: the tokens
// that are kept are most of it.
type keyArena struct {
	buf  []byte
	ends []uint32 // end of each string in buf
}

// add appends the JSON string at s.
func (a *keyArena) add(s *jsonscan.Scanner) error {
	raw, esc, err := s.Str()
	if err != nil {
		return err
	}
	a.addText(jsonscan.AppendText(a.buf, raw, esc))
	return nil
}

// addText takes buf, the arena's buffer with a string appended, as the
// arena's buffer.
func (a *keyArena) addText(buf []byte) {
	a.buf = buf
	a.ends = append(a.ends, uint32(len(a.buf)))
}

// all returns the buffer as a string, without copying it (megabytes the
// process would touch for the first time): nothing is added to the arena
// after, so the bytes never change.
func (a *keyArena) all() string {
	return unsafe.String(unsafe.SliceData(a.buf), len(a.buf))
}

// strings returns the strings added, in order; nothing may be added
// after (see all).
func (a *keyArena) strings() []string {
	all := a.all()
	out := make([]string, len(a.ends))
	start := uint32(0)
	for i, end := range a.ends {
		out[i], start = all[start:end], end
	}
	return out
}

// idRangeError is a token id too large for the tables (and for HF's u32
// ids with room to spare).
type idRangeError struct {
	tok string
	id  int
}

func (e *idRangeError) Error() string {
	return fmt.Sprintf("token %q has id %d, outside [0, 2^30]", e.tok, e.id)
}

// errNotID is the error of a vocabulary value that is not a token id.
var errNotID = errors.New("want a non-negative integer id")

// fastVocab parses model.vocab: {"token": id, ...}. An id above 2^30 is
// an *idRangeError naming the first such token in the file.
func fastVocab(data []byte) (*vocabulary, error) {
	s := jsonscan.New(data)
	keys := keyArena{buf: make([]byte, 0, len(data)/2), ends: make([]uint32, 0, len(data)/16)}
	ids := make([]int32, 0, len(data)/16)
	var big *idRangeError // the first entry whose id is out of range
	err := s.Object(func(key []byte) error {
		keys.addText(append(keys.buf, key...))
		id, err := tokenID(s)
		if err != nil {
			return fmt.Errorf("token %q: %w", key, err)
		}
		if id > 1<<30 && big == nil {
			big = &idRangeError{string(key), id}
		}
		ids = append(ids, int32(min(id, 1<<30)))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if big != nil {
		return nil, big
	}
	if err := s.End(); err != nil {
		return nil, err
	}
	return newVocabulary(keys.all(), keys.ends, ids), nil
}

// tokenID reads a non-negative JSON integer, as HF's u32 ids.
func tokenID(s *jsonscan.Scanner) (int, error) {
	if c := s.Peek(); c < '0' || c > '9' {
		return 0, errNotID
	}
	num, err := s.Number()
	if err != nil {
		return 0, err
	}
	if len(num) > 10 || bytes.ContainsAny(num, ".eE") {
		return 0, errNotID
	}
	return strconv.Atoi(string(num))
}

// fastMerges parses model.merges as pairs [["a","b"], ...] or as legacy
// "a b" strings; legacy strings are returned unsplit in legacy.
func fastMerges(data []byte) (pairs [][2]string, legacy []string, err error) {
	pairs, legacy, n, err := fastMergesPrefix(data)
	if err == nil {
		s := jsonscan.New(data)
		s.Seek(n)
		err = s.End()
	}
	if err != nil {
		return nil, nil, err
	}
	return pairs, legacy, nil
}

// fastMergesPrefix is fastMerges on the list at the start of data, which
// may go on after it: n is the list's length in bytes. The scan of
// tokenizer.json parses model.merges with it where it meets the member
// (see modelScan), before the member's end is known.
func fastMergesPrefix(data []byte) (pairs [][2]string, legacy []string, n int, err error) {
	s := jsonscan.New(data)
	if s.Peek() != '[' {
		return nil, nil, 0, errors.New(`want a list of ["a","b"] pairs or of "a b" strings`)
	}
	// Sized for the usual files, so that the arena is not copied as it
	// grows: their parts' text is a fifth of the member's JSON (Qwen3's:
	// 1.4 of 7.4 MB) and a part takes 8 to 25 bytes of it.
	parts := keyArena{buf: make([]byte, 0, len(data)/4), ends: make([]uint32, 0, len(data)/8)}
	merges, lines := 0, 0
	err = s.Array(func(i int) error {
		switch s.Peek() {
		case '[':
			if lines > 0 {
				return fmt.Errorf("merge %d: a pair after \"a b\" strings", i)
			}
			merges++
			return mergePair(s, &parts, i)
		case '"':
			if merges > 0 {
				return fmt.Errorf("merge %d: an \"a b\" string after pairs", i)
			}
			lines++
			return parts.add(s)
		default:
			return errors.New(`want a list of ["a","b"] pairs or of "a b" strings`)
		}
	})
	if err != nil {
		return nil, nil, 0, err
	}
	if lines > 0 {
		return nil, parts.strings(), s.Offset(), nil
	}
	// The pairs straight from the arena, without a []string of all the
	// parts first (4.8 MB for Qwen3's 151,387 merges).
	all := parts.all()
	pairs = make([][2]string, merges)
	start := uint32(0)
	for i := range pairs {
		mid, end := parts.ends[2*i], parts.ends[2*i+1]
		pairs[i] = [2]string{all[start:mid], all[mid:end]}
		start = end
	}
	return pairs, nil, s.Offset(), nil
}

// mergePair reads merge i, a pair ["a", "b"], into parts.
func mergePair(s *jsonscan.Scanner, parts *keyArena, i int) error {
	k := 0
	err := s.Array(func(int) error {
		if k == 2 {
			return fmt.Errorf("merge %d has more than two parts", i)
		}
		k++
		return parts.add(s)
	})
	if err == nil && k != 2 {
		err = fmt.Errorf("merge %d has %d parts, want 2", i, k)
	}
	return err
}

// objectFields splits a JSON object into its members' raw values, without
// decoding them, so that only the small members go through encoding/json.
func objectFields(data []byte) (map[string][]byte, error) {
	s := jsonscan.New(data)
	fields, err := splitObject(s, data, func(string) error { return s.Skip() })
	if err != nil {
		return nil, err
	}
	return fields, s.End()
}

// objectFieldsNested is objectFields of the whole file that also splits
// the member named nested, when it is an object, into its own members in
// the same pass (nil when it is not one), passing over their values with
// scan.value: tokenizer.json's "model" holds nearly all of the file, and
// skipping it once to find its end and again to split it would scan ten
// megabytes twice on the load's critical path. The scan validates the
// whole file as JSON on the way.
func objectFieldsNested(data []byte, nested string, scan *modelScan) (fields, inner map[string][]byte, err error) {
	s := jsonscan.New(data)
	fields, err = splitObject(s, data, func(key string) error {
		if key != nested {
			return s.Skip()
		}
		inner = nil // the last member counts, as in the fields
		if s.Peek() != '{' {
			return s.Skip()
		}
		var err error
		inner, err = splitObject(s, data, func(key string) error { return scan.value(s, data, key) })
		return err
	})
	if err == nil {
		err = s.End()
	}
	if err != nil {
		return nil, nil, err
	}
	return fields, inner, nil
}

// splitObject splits the object at s, a Scanner of data, into its
// members' raw values. value moves s from the start of a member's value to
// its end (Skip, unless the member is parsed on the way).
func splitObject(s *jsonscan.Scanner, data []byte, value func(key string) error) (map[string][]byte, error) {
	fields := map[string][]byte{}
	err := s.Object(func(key []byte) error {
		s.Peek() // to the value's first byte
		start := s.Offset()
		if err := value(string(key)); err != nil {
			return err
		}
		fields[string(key)] = data[start:s.Offset()]
		return nil
	})
	if err != nil {
		return nil, err
	}
	return fields, nil
}

// modelScan is what the scan of tokenizer.json does with the members of
// "model" besides locating them. model.merges is parsed where the scan
// meets it: skipping it only to find its end, to parse it afterwards,
// read its megabytes twice (7.4 of Qwen3's 11 MB) on the load's critical
// path. model.vocab, which HF writes before it, is handed to vocab as
// soon as its end is known, so that its parse can start while the scan
// goes on into model.merges.
type modelScan struct {
	vocab  func(raw []byte) // called with each "vocab" member; may be nil
	merges scannedMerges    // the last "merges" member that is a list of merges
}

// scannedMerges is a "merges" member parsed during the scan: its raw
// value in the file and what parseMerges makes of it.
type scannedMerges struct {
	raw   []byte
	pairs [][2]string
	err   error
}

// value moves s, a Scanner of data, past the value of the member key of
// "model", at s. A "merges" member that is not a list of merges is
// skipped as any other member and left to parseMerges, whose error names
// what is wrong with the member itself.
func (m *modelScan) value(s *jsonscan.Scanner, data []byte, key string) error {
	start := s.Offset()
	if key == "merges" {
		if pairs, lines, n, err := fastMergesPrefix(data[start:]); err == nil {
			s.Seek(start + n)
			m.merges = scannedMerges{raw: data[start : start+n]}
			m.merges.pairs, m.merges.err = mergePairs(pairs, lines)
			return nil
		}
	}
	if err := s.Skip(); err != nil {
		return err
	}
	if key == "vocab" && m.vocab != nil {
		m.vocab(data[start:s.Offset()])
	}
	return nil
}

// of returns what waits for parseMerges(raw): the scan's parse when raw
// is the member it parsed (the same slice of the file: a later
// duplicate member wins, as in the fields), nil otherwise.
func (p *scannedMerges) of(raw []byte) func() ([][2]string, error) {
	if len(p.raw) == 0 || !sameSlice(p.raw, raw) {
		return nil
	}
	return func() ([][2]string, error) { return p.pairs, p.err }
}

// sameSlice reports whether a and b are the same bytes in memory, not
// only equal ones.
func sameSlice(a, b []byte) bool {
	return len(a) == len(b) && unsafe.SliceData(a) == unsafe.SliceData(b)
}
