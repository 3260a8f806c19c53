package tokenizer

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/gobench/gobench/internal/jsonscan"
)

// model.vocab and model.merges are most of a tokenizer.json (11 MB for
// Qwen3, 150k entries each). encoding/json validates and re-scans them once
// per nesting level and goes through reflection for every entry, which made
// loading take about half a second; these two parsers read exactly the
// shapes HF writes, in one pass. They accept only valid JSON (buildFromJSON
// validates the rest of the file and relies on it).

// scanner reads JSON from data.
type scanner struct {
	data []byte
	pos  int
}

func (s *scanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (s *scanner) peek() byte {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return 0
	}
	return s.data[s.pos]
}

func (s *scanner) errorf(format string, args ...any) error {
	return fmt.Errorf("at byte %d: %s", s.pos, fmt.Sprintf(format, args...))
}

func (s *scanner) expect(c byte) error {
	if s.peek() != c {
		return s.errorf("want %q", c)
	}
	s.pos++
	return nil
}

// str reads a JSON string. Lone surrogates become U+FFFD as with
// encoding/json; raw bytes that are not UTF-8 are an error.
func (s *scanner) str() (string, error) {
	b, err := s.appendStr(nil)
	return string(b), err
}

// appendStr is str appending the string's bytes to dst, so that the
// vocabulary's 150k strings can share one allocation (see keyArena). Raw
// bytes that are not UTF-8 are an error (Hugging Face's loader refuses such
// a file), where jsonscan would make them U+FFFD.
func (s *scanner) appendStr(dst []byte) ([]byte, error) {
	if err := s.expect('"'); err != nil {
		return dst, err
	}
	start := s.pos
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			raw := s.data[start:s.pos]
			s.pos++
			if !utf8.Valid(raw) {
				return dst, s.errorf("string is not valid UTF-8")
			}
			return append(dst, raw...), nil
		case c == '\\':
			return s.escaped(start-1, dst)
		case c < 0x20:
			return dst, s.errorf("control character in string")
		}
		s.pos++
	}
	return dst, s.errorf("unterminated string")
}

// escaped reads a string that has escapes, from its opening quote, with
// package jsonscan (Str, then AppendText), which decodes them as the
// stream events and ShareGPT files are decoded. Most of the file's strings
// have none and stay on appendStr's loop: going through jsonscan for every
// one made BenchmarkLoad/qwen3 5-9 % slower in alternated runs.
func (s *scanner) escaped(quote int, dst []byte) ([]byte, error) {
	js := jsonscan.At(s.data, quote)
	raw, _, err := js.Str()
	if err != nil {
		return dst, err
	}
	if !utf8.Valid(raw) {
		return dst, s.errorf("string is not valid UTF-8")
	}
	s.pos = js.Offset()
	return jsonscan.AppendText(dst, raw, true), nil
}

// integer reads a non-negative JSON integer.
func (s *scanner) integer() (int, error) {
	s.skipSpace()
	start := s.pos
	for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
		s.pos++
	}
	v, err := strconv.Atoi(string(s.data[start:s.pos]))
	// A leading zero is not JSON (the file's validation relies on these
	// parsers accepting only valid JSON: loadpar.go).
	if err != nil || s.pos-start > 10 || (s.pos-start > 1 && s.data[start] == '0') {
		s.pos = start
		return 0, s.errorf("want a non-negative integer id")
	}
	return v, nil
}

// list calls item for each element of a JSON array.
func (s *scanner) list(item func() error) error {
	if err := s.expect('['); err != nil {
		return err
	}
	if s.peek() == ']' {
		s.pos++
		return nil
	}
	for {
		if err := item(); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return nil
		default:
			return s.errorf("want ',' or ']'")
		}
	}
}

// end checks that only white space follows. (Not peek() != 0: peek's 0
// also stands for a NUL byte, which is data after the value like any
// other.)
func (s *scanner) end() error {
	if s.skipSpace(); s.pos < len(s.data) {
		return s.errorf("unexpected data after the value")
	}
	return nil
}

// keyArena collects many short strings in one buffer and makes them
// substrings of one string at the end: a vocabulary's 150k tokens (and a
// merge list's 300k parts) were as many small allocations, a fifth of the
// parsers' time. The strings share the one allocation, which stays alive
// as long as any of them does; that costs nothing, as the tokens that are
// kept are most of it.
type keyArena struct {
	buf  []byte
	ends []uint32 // end of each string in buf
}

// add appends the JSON string at s.pos.
func (a *keyArena) add(s *scanner) error {
	var err error
	a.buf, err = s.appendStr(a.buf)
	a.ends = append(a.ends, uint32(len(a.buf)))
	return err
}

// last returns the string added last.
func (a *keyArena) last() []byte {
	n := len(a.ends)
	start := uint32(0)
	if n > 1 {
		start = a.ends[n-2]
	}
	return a.buf[start:a.ends[n-1]]
}

// all returns the buffer as a string, without copying it (megabytes of
// memory the process would touch for the first time, at about 15 µs a
// page on a virtual machine): nothing is added to the arena after, so
// the bytes never change.
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

// fastVocab parses model.vocab: {"token": id, ...}. An id above 2^30 is
// an *idRangeError naming the first such token in the file.
func fastVocab(data []byte) (*vocabulary, error) {
	s := &scanner{data: data}
	keys := keyArena{buf: make([]byte, 0, len(data)/2), ends: make([]uint32, 0, len(data)/16)}
	ids := make([]int32, 0, len(data)/16)
	big, bigID := -1, 0 // the first entry whose id is out of range
	vocabulary := func() (*vocabulary, error) {
		if big >= 0 {
			start := uint32(0)
			if big > 0 {
				start = keys.ends[big-1]
			}
			return nil, &idRangeError{string(keys.buf[start:keys.ends[big]]), bigID}
		}
		if err := s.end(); err != nil {
			return nil, err
		}
		return newVocabulary(keys.all(), keys.ends, ids), nil
	}
	if err := s.expect('{'); err != nil {
		return nil, err
	}
	if s.peek() == '}' {
		s.pos++
		return vocabulary()
	}
	for {
		if err := keys.add(s); err != nil {
			return nil, err
		}
		if err := s.expect(':'); err != nil {
			return nil, err
		}
		id, err := s.integer()
		if err != nil {
			return nil, fmt.Errorf("token %q: %w", keys.last(), err)
		}
		if id > 1<<30 && big < 0 {
			big, bigID = len(ids), id
		}
		ids = append(ids, int32(min(id, 1<<30)))
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return vocabulary()
		default:
			return nil, s.errorf("want ',' or '}'")
		}
	}
}

// fastMerges parses model.merges as pairs [["a","b"], ...] or as legacy
// "a b" strings; legacy strings are returned unsplit in legacy.
func fastMerges(data []byte) (pairs [][2]string, legacy []string, err error) {
	pairs, legacy, n, err := fastMergesPrefix(data)
	if err == nil {
		s := &scanner{data: data, pos: n}
		err = s.end()
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
	s := &scanner{data: data}
	// Sized for the usual files, so that the arena is not copied as it
	// grows: their parts' text is a fifth of the member's JSON (Qwen3's:
	// 1.4 of 7.4 MB) and a part takes 8 to 25 bytes of it. HF writes
	// model.merges last but for a few bytes, so data is about the member.
	parts := keyArena{buf: make([]byte, 0, len(data)/4), ends: make([]uint32, 0, len(data)/8)}
	merges, lines := 0, 0
	err = s.list(func() error {
		switch s.peek() {
		case '[':
			if lines > 0 {
				return s.errorf("mixed merge formats")
			}
			k := 0
			err := s.list(func() error {
				if k == 2 {
					return s.errorf("a merge has more than two parts")
				}
				k++
				return parts.add(s)
			})
			if err == nil && k != 2 {
				err = s.errorf("a merge has %d parts, want 2", k)
			}
			merges++
			return err
		case '"':
			if merges > 0 {
				return s.errorf("mixed merge formats")
			}
			lines++
			return parts.add(s)
		default:
			return errors.New("want a list of [\"a\",\"b\"] pairs or of \"a b\" strings")
		}
	})
	if err != nil {
		return nil, nil, 0, err
	}
	if lines > 0 {
		return nil, parts.strings(), s.pos, nil
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
	return pairs, nil, s.pos, nil
}

// skipValue moves past one JSON value without decoding it. It trusts the
// syntax, which the caller has checked with json.Valid. A scalar ends at
// the next ',', '}' or ']' outside any string.
func (s *scanner) skipValue() {
	s.skipSpace()
	depth := 0
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case '"':
			s.skipString()
			if depth == 0 {
				return
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return
			}
			depth--
			if depth == 0 {
				s.pos++
				return
			}
		case ',':
			if depth == 0 {
				return
			}
		}
		s.pos++
	}
}

// skipString moves past the string that starts at s.pos. It jumps from
// quote to quote with bytes.IndexByte, which is much faster than a byte loop
// on the megabytes of a vocabulary; a quote preceded by an odd number of
// backslashes is escaped.
func (s *scanner) skipString() {
	start := s.pos + 1
	s.pos = start
	for {
		i := bytes.IndexByte(s.data[s.pos:], '"')
		if i < 0 {
			s.pos = len(s.data)
			return
		}
		q := s.pos + i
		k := q
		for k > start && s.data[k-1] == '\\' {
			k--
		}
		s.pos = q + 1
		if (q-k)%2 == 0 {
			return
		}
	}
}

// objectFields splits a JSON object into its members' raw values, without
// decoding them, so that only the small members go through encoding/json.
func objectFields(data []byte) (map[string][]byte, error) {
	s := &scanner{data: data}
	return s.object(func(string) { s.skipValue() })
}

// objectFieldsNested is objectFields that also splits the member named
// nested, when it is an object, into its own members in the same pass
// (nil when it is not one), passing over their values with scan.value:
// tokenizer.json's "model" holds nearly all of the file, and skipping it
// once to find its end and again to split it cost a scan of ten megabytes
// on the load's critical path.
func objectFieldsNested(data []byte, nested string, scan *modelScan) (fields, inner map[string][]byte, err error) {
	s := &scanner{data: data}
	fields, err = s.object(func(key string) {
		start := s.pos
		if key != nested || s.peek() != '{' {
			s.skipValue()
			return
		}
		var err error
		if inner, err = s.object(func(key string) { scan.value(s, key) }); err != nil {
			// Leave the error to whoever splits the member itself.
			inner, s.pos = nil, start
			s.skipValue()
		}
	})
	if err != nil {
		return nil, nil, err
	}
	return fields, inner, nil
}

// object splits the object at s.pos into its members' raw values, leaving
// s.pos after it. value moves s.pos from the start of a member's value to
// its end (skipValue, unless the member is parsed on the way).
func (s *scanner) object(value func(key string)) (map[string][]byte, error) {
	fields := map[string][]byte{}
	if err := s.expect('{'); err != nil {
		return nil, err
	}
	if s.peek() == '}' {
		s.pos++
		return fields, nil
	}
	for {
		key, err := s.str()
		if err != nil {
			return nil, err
		}
		if err := s.expect(':'); err != nil {
			return nil, err
		}
		s.skipSpace()
		start := s.pos
		value(key)
		fields[key] = s.data[start:s.pos]
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return fields, nil
		default:
			return nil, s.errorf("want ',' or '}'")
		}
	}
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

// value moves s past the value of the member key of "model", at s.pos.
// A "merges" member that is not a list of merges (JSON that is invalid or
// of another shape) is skipped as any other member and left to
// parseMerges, whose error names what is wrong with the member itself
// (the scan's parse may read past the member's end in invalid JSON).
func (m *modelScan) value(s *scanner, key string) {
	start := s.pos
	if key == "merges" {
		if pairs, lines, n, err := fastMergesPrefix(s.data[start:]); err == nil {
			s.pos += n
			m.merges = scannedMerges{raw: s.data[start:s.pos]}
			m.merges.pairs, m.merges.err = mergePairs(pairs, lines)
			return
		}
	}
	s.skipValue()
	if key == "vocab" && m.vocab != nil {
		m.vocab(s.data[start:s.pos])
	}
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
