// Package jsonscan is a small strict JSON scanner: it validates a value
// with encoding/json's grammar and limits while the caller reads only the
// members it needs, each where it lies.
//
// Why hand-written: decoding an OpenAI stream chunk with encoding/json costs
// about 2.2 µs and 12 allocations on this project's 2-core machine, almost
// half of gobench's per-event CPU budget, because it reflects over every
// field of every chunk; the backend's decoders read a handful of fields in
// about 0.4 µs and 1 allocation, the token's text (backend's BenchmarkDecodeCompletions vs
// BenchmarkDecodeReference; 0.54-0.65 µs in the same runs before strings
// were scanned eight bytes at a time). And json.Unmarshal scans every byte twice,
// validating and then decoding, which was a third of the sharegpt dataset's
// generation time. The tokenizer reads tokenizer.json with it too. backend's
// FuzzDecodeMatchesReference, dataset's FuzzScanShareGPT and tokenizer's
// FuzzValidationEqualsJSONValid check the scanner against encoding/json on
// arbitrary input.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrSyntax is the error of invalid JSON.
var ErrSyntax = errors.New("invalid JSON")

// maxDepth is encoding/json's bound on nesting, which makes deeper
// values invalid.
const maxDepth = 10000

// Scanner reads one JSON value from a byte slice.
type Scanner struct {
	d     []byte
	i     int
	depth int // open objects and arrays
}

// New returns a Scanner of data.
func New(data []byte) *Scanner { return &Scanner{d: data} }

// Offset is the position after what the Scanner has read.
func (s *Scanner) Offset() int { return s.i }

// Seek moves the Scanner to offset off of its data, at the nesting it is
// at: past a value read with a Scanner of its own (the tokenizer reads
// model.merges so, where it lies, and skips it if it is of another shape).
func (s *Scanner) Seek(off int) { s.i = off }

func (s *Scanner) ws() {
	for s.i < len(s.d) {
		switch s.d[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *Scanner) syntax(what string) error {
	return fmt.Errorf("%w: %s at offset %d", ErrSyntax, what, s.i)
}

// End fails unless only whitespace is left, as after a top-level value.
// (Not peek() != 0: peek's 0 also stands for a NUL byte, which is trailing
// data like any other; FuzzDecodeMatchesReference found "{}\x00".)
func (s *Scanner) End() error {
	if s.ws(); s.i < len(s.d) {
		return s.syntax("trailing data")
	}
	return nil
}

// Peek returns the next non-space byte, or 0 at the end.
func (s *Scanner) Peek() byte {
	s.ws()
	if s.i < len(s.d) {
		return s.d[s.i]
	}
	return 0
}

// Str scans a string and returns its raw content (between the quotes) and
// whether it has escapes.
func (s *Scanner) Str() ([]byte, bool, error) {
	if s.Peek() != '"' {
		return nil, false, s.syntax("expected string")
	}
	s.i++
	start, esc := s.i, false
	for s.i < len(s.d) {
		// Eight bytes at a time up to the first that ends the run of
		// plain ones: a stream chunk is mostly strings, and this halves
		// the scan of a chunk's (BenchmarkDecodeCompletions).
		for s.i+8 <= len(s.d) {
			if m := special(binary.LittleEndian.Uint64(s.d[s.i:])); m != 0 {
				s.i += bits.TrailingZeros64(m) >> 3
				break
			}
			s.i += 8
		}
		if s.i == len(s.d) {
			break
		}
		c := s.d[s.i]
		switch {
		case c == '"':
			raw := s.d[start:s.i]
			s.i++
			return raw, esc, nil
		case c == '\\':
			esc = true
			if s.i+1 >= len(s.d) {
				return nil, false, s.syntax("unterminated escape")
			}
			switch s.d[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.d) {
					return nil, false, s.syntax("short \\u escape")
				}
				for _, h := range s.d[s.i+2 : s.i+6] {
					if !isHex(h) {
						return nil, false, s.syntax("bad \\u escape")
					}
				}
				s.i += 6
			default:
				return nil, false, s.syntax("bad escape")
			}
		case c < 0x20:
			return nil, false, s.syntax("control character in string")
		default:
			s.i++
		}
	}
	return nil, false, s.syntax("unterminated string")
}

// Byte-wise masks for special (SWAR: each byte of a word tested at once).
const (
	ones   = 0x0101010101010101
	highs  = 0x8080808080808080
	quotes = '"' * ones
	slashs = '\\' * ones
	spaces = ' ' * ones
)

// special flags the bytes of w (eight string bytes, little-endian) that
// end a run of plain string bytes: a quote, a backslash or a control
// character. Its lowest set bit lies in the first such byte; bits above it
// may be false (a borrow runs on), which is why only the lowest is used.
func special(w uint64) uint64 {
	q, b := w^quotes, w^slashs
	return ((q - ones) &^ q & highs) | ((b - ones) &^ b & highs) | ((w - spaces) &^ w & highs)
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// Text decodes a string's raw content (Str's). Invalid UTF-8 becomes U+FFFD per
// byte, as encoding/json does.
func Text(raw []byte, esc bool) string {
	if !esc && utf8.Valid(raw) {
		return string(raw)
	}
	return string(appendDecoded(make([]byte, 0, len(raw)), raw))
}

// AppendText is Text appending to out, for a caller that packs many
// strings into one buffer.
func AppendText(out, raw []byte, esc bool) []byte {
	if !esc && utf8.Valid(raw) {
		return append(out, raw...)
	}
	return appendDecoded(out, raw)
}

// appendDecoded appends raw with its escapes decoded and invalid UTF-8
// made U+FFFD, for Text and AppendText once their fast path (no escape,
// valid UTF-8) has been ruled out.
func appendDecoded(out, raw []byte) []byte {
	for i := 0; i < len(raw); {
		if raw[i] != '\\' {
			// The run up to the next escape, whole when it is valid
			// UTF-8 (most text), else rune by rune.
			j := len(raw)
			if k := bytes.IndexByte(raw[i:], '\\'); k >= 0 {
				j = i + k
			}
			if run := raw[i:j]; utf8.Valid(run) {
				out = append(out, run...)
			} else {
				for len(run) > 0 {
					r, n := utf8.DecodeRune(run)
					out = utf8.AppendRune(out, r) // invalid bytes become U+FFFD, as encoding/json
					run = run[n:]
				}
			}
			i = j
			continue
		}
		switch raw[i+1] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(raw[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) {
				if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					if r2 := utf16.DecodeRune(r, hex4(raw[i+2:i+6])); r2 != utf8.RuneError {
						out = utf8.AppendRune(out, r2)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		default: // '"', '\\', '/'
			out = append(out, raw[i+1])
		}
		i += 2
	}
	return out
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c <= '9':
			r |= rune(c - '0')
		case c >= 'a':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// Number scans a JSON number and returns its text.
func (s *Scanner) Number() ([]byte, error) {
	s.ws()
	start := s.i
	if s.i < len(s.d) && s.d[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.d) && s.d[s.i] == '0':
		s.i++
	case s.i < len(s.d) && '1' <= s.d[s.i] && s.d[s.i] <= '9':
		for s.i < len(s.d) && '0' <= s.d[s.i] && s.d[s.i] <= '9' {
			s.i++
		}
	default:
		return nil, s.syntax("bad number")
	}
	if s.i < len(s.d) && s.d[s.i] == '.' {
		s.i++
		if !s.digits() {
			return nil, s.syntax("bad fraction")
		}
	}
	if s.i < len(s.d) && (s.d[s.i] == 'e' || s.d[s.i] == 'E') {
		s.i++
		if s.i < len(s.d) && (s.d[s.i] == '+' || s.d[s.i] == '-') {
			s.i++
		}
		if !s.digits() {
			return nil, s.syntax("bad exponent")
		}
	}
	return s.d[start:s.i], nil
}

func (s *Scanner) digits() bool {
	start := s.i
	for s.i < len(s.d) && '0' <= s.d[s.i] && s.d[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

// Literal scans lit (true, false or null).
func (s *Scanner) Literal(lit string) error {
	if len(s.d)-s.i < len(lit) || string(s.d[s.i:s.i+len(lit)]) != lit {
		return s.syntax("bad literal")
	}
	s.i += len(lit)
	return nil
}

// enter opens an object or array, refusing nesting deeper than
// encoding/json allows.
func (s *Scanner) enter() error {
	if s.depth == maxDepth {
		return s.syntax("exceeded max depth")
	}
	s.depth++
	return nil
}

// SkipRaw scans one value and returns its bytes.
func (s *Scanner) SkipRaw() ([]byte, error) {
	s.ws()
	start := s.i
	err := s.Skip()
	return s.d[start:s.i], err
}

// Skip scans and discards one value.
func (s *Scanner) Skip() error {
	switch s.Peek() {
	case '{':
		return s.Object(func([]byte) error { return s.Skip() })
	case '[':
		return s.Array(func(int) error { return s.Skip() })
	case '"':
		_, _, err := s.Str()
		return err
	case 't':
		return s.Literal("true")
	case 'f':
		return s.Literal("false")
	case 'n':
		return s.Literal("null")
	default:
		_, err := s.Number()
		return err
	}
}

// Object scans an object, calling fn with each key (its escapes decoded,
// as encoding/json matches "\u0074ext" to "text") positioned at its value;
// fn must consume the value.
func (s *Scanner) Object(fn func(key []byte) error) error {
	if s.Peek() != '{' {
		return s.syntax("expected object")
	}
	if err := s.enter(); err != nil {
		return err
	}
	err := s.members(fn)
	s.depth--
	return err
}

// members scans an object's members after its '{' has been peeked.
func (s *Scanner) members(fn func(key []byte) error) error {
	s.i++
	if s.Peek() == '}' {
		s.i++
		return nil
	}
	for {
		key, esc, err := s.Str()
		if err != nil {
			return err
		}
		if s.Peek() != ':' {
			return s.syntax("expected ':'")
		}
		s.i++
		if esc {
			// An escaped key can still name a field ("\u0074ext" is "text").
			key = AppendText(nil, key, true)
		}
		if err := fn(key); err != nil {
			return err
		}
		switch s.Peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return s.syntax("expected ',' or '}'")
		}
	}
}

// Array scans an array, calling fn with each index positioned at the value.
func (s *Scanner) Array(fn func(i int) error) error {
	if s.Peek() != '[' {
		return s.syntax("expected array")
	}
	if err := s.enter(); err != nil {
		return err
	}
	err := s.elements(fn)
	s.depth--
	return err
}

// elements scans an array's elements after its '[' has been peeked.
func (s *Scanner) elements(fn func(i int) error) error {
	s.i++
	if s.Peek() == ']' {
		s.i++
		return nil
	}
	for n := 0; ; n++ {
		if err := fn(n); err != nil {
			return err
		}
		switch s.Peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return s.syntax("expected ',' or ']'")
		}
	}
}

// OptString scans a string or null; ok is false for null. Any other type is
// a type error, as encoding/json reports when decoding into *string.
func (s *Scanner) OptString() (v string, ok bool, err error) { return s.OptStringIn(nil) }

// OptStringIn is OptString for a value that is usually one of known: such
// a value comes back as the known string itself instead of a copy, so a
// stream's per-event fields ("object", a Responses event's "type") cost
// no allocation. Any other value is decoded as OptString decodes it.
func (s *Scanner) OptStringIn(known []string) (v string, ok bool, err error) {
	switch s.Peek() {
	case 'n':
		return "", false, s.Literal("null")
	case '"':
		raw, esc, err := s.Str()
		if !esc {
			// Without an escape, raw is the text itself when it is one
			// of known (valid UTF-8, so Text would not change it).
			for _, k := range known {
				if string(raw) == k {
					return k, true, err
				}
			}
		}
		return Text(raw, esc), true, err
	}
	return "", false, s.typeErr("string")
}

// OptInt scans an integer or null.
func (s *Scanner) OptInt() (v int, ok bool, err error) {
	if s.Peek() == 'n' {
		return 0, false, s.Literal("null")
	}
	if c := s.Peek(); c != '-' && (c < '0' || c > '9') {
		return 0, false, s.typeErr("number")
	}
	num, err := s.Number()
	if err != nil {
		return 0, false, err
	}
	n, perr := strconv.Atoi(string(num))
	if perr != nil {
		return 0, false, fmt.Errorf("cannot decode %s into an integer", num)
	}
	return n, true, nil
}

// OptFloat scans a number or null.
func (s *Scanner) OptFloat() (v float64, ok bool, err error) {
	if s.Peek() == 'n' {
		return 0, false, s.Literal("null")
	}
	if c := s.Peek(); c != '-' && (c < '0' || c > '9') {
		return 0, false, s.typeErr("number")
	}
	num, err := s.Number()
	if err != nil {
		return 0, false, err
	}
	f, perr := strconv.ParseFloat(string(num), 64)
	if perr != nil {
		return 0, false, fmt.Errorf("cannot decode %s into a float", num)
	}
	return f, true, nil
}

func (s *Scanner) typeErr(want string) error {
	return fmt.Errorf("unexpected %q where a %s was expected at offset %d", s.Peek(), want, s.i)
}
