package pyjson

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/gobench/gobench/internal/pyfmt"
)

// AppendPython appends the encoding of v that Python's json.dumps(v)
// produces with its default arguments, byte for byte: one line, ", "
// between items and ": " after keys, strings with ensure_ascii, floats as
// Python's repr and integers as integers. The package documentation
// compares it with AppendCompact and lists the values it takes; any other
// value is an error.
func AppendPython(dst []byte, v any) ([]byte, error) {
	return appendValue(dst, v, false)
}

// WritePython writes v as Python's json.dump(v, f) with default arguments
// would (see AppendPython), without a trailing newline.
func WritePython(w io.Writer, v any) error {
	b, err := AppendPython(nil, v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// AppendCompact appends the compact encoding of v: no spaces, strings as
// AppendCompactString writes them, numbers as AppendPython writes them.
// The package documentation compares the two writers and lists the values
// they take; any other value is an error.
func AppendCompact(dst []byte, v any) ([]byte, error) {
	return appendValue(dst, v, true)
}

// appendValue is AppendPython, or AppendCompact when compact is set.
func appendValue(dst []byte, v any, compact bool) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case float64:
		return appendFloat(dst, x), nil
	case json.Number:
		if !isInteger(string(x)) {
			return dst, fmt.Errorf("pyjson: json.Number %q is not an integer literal", string(x))
		}
		return append(dst, x...), nil
	case string:
		return appendString(dst, x, compact), nil
	case []int:
		return appendList(dst, len(x), compact, func(d []byte, i int) ([]byte, error) {
			return strconv.AppendInt(d, int64(x[i]), 10), nil
		})
	case []float64:
		return appendList(dst, len(x), compact, func(d []byte, i int) ([]byte, error) {
			return appendFloat(d, x[i]), nil
		})
	case [][]float64:
		return appendList(dst, len(x), compact, func(d []byte, i int) ([]byte, error) {
			return appendValue(d, x[i], compact)
		})
	case []string:
		return appendList(dst, len(x), compact, func(d []byte, i int) ([]byte, error) {
			return appendString(d, x[i], compact), nil
		})
	case []any:
		return appendList(dst, len(x), compact, func(d []byte, i int) ([]byte, error) {
			return appendValue(d, x[i], compact)
		})
	case []*Object:
		return appendList(dst, len(x), compact, func(d []byte, i int) ([]byte, error) {
			return appendObject(d, x[i], compact)
		})
	case *Object:
		return appendObject(dst, x, compact)
	}
	return dst, fmt.Errorf("pyjson: cannot encode %T as JSON", v)
}

func appendObject(dst []byte, o *Object, compact bool) ([]byte, error) {
	if o == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '{')
	for i, e := range o.entries {
		if i > 0 {
			dst = appendComma(dst, compact)
		}
		dst = appendString(dst, e.key, compact)
		if compact {
			dst = append(dst, ':')
		} else {
			dst = append(dst, ": "...)
		}
		var err error
		if dst, err = appendValue(dst, e.val, compact); err != nil {
			return dst, fmt.Errorf("key %q: %w", e.key, err)
		}
	}
	return append(dst, '}'), nil
}

func appendList(dst []byte, n int, compact bool, item func([]byte, int) ([]byte, error)) ([]byte, error) {
	dst = append(dst, '[')
	for i := range n {
		if i > 0 {
			dst = appendComma(dst, compact)
		}
		var err error
		if dst, err = item(dst, i); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

func appendComma(dst []byte, compact bool) []byte {
	if compact {
		return append(dst, ',')
	}
	return append(dst, ", "...)
}

func appendString(dst []byte, s string, compact bool) []byte {
	if compact {
		return AppendCompactString(dst, s)
	}
	return appendPythonString(dst, s)
}

// appendFloat writes Python's float repr, or the strings "inf", "-inf",
// "nan" for non-finite values (see the package documentation).
func appendFloat(dst []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		dst = append(dst, '"')
		dst = pyfmt.AppendFloat(dst, f)
		return append(dst, '"')
	}
	return pyfmt.AppendFloat(dst, f)
}

// isInteger reports whether s is a JSON integer literal: -?(0|[1-9][0-9]*).
func isInteger(s string) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// appendPythonString reproduces CPython's c_encode_basestring_ascii
// (Modules/_json.c): printable ASCII except '"' and '\\' is copied, the
// five short escapes are used where they exist, everything else becomes
// \u followed by four lower-case hex digits (a surrogate pair above
// U+FFFF; \ufffd for each byte of invalid UTF-8).
func appendPythonString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	u := func(d []byte, r rune) []byte {
		return append(d, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
	}
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= ' ' && c <= '~' && c != '"' && c != '\\' {
			dst = append(dst, c)
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r > 0xffff {
				r -= 0x10000
				dst = u(dst, 0xd800+(r>>10))
				dst = u(dst, 0xdc00+(r&0x3ff))
			} else {
				// Includes utf8.RuneError for an invalid byte (size 1).
				dst = u(dst, r)
			}
			i += size
			continue
		}
		if esc := shortEscape(c); esc != 0 {
			dst = append(dst, '\\', esc)
		} else {
			dst = u(dst, rune(c))
		}
		i++
	}
	return append(dst, '"')
}

// AppendCompactString appends s as a JSON string literal the way pydantic's
// model_dump_json writes it: only '"', '\\' and control characters are
// escaped (short forms where JSON has them, else \u00XX in lower-case hex),
// everything else stays raw UTF-8 (DEL, <, >, &, U+2028 and U+2029
// included), and each byte of invalid UTF-8 becomes U+FFFD so the output is
// always valid JSON. It copies runs of plain bytes at once: the simulator
// writes its stream events with it.
func AppendCompactString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
			i++
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		if esc := shortEscape(c); esc != 0 {
			dst = append(dst, '\\', esc)
		} else {
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// shortEscape returns the letter of c's two-character JSON escape (\" \\
// \b \f \n \r \t), or 0 when c has none. Both writers use the short forms
// where JSON has them, as Python and pydantic do.
func shortEscape(c byte) byte {
	switch c {
	case '"', '\\':
		return c
	case '\b':
		return 'b'
	case '\f':
		return 'f'
	case '\n':
		return 'n'
	case '\r':
		return 'r'
	case '\t':
		return 't'
	}
	return 0
}
