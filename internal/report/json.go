package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/gobench/gobench/internal/pyfmt"
)

// Object is a JSON object that keeps its keys in insertion order, like the
// Python dict vLLM dumps: setting an existing key replaces its value in
// place (the key keeps its first position), and Delete removes it. The zero
// value is an empty object ready to use.
type Object struct {
	keys []string
	vals map[string]any
}

// NewObject returns an empty Object.
func NewObject() *Object { return &Object{} }

// Set stores v under key: appended if the key is new, replaced in place
// otherwise (Python's d[key] = v). Supported values are listed at
// AppendJSON.
func (o *Object) Set(key string, v any) {
	if o.vals == nil {
		o.vals = make(map[string]any)
	}
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// Get returns the value stored under key and whether it exists.
func (o *Object) Get(key string) (any, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// Delete removes key if present (Python's `if k in d: del d[k]`).
func (o *Object) Delete(key string) {
	if _, ok := o.vals[key]; !ok {
		return
	}
	delete(o.vals, key)
	o.keys = slices.DeleteFunc(o.keys, func(k string) bool { return k == key })
}

// Keys returns the keys in order (a copy).
func (o *Object) Keys() []string { return slices.Clone(o.keys) }

// Len returns the number of keys.
func (o *Object) Len() int { return len(o.keys) }

// MarshalJSON encodes o as AppendJSON does, so an Object can also be
// embedded in values given to encoding/json.
func (o *Object) MarshalJSON() ([]byte, error) { return AppendJSON(nil, o) }

// WriteJSON writes v as Python's json.dump(v, f) with default arguments
// would (see AppendJSON), without a trailing newline.
func WriteJSON(w io.Writer, v any) error {
	b, err := AppendJSON(nil, v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// AppendJSON appends the encoding of v that Python's json.dumps(v) produces
// with its defaults, byte for byte: one line, ", " between items and ": "
// after keys, strings with ensure_ascii (every character outside
// printable ASCII escaped as \uXXXX in lower-case hex, non-BMP characters
// as surrogate pairs, \" \\ \n \r \t \b \f as short escapes), floats as
// Python's repr ("1.0", "0.30000000000000004", "1e-05", "1e+16") and
// integers as integers.
//
// One deliberate difference: a float that is infinite or NaN is written as
// the string "inf", "-inf" or "nan" instead of Python's bare Infinity/NaN,
// so that the file stays valid JSON (as vLLM already does for request_rate
// and in its JSON Lines and PyTorch-format writers). Invalid UTF-8 in a Go
// string is written as \ufffd, as encoding/json does.
//
// Supported values: nil, bool, int, int64, float64, string, []int,
// []float64, [][]float64, []string, []any, *Object and []*Object. A nil
// slice is written as [] (Python lists are never null), a nil *Object as
// null.
func AppendJSON(dst []byte, v any) ([]byte, error) {
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
	case string:
		return appendString(dst, x), nil
	case []int:
		return appendList(dst, len(x), func(d []byte, i int) ([]byte, error) {
			return strconv.AppendInt(d, int64(x[i]), 10), nil
		})
	case []float64:
		return appendList(dst, len(x), func(d []byte, i int) ([]byte, error) {
			return appendFloat(d, x[i]), nil
		})
	case [][]float64:
		return appendList(dst, len(x), func(d []byte, i int) ([]byte, error) {
			return AppendJSON(d, x[i])
		})
	case []string:
		return appendList(dst, len(x), func(d []byte, i int) ([]byte, error) {
			return appendString(d, x[i]), nil
		})
	case []any:
		return appendList(dst, len(x), func(d []byte, i int) ([]byte, error) {
			return AppendJSON(d, x[i])
		})
	case []*Object:
		return appendList(dst, len(x), func(d []byte, i int) ([]byte, error) {
			return AppendJSON(d, x[i])
		})
	case *Object:
		if x == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '{')
		for i, k := range x.keys {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendString(dst, k)
			dst = append(dst, ": "...)
			var err error
			if dst, err = AppendJSON(dst, x.vals[k]); err != nil {
				return dst, fmt.Errorf("key %q: %w", k, err)
			}
		}
		return append(dst, '}'), nil
	}
	return dst, fmt.Errorf("report: cannot encode %T as JSON", v)
}

func appendList(dst []byte, n int, item func([]byte, int) ([]byte, error)) ([]byte, error) {
	dst = append(dst, '[')
	for i := range n {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		var err error
		if dst, err = item(dst, i); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

// appendFloat writes Python's float repr, or the strings "inf", "-inf",
// "nan" for non-finite values (see AppendJSON).
func appendFloat(dst []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return appendString(dst, pyfmt.Float(f))
	}
	return pyfmt.AppendFloat(dst, f)
}

// appendString reproduces CPython's c_encode_basestring_ascii
// (Modules/_json.c): printable ASCII except '"' and '\\' is copied, the
// five short escapes are used where they exist, everything else becomes
// \u followed by four lower-case hex digits (a surrogate pair above
// U+FFFF).
func appendString(dst []byte, s string) []byte {
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
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			if c < utf8.RuneSelf {
				dst = u(dst, rune(c))
				break
			}
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
		i++
	}
	return append(dst, '"')
}

// FromJSON decodes JSON into the values AppendJSON writes, keeping object
// key order (objects become *Object, arrays []any, integers int, other
// numbers float64), so that JSON taken from the command line is written
// back the way Python's json.dump would write the same value.
func FromJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := fromJSON(dec)
	if err != nil {
		return nil, fmt.Errorf("decode JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("decode JSON: trailing data")
	}
	return v, nil
}

func fromJSON(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := NewObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := fromJSON(dec)
				if err != nil {
					return nil, err
				}
				o.Set(kt.(string), v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			list := []any{}
			for dec.More() {
				v, err := fromJSON(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token()
			return list, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case json.Number:
		if i, err := strconv.Atoi(t.String()); err == nil {
			return i, nil
		}
		return t.Float64()
	default: // string, bool, nil
		return t, nil
	}
}
