// Package jsonlist reads the elements of a JSON list from a stream one at a
// time, bounded in size and located by line and column, so that a large
// dataset file need not be held in memory whole.
package jsonlist

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/gobench/gobench/internal/readlimit"
)

// ErrTooLarge is Element's error when an element is longer than the limit.
var ErrTooLarge = errors.New("value too large")

// New returns a Reader of in, which messages call name, that fails with
// ErrTooLarge on an element longer than limit bytes.
func New(in io.Reader, name string, limit int) *Reader {
	return &Reader{r: bufio.NewReaderSize(in, 64<<10), name: name, limit: limit, line: 1, col: 1}
}

// Reader reads the elements of a JSON list from a stream one at a time,
// none longer than limit bytes (nor a run of whitespace), knowing the line
// and column of every byte. It only finds where each element ends
// (strings, escapes, nesting); json.Unmarshal checks the element itself.
// encoding/json's Decoder buffers an element the same way, but once tokens
// have been read its syntax errors no longer give the offset in the input,
// and messages must give the line.
type Reader struct {
	r         *bufio.Reader
	name      string // names the input in messages
	limit     int
	line, col int    // of the next byte, from 1
	buf       []byte // the current element, reused
}

// Value is one element of the list and where it starts.
type Value struct {
	// Data is the element's bytes, valid until the next call of Element.
	Data []byte
	// Line and Col locate the element's first byte, from 1.
	Line, Col int
}

// read consumes one byte.
func (l *Reader) read() (byte, error) {
	c, err := l.r.ReadByte()
	if err != nil {
		return 0, err
	}
	if c == '\n' {
		l.line, l.col = l.line+1, 1
	} else {
		l.col++
	}
	return c, nil
}

// nonSpace consumes JSON whitespace (at most limit bytes of it) and the
// byte after, which it returns with its position.
func (l *Reader) nonSpace() (c byte, line, col int, err error) {
	for n := 0; ; n++ {
		if n > l.limit {
			return 0, line, col, fmt.Errorf("%s:%d:%d: more than %s of whitespace", l.name, line, col, readlimit.Size(int64(l.limit)))
		}
		line, col = l.line, l.col
		if c, err = l.read(); err != nil || !isSpace(c) {
			return c, line, col, err
		}
	}
}

// Open consumes the list's '['; hint says what the input should be.
func (l *Reader) Open(hint string) error {
	c, line, col, err := l.nonSpace()
	switch {
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%s: %s: the file is empty", l.name, hint)
	case err != nil:
		return l.readError(err)
	case c != '[':
		return fmt.Errorf("%s:%d:%d: %s: it starts with %s, not '['", l.name, line, col, hint, readlimit.Quote(c))
	}
	return nil
}

// Element returns the next element, or ok false after the closing ']'.
// It fails with ErrTooLarge (and the element's start in v) when the
// element is longer than the limit.
func (l *Reader) Element(first bool) (v Value, ok bool, err error) {
	c, line, col, err := l.nonSpace()
	if err == nil && !first && c == ',' {
		c, line, col, err = l.nonSpace()
		if err == nil && c == ']' {
			return v, false, fmt.Errorf("%s:%d:%d: invalid character ']' after a comma", l.name, line, col)
		}
	} else if err == nil && !first && c != ']' {
		return v, false, fmt.Errorf("%s:%d:%d: invalid character %s after a list element", l.name, line, col, readlimit.Quote(c))
	}
	if err != nil || c == ']' {
		return v, false, l.readError(err)
	}
	v.Line, v.Col = line, col
	l.buf = append(l.buf[:0], c)
	if err := l.rest(c); err != nil {
		return v, false, l.readError(err)
	}
	v.Data = l.buf
	return v, true, nil
}

// rest reads the rest of the value that starts with c into l.buf. It
// scans what the bufio.Reader holds a chunk at a time, not byte by byte
// through ReadByte: reading a ShareGPT file was a third of generating its
// prompts, most of it here.
func (l *Reader) rest(c byte) error {
	var s scan
	switch c {
	case '{', '[':
		s.depth = 1
	case '"':
		s.inString = true
	default:
		return l.scalar()
	}
	for s.depth > 0 || s.inString {
		if l.r.Buffered() == 0 {
			if _, err := l.r.Peek(1); err != nil {
				return err
			}
		}
		chunk, _ := l.r.Peek(l.r.Buffered())
		n := s.until(chunk)
		if len(l.buf)+n > l.limit {
			return ErrTooLarge
		}
		l.buf = append(growCapped(l.buf, n, l.limit), chunk[:n]...)
		l.advance(chunk[:n])
		_, _ = l.r.Discard(n) // n bytes are buffered
	}
	return nil
}

// scan is where rest is inside a value: its nesting depth, and whether it
// is in a string and right after a backslash there.
type scan struct {
	depth             int
	inString, escaped bool
}

// until moves the scan over b up to the end of the value and returns how
// many bytes of b belong to it (all of b when the value goes on). Inside
// a string, most of a dataset's bytes, it jumps to the next quote or
// backslash (bytes.IndexByte) instead of looking at every byte: reading a
// ShareGPT file on one goroutine bounded its generation on every core.
func (s *scan) until(b []byte) int {
	q := -1 // the next quote at or after i (len(b): none), once looked for
	for i := 0; i < len(b); {
		if s.escaped {
			s.escaped = false
			i++
			continue
		}
		if s.inString {
			if q < i {
				if k := bytes.IndexByte(b[i:], '"'); k >= 0 {
					q = i + k
				} else {
					q = len(b)
				}
			}
			if k := bytes.IndexByte(b[i:q], '\\'); k >= 0 {
				i += k + 1
				s.escaped = true
				continue
			}
			if q == len(b) {
				return len(b)
			}
			i, s.inString = q+1, false
		} else {
			switch b[i] {
			case '"':
				s.inString = true
			case '{', '[':
				s.depth++
			case '}', ']':
				s.depth--
			}
			i++
		}
		if s.depth == 0 && !s.inString {
			return i
		}
	}
	return len(b)
}

// advance moves the position over the bytes b, read.
func (l *Reader) advance(b []byte) {
	if nl := bytes.LastIndexByte(b, '\n'); nl >= 0 {
		l.line += bytes.Count(b, []byte{'\n'})
		l.col = len(b) - nl
		return
	}
	l.col += len(b)
}

// scalar reads the rest of a number, true, false or null into l.buf: up
// to the next delimiter, which is left unread.
func (l *Reader) scalar() error {
	for {
		b, err := l.r.Peek(1)
		if errors.Is(err, io.EOF) {
			return nil // the caller meets the end next
		}
		if err != nil {
			return err
		}
		if isSpace(b[0]) || bytes.IndexByte([]byte(",]}[{\""), b[0]) >= 0 {
			return nil
		}
		if len(l.buf) >= l.limit {
			return ErrTooLarge
		}
		c, _ := l.read()
		l.buf = append(growCapped(l.buf, 1, l.limit), c)
	}
}

// readError names the input and the position of a read error, the end of
// the input inside the list included.
func (l *Reader) readError(err error) error {
	switch {
	case err == nil, errors.Is(err, ErrTooLarge):
		return err
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%s:%d:%d: the file ends inside the list (%w)", l.name, l.line, l.col, io.ErrUnexpectedEOF)
	}
	return fmt.Errorf("read %s: %w", l.name, err)
}

// ValueError locates json.Unmarshal's error on element i (v) as
// name:line:column, or names the element.
func (l *Reader) ValueError(v Value, i int, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return fmt.Errorf("%s: entry %d: %v", l.name, i, err)
	}
	k := min(max(int(se.Offset)-1, 0), len(v.Data)) // Offset counts the bad byte
	line, col := v.Line, v.Col+k
	if nl := bytes.LastIndexByte(v.Data[:k], '\n'); nl >= 0 {
		line, col = line+bytes.Count(v.Data[:k], []byte{'\n'}), k-nl
	}
	return fmt.Errorf("%s:%d:%d: %v", l.name, line, col, se)
}

// isSpace reports whether c is JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// growCapped makes room in b for n more bytes, doubling its capacity but
// never past limit: append's own growth, on the way to the bound, would
// allocate about five times it.
func growCapped(b []byte, n, limit int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	return slices.Grow(b, max(n, min(cap(b), limit-len(b))))
}
