package pyfmt

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Dict is an ordered mapping whose repr is a Python dict's, keys in their
// order: pyjson.Object is one. An interface, because pyjson builds on
// pyfmt and cannot be imported here.
type Dict interface {
	// Keys lists the keys in insertion order.
	Keys() []string
	// Get returns the value of key.
	Get(key string) (any, bool)
}

// Str is Python's str(v) of a value decoded from JSON: a string's own
// text, every other value's Repr. vLLM puts str(value) on command lines,
// in form fields and in names.
func Str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return Repr(v)
}

// Repr is Python's repr(v) of a value decoded from JSON (pyjson.Decode's
// types): None, True and False, integers (int, int64, json.Number's
// digits), floats as Float, strings as StrRepr, lists and dicts (Dict)
// with ", " between items and ": " after keys. A value of another type,
// which no JSON decodes to, is written as encoding/json writes it.
func Repr(v any) string { return string(AppendRepr(nil, v)) }

// AppendRepr appends Repr(v) to dst.
func AppendRepr(dst []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, "None"...)
	case bool:
		if x {
			return append(dst, "True"...)
		}
		return append(dst, "False"...)
	case int:
		return strconv.AppendInt(dst, int64(x), 10)
	case int64:
		return strconv.AppendInt(dst, x, 10)
	case json.Number:
		return append(dst, x...)
	case float64:
		return AppendFloat(dst, x)
	case string:
		return AppendStrRepr(dst, x)
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = AppendRepr(dst, e)
		}
		return append(dst, ']')
	case Dict:
		dst = append(dst, '{')
		for i, k := range x.Keys() {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			e, _ := x.Get(k)
			dst = AppendStrRepr(dst, k)
			dst = append(dst, ": "...)
			dst = AppendRepr(dst, e)
		}
		return append(dst, '}')
	}
	b, err := json.Marshal(v)
	if err != nil {
		return append(dst, "?"...)
	}
	return append(dst, b...)
}

// StrRepr is Python 3's repr() of a str: single quotes unless the text
// contains a single quote and no double quote; the quote and the backslash
// escaped; \t, \n and \r by name; other characters that are not printable
// (str.isprintable: control and format characters, separators other than
// the space, private use, unassigned) as \xhh, \uhhhh or \Uhhhhhhhh; every
// printable character as it is. Bytes that are not UTF-8 read as U+FFFD.
func StrRepr(s string) string { return string(AppendStrRepr(nil, s)) }

// AppendStrRepr appends StrRepr(s) to dst.
func AppendStrRepr(dst []byte, s string) []byte {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	dst = append(dst, quote)
	for _, r := range s {
		switch {
		case r == rune(quote) || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r == '\t':
			dst = append(dst, `\t`...)
		case r == '\n':
			dst = append(dst, `\n`...)
		case r == '\r':
			dst = append(dst, `\r`...)
		case r < utf8.RuneSelf && r >= ' ' && r != 0x7f:
			dst = append(dst, byte(r))
		case unicode.IsPrint(r):
			// Go's IsPrint is Python's isprintable: letters, marks,
			// numbers, punctuation, symbols and the ASCII space.
			dst = utf8.AppendRune(dst, r)
		case r <= 0xff:
			dst = appendHex(append(dst, `\x`...), uint32(r), 2)
		case r <= 0xffff:
			dst = appendHex(append(dst, `\u`...), uint32(r), 4)
		default:
			dst = appendHex(append(dst, `\U`...), uint32(r), 8)
		}
	}
	return append(dst, quote)
}

// appendHex appends v as n lower-case hexadecimal digits.
func appendHex(dst []byte, v uint32, n int) []byte {
	const digits = "0123456789abcdef"
	for shift := 4 * (n - 1); shift >= 0; shift -= 4 {
		dst = append(dst, digits[v>>uint(shift)&0xf])
	}
	return dst
}
