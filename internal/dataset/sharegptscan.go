package dataset

import (
	"bytes"
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
)

// scanShareGPTConversation is shareGPTConversation for the entries it
// understands, without encoding/json, whose Unmarshal scans every byte of
// a conversation twice (validating, then decoding) and took a third of
// sharegpt's generation time. It validates the entry as strictly as
// json.Unmarshal does and reads the same fields, and gives up (ok false,
// and the caller takes json.Unmarshal's path) wherever the two could
// differ: a key that matches a field only when case is ignored (which
// encoding/json accepts) or that has escapes, a field given twice, a
// conversation turn that is not an object, a "conversations" that is not a
// list, nesting deeper than scanMaxDepth. FuzzScanShareGPT compares the
// two paths.
func scanShareGPTConversation(raw []byte) (e shareGPTEntry, keep, ok bool) {
	s := jsonScan{b: raw}
	var turns [2][]byte
	var image, video []byte
	n, seen := 0, 0
	const seenConv, seenImage, seenVideo = 1, 2, 4
	s.ws()
	ok = s.object(func(key []byte) bool {
		var bit int
		switch string(key) {
		case "conversations":
			bit = seenConv
		case "image":
			bit = seenImage
		case "video":
			bit = seenVideo
		default:
			if bytes.EqualFold(key, []byte("conversations")) || bytes.EqualFold(key, []byte("image")) || bytes.EqualFold(key, []byte("video")) {
				return false
			}
			return s.value()
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		switch bit {
		case seenConv:
			return s.turns(func(k int, value []byte) {
				if k < 2 {
					turns[k] = value
				}
				n = k + 1
			})
		case seenImage:
			var valid bool
			image, valid = s.span()
			return valid
		default:
			var valid bool
			video, valid = s.span()
			return valid
		}
	})
	if s.ws(); !ok || s.i != len(s.b) {
		return e, false, false
	}
	if n < 2 {
		return e, false, true
	}
	e.turns = [2]json.RawMessage{bytes.Clone(turns[0]), bytes.Clone(turns[1])}
	e.image, e.video = bytes.Clone(image), bytes.Clone(video)
	e.media = !isNull(e.image) || !isNull(e.video)
	return e, true, true
}

// scanMaxDepth bounds the nesting scanShareGPTConversation follows
// (encoding/json's own bound is 10,000).
const scanMaxDepth = 512

// jsonScan validates JSON (RFC 8259, as encoding/json's scanner accepts
// it: any byte from 0x20 in strings, valid UTF-8 or not) from b[i:].
type jsonScan struct {
	b     []byte
	i     int
	depth int
}

// ws skips whitespace.
func (s *jsonScan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// span scans a value and returns its bytes.
func (s *jsonScan) span() ([]byte, bool) {
	s.ws()
	start := s.i
	if !s.value() {
		return nil, false
	}
	return s.b[start:s.i], true
}

// value scans one value, leading whitespace included.
func (s *jsonScan) value() bool {
	s.ws()
	if s.i == len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '{':
		return s.object(func([]byte) bool { return s.value() })
	case '[':
		return s.array(s.value)
	case '"':
		_, _, _, ok := s.str()
		return ok
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		return s.number()
	}
}

// object scans an object at s.i, calling member with each key (when it
// has no escapes; an escaped key fails the scan) with s.i at the colon's
// end; member scans the value.
func (s *jsonScan) object(member func(key []byte) bool) bool {
	if s.i == len(s.b) || s.b[s.i] != '{' || s.depth == scanMaxDepth {
		return false
	}
	s.depth++
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		s.depth--
		return true
	}
	for {
		s.ws()
		start, end, plain, ok := s.str()
		if !ok || !plain {
			return false
		}
		s.ws()
		if s.i == len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		if !member(s.b[start:end]) {
			return false
		}
		if done, ok := s.after('}'); done || !ok {
			return ok
		}
	}
}

// array scans an array at s.i, calling elem for each element.
func (s *jsonScan) array(elem func() bool) bool {
	if s.i == len(s.b) || s.b[s.i] != '[' || s.depth == scanMaxDepth {
		return false
	}
	s.depth++
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		s.depth--
		return true
	}
	for {
		if !elem() {
			return false
		}
		if done, ok := s.after(']'); done || !ok {
			return ok
		}
	}
}

// after scans what follows a member or an element: a comma (not done)
// or the container's closing byte (done).
func (s *jsonScan) after(closing byte) (done, ok bool) {
	s.ws()
	if s.i == len(s.b) {
		return false, false
	}
	switch s.b[s.i] {
	case ',':
		s.i++
		return false, true
	case closing:
		s.i++
		s.depth--
		return true, true
	}
	return false, false
}

// turns scans the "conversations" list: objects, whose "value" member
// it hands to turn with the object's index (nil when it has none).
func (s *jsonScan) turns(turn func(k int, value []byte)) bool {
	s.ws()
	k := 0
	return s.array(func() bool {
		s.ws()
		var value []byte
		seen := false
		ok := s.object(func(key []byte) bool {
			if string(key) != "value" {
				if bytes.EqualFold(key, []byte("value")) {
					return false
				}
				return s.value()
			}
			if seen {
				return false
			}
			seen = true
			var ok bool
			value, ok = s.span()
			return ok
		})
		turn(k, value)
		k++
		return ok
	})
}

// str scans a string at s.i and returns the bounds of its contents and
// whether it has no escapes; ok is false for an invalid string.
func (s *jsonScan) str() (start, end int, plain, ok bool) {
	if s.i == len(s.b) || s.b[s.i] != '"' {
		return 0, 0, false, false
	}
	s.i++
	start, plain = s.i, true
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			end = s.i
			s.i++
			return start, end, plain, true
		case c == '\\':
			plain = false
			if s.i+1 == len(s.b) {
				return 0, 0, false, false
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if _, ok := hex4(s.b[s.i+2:]); !ok {
					return 0, 0, false, false
				}
				s.i += 6
			default:
				return 0, 0, false, false
			}
		case c < 0x20:
			return 0, 0, false, false
		default:
			s.i++
		}
	}
	return 0, 0, false, false
}

// literal scans true, false or null.
func (s *jsonScan) literal(word string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		return false
	}
	s.i += len(word)
	return true
}

// number scans a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *jsonScan) number() bool {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i == len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i == len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
	}
	s.i = i
	return true
}

// unquoteJSON returns the value of the JSON string raw when it holds
// nothing unusual: no control character, no invalid UTF-8 (which
// json.Unmarshal replaces), no escaped surrogate, only the escapes JSON
// defines. Most turns of a ShareGPT file are such strings (with escaped
// newlines and quotes), and json.Unmarshal would scan them twice
// (validating, then unquoting). The rest, rare, are left to it
// (FuzzUnquoteJSON compares the two).
func unquoteJSON(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\':
			if i+1 == len(body) {
				return "", false
			}
			e := body[i+1]
			switch e {
			case '"', '\\', '/':
			case 'b':
				e = '\b'
			case 'f':
				e = '\f'
			case 'n':
				e = '\n'
			case 'r':
				e = '\r'
			case 't':
				e = '\t'
			case 'u':
				r, ok := hex4(body[i+2:])
				if !ok || utf16.IsSurrogate(r) {
					return "", false
				}
				out = utf8.AppendRune(out, r)
				i += 6
				continue
			default:
				return "", false
			}
			out = append(out, e)
			i += 2
		case c < 0x20 || c == '"':
			return "", false
		default:
			out = append(out, c)
			i++
		}
	}
	if !utf8.Valid(out) {
		return "", false
	}
	return string(out), true
}

// hex4 reads the four hex digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
