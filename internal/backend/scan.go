package backend

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// This file is a small strict JSON scanner used to decode stream events.
//
// Why hand-written: decoding an OpenAI chunk with encoding/json costs about
// 2.2 µs and 12 allocations on this project's 2-core machine, almost half of
// gobench's 5 µs per-event CPU budget, because it reflects over every field of
// every chunk. The events need only a handful of fields, so a scanner that
// validates the whole event (the same grammar as encoding/json: a malformed
// event must still fail the request) but materialises only "choices[0]
// .text|delta.content|message.content", "usage", "error", "metrics", "object"
// and "message" does it in about 0.37 µs and 2 allocations
// (BenchmarkDecodeCompletions vs BenchmarkDecodeReference).
// FuzzDecodeMatchesReference checks it against the encoding/json decoder on
// arbitrary input.

var errSyntax = errors.New("invalid JSON")

type scanner struct {
	d []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.d) {
		switch s.d[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) syntax(what string) error {
	return fmt.Errorf("%w: %s at offset %d", errSyntax, what, s.i)
}

// end fails unless only whitespace is left, as after a top-level value.
// (Not peek() != 0: peek's 0 also stands for a NUL byte, which is trailing
// data like any other; FuzzDecodeMatchesReference found "{}\x00".)
func (s *scanner) end() error {
	if s.ws(); s.i < len(s.d) {
		return s.syntax("trailing data")
	}
	return nil
}

// peek returns the next non-space byte, or 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.d) {
		return s.d[s.i]
	}
	return 0
}

// str scans a string and returns its raw content (between the quotes) and
// whether it has escapes.
func (s *scanner) str() ([]byte, bool, error) {
	if s.peek() != '"' {
		return nil, false, s.syntax("expected string")
	}
	s.i++
	start, esc := s.i, false
	for s.i < len(s.d) {
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

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// text decodes a string's raw content. Invalid UTF-8 becomes U+FFFD per
// byte, as encoding/json does.
func text(raw []byte, esc bool) string {
	if !esc && utf8.Valid(raw) {
		return string(raw)
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			r, n := utf8.DecodeRune(raw[i:])
			out = utf8.AppendRune(out, r) // invalid bytes become U+FFFD, as encoding/json
			i += n
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
	return string(out)
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

// number scans a JSON number and returns its text.
func (s *scanner) number() ([]byte, error) {
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

func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.d) && '0' <= s.d[s.i] && s.d[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

func (s *scanner) literal(lit string) error {
	if len(s.d)-s.i < len(lit) || string(s.d[s.i:s.i+len(lit)]) != lit {
		return s.syntax("bad literal")
	}
	s.i += len(lit)
	return nil
}

// skip scans and discards one value.
func (s *scanner) skip() error {
	switch s.peek() {
	case '{':
		return s.object(func([]byte) error { return s.skip() })
	case '[':
		return s.array(func(int) error { return s.skip() })
	case '"':
		_, _, err := s.str()
		return err
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		_, err := s.number()
		return err
	}
}

// object scans an object, calling fn with each key (raw, unescaped keys are
// compared raw: the keys gobench looks for have no escapes) positioned at
// its value; fn must consume the value.
func (s *scanner) object(fn func(key []byte) error) error {
	if s.peek() != '{' {
		return s.syntax("expected object")
	}
	s.i++
	if s.peek() == '}' {
		s.i++
		return nil
	}
	for {
		key, esc, err := s.str()
		if err != nil {
			return err
		}
		if s.peek() != ':' {
			return s.syntax("expected ':'")
		}
		s.i++
		if esc {
			// An escaped key can still name a field ("\u0074ext" is "text").
			key = []byte(text(key, true))
		}
		if err := fn(key); err != nil {
			return err
		}
		switch s.peek() {
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

// array scans an array, calling fn with each index positioned at the value.
func (s *scanner) array(fn func(i int) error) error {
	if s.peek() != '[' {
		return s.syntax("expected array")
	}
	s.i++
	if s.peek() == ']' {
		s.i++
		return nil
	}
	for n := 0; ; n++ {
		if err := fn(n); err != nil {
			return err
		}
		switch s.peek() {
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

// optString scans a string or null; ok is false for null. Any other type is
// a type error, as encoding/json reports when decoding into *string.
func (s *scanner) optString() (v string, ok bool, err error) {
	switch s.peek() {
	case 'n':
		return "", false, s.literal("null")
	case '"':
		raw, esc, err := s.str()
		return text(raw, esc), true, err
	}
	return "", false, s.typeErr("string")
}

// optInt scans an integer or null.
func (s *scanner) optInt() (v int, ok bool, err error) {
	if s.peek() == 'n' {
		return 0, false, s.literal("null")
	}
	if c := s.peek(); c != '-' && (c < '0' || c > '9') {
		return 0, false, s.typeErr("number")
	}
	num, err := s.number()
	if err != nil {
		return 0, false, err
	}
	n, perr := strconv.Atoi(string(num))
	if perr != nil {
		return 0, false, fmt.Errorf("cannot decode %s into an integer", num)
	}
	return n, true, nil
}

// optFloat scans a number or null.
func (s *scanner) optFloat() (v float64, ok bool, err error) {
	if s.peek() == 'n' {
		return 0, false, s.literal("null")
	}
	if c := s.peek(); c != '-' && (c < '0' || c > '9') {
		return 0, false, s.typeErr("number")
	}
	num, err := s.number()
	if err != nil {
		return 0, false, err
	}
	f, perr := strconv.ParseFloat(string(num), 64)
	if perr != nil {
		return 0, false, fmt.Errorf("cannot decode %s into a float", num)
	}
	return f, true, nil
}

func (s *scanner) typeErr(want string) error {
	return fmt.Errorf("unexpected %q where a %s was expected at offset %d", s.peek(), want, s.i)
}
