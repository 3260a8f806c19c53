package pyfmt

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestStrRepr compares with repr() of CPython 3.11; each want is what
// Python printed for print(repr(in)).
func TestStrRepr(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", `''`},
		{"a", `'a'`},
		{"it's", `"it's"`},                       // a single quote alone: double quotes
		{`say "hi"`, `'say "hi"'`},               // a double quote alone: single quotes
		{`both ' and "`, `'both \' and "'`},      // both: single quotes, the single escaped
		{`back\slash`, `'back\\slash'`},          // backslash doubled
		{"tab\there", `'tab\there'`},             // \t, \n, \r by name
		{"nl\nx", `'nl\nx'`},                     //
		{"\r", `'\r'`},                           //
		{"\x00\x1f\x7f", `'\x00\x1f\x7f'`},       // other ASCII controls
		{"\u0080\u009f", `'\x80\x9f'`},           // C1 controls
		{"\u00a0", `'\xa0'`},                     // no-break space: a separator, not printable
		{"\u00ad", `'\xad'`},                     // soft hyphen: a format character
		{"é", `'é'`},                             // printable non-ASCII kept
		{"日本", `'日本'`},                           //
		{"\U0001F600", "'\U0001F600'"},           // printable astral kept
		{"\u2028", `'\u2028'`},                   // line separator
		{"\u200b", `'\u200b'`},                   // zero-width space (format)
		{"\ufeff", `'\ufeff'`},                   // byte order mark (format)
		{"\ue000", `'\ue000'`},                   // private use
		{"\u0378", `'\u0378'`},                   // unassigned
		{"\U000E0001", `'\U000e0001'`},           // astral format character
		{"\U0010FFFF", `'\U0010ffff'`},           // last code point (unassigned)
		{"Found: 'audio'", `"Found: 'audio'"`},   //
		{"a b\u3000c", `'a b\u3000c'`},           // ideographic space: a separator
		{"\u0301", "'\u0301'"},                   // a combining mark is printable
		{"x\u00a0'", `"x\xa0'"`},                 // escapes inside double quotes
		{"\u2029\u0085", `'\u2029\x85'`},         //
		{"\x1b[0m", `'\x1b[0m'`},                 // escape sequence
		{"ünïcödé and 'q'", `"ünïcödé and 'q'"`}, //
	}
	for _, tt := range tests {
		if got := StrRepr(tt.in); got != tt.want {
			t.Errorf("StrRepr(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// dict is an ordered Dict for the tests (pyjson.Object imports pyfmt).
type dict struct {
	keys []string
	vals map[string]any
}

func (d dict) Keys() []string { return d.keys }

func (d dict) Get(k string) (any, bool) { v, ok := d.vals[k]; return v, ok }

// TestRepr compares with repr() of CPython 3.11 on the values json.loads
// returns; each want is what Python printed.
func TestRepr(t *testing.T) {
	t.Parallel()
	nested := dict{keys: []string{"a", "b", "c"}, vals: map[string]any{
		"a": 1,
		"b": []any{1.5, 1e16, 1e-5, math.Inf(1), math.NaN()},
		"c": dict{keys: []string{"d"}, vals: map[string]any{"d": nil}},
	}}
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"None", nil, "None"},
		{"True", true, "True"},
		{"False", false, "False"},
		{"int", 8, "8"},
		{"int64", int64(-3), "-3"},
		{"big int", json.Number("100000000000000000000"), "100000000000000000000"},
		{"float", 2.0, "2.0"},
		{"negative zero", math.Copysign(0, -1), "-0.0"},
		{"tenth", 0.1, "0.1"},
		{"string", "x", "'x'"},
		{"list", []any{1, 2.0, "x", nil, true, false, []any{}, dict{}}, "[1, 2.0, 'x', None, True, False, [], {}]"},
		{"dict", nested, "{'a': 1, 'b': [1.5, 1e+16, 1e-05, inf, nan], 'c': {'d': None}}"},
		{"dict of bytes", dict{keys: []string{"bytes"}, vals: map[string]any{"bytes": "x"}}, "{'bytes': 'x'}"},
		{"key quoted", dict{keys: []string{"it's"}, vals: map[string]any{"it's": 1}}, `{"it's": 1}`},
		{"not JSON's", []string{"a"}, `["a"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Repr(tt.in); got != tt.want {
				t.Errorf("Repr = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestStr: a string is its own text; other values are their repr
// (Python's str of a list is its repr).
func TestStr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   any
		want string
	}{
		{"a'b", "a'b"},
		{0.5, "0.5"},
		{nil, "None"},
		{[]any{"a", 1}, "['a', 1]"},
	}
	for _, tt := range tests {
		if got := Str(tt.in); got != tt.want {
			t.Errorf("Str(%v) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// FuzzStrRepr checks the shape of any string's repr: valid UTF-8 between
// matching quotes, no raw control or unprintable character, every
// backslash starting one of Python's escapes, and the text back when the
// escapes are undone.
func FuzzStrRepr(f *testing.F) {
	for _, s := range []string{"", "it's", `both ' and "`, "\x00\u00a0\u2028\U000E0001", "é\\n", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := StrRepr(s)
		if !utf8.ValidString(r) || len(r) < 2 || r[0] != r[len(r)-1] || (r[0] != '\'' && r[0] != '"') {
			t.Fatalf("StrRepr(%q) = %q: not a quoted string", s, r)
		}
		back, err := unrepr(r[1:len(r)-1], r[0])
		if err != "" {
			t.Fatalf("StrRepr(%q) = %q: %s", s, r, err)
		}
		if back != validRunes(s) {
			t.Fatalf("StrRepr(%q) = %q reads back as %q", s, r, back)
		}
	})
}

// validRunes is s with each byte that is not UTF-8 read as U+FFFD, as
// ranging over a string reads it.
func validRunes(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}

// unrepr undoes StrRepr's escapes inside quote q, or says what is wrong.
func unrepr(body string, q byte) (string, string) {
	var b strings.Builder
	for i := 0; i < len(body); {
		r, n := utf8.DecodeRuneInString(body[i:])
		switch {
		case r == rune(q):
			return "", "an unescaped quote"
		case r != '\\':
			if r < ' ' || r == 0x7f {
				return "", "a raw control character"
			}
			b.WriteRune(r)
			i += n
			continue
		}
		if i+1 >= len(body) {
			return "", "a trailing backslash"
		}
		c := body[i+1]
		width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
		switch {
		case c == '\\' || c == q:
			b.WriteByte(c)
			i += 2
		case c == 't' || c == 'n' || c == 'r':
			b.WriteByte(map[byte]byte{'t': '\t', 'n': '\n', 'r': '\r'}[c])
			i += 2
		case width > 0 && i+2+width <= len(body):
			var v rune
			for _, h := range body[i+2 : i+2+width] {
				d := strings.IndexRune("0123456789abcdef", h)
				if d < 0 {
					return "", "a bad hexadecimal digit"
				}
				v = v<<4 | rune(d)
			}
			b.WriteRune(v)
			i += 2 + width
		default:
			return "", "an unknown escape"
		}
	}
	return b.String(), ""
}
