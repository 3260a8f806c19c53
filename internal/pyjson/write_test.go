package pyjson

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppendPython(t *testing.T) {
	t.Parallel()
	o := NewObject()
	o.Set("a", 1)
	o.Set("b", []any{nil, true, false, 1.0, "x"})
	o.Set("a", 2) // replaced in place
	o.Set("c", 3)
	o.Delete("c")
	o.Delete("missing")
	inner := NewObject()
	o.Set("d", []*Object{inner})
	tests := []struct {
		name string
		v    any
		want string // Python 3.11 json.dumps(v); non-finite floats are gobench's strings
	}{
		{"object", o, `{"a": 2, "b": [null, true, false, 1.0, "x"], "d": [{}]}`},
		{"empty list", []float64(nil), `[]`},
		{"nested", [][]float64{{0.1, 2}, {}}, `[[0.1, 2.0], []]`},
		{"ints", []int{0, -1, 1 << 40}, `[0, -1, 1099511627776]`},
		{"floats", []float64{1e16, 1e-5, 123456789012345680.0, 5e-324, math.Copysign(0, -1)},
			`[1e+16, 1e-05, 1.2345678901234568e+17, 5e-324, -0.0]`},
		{"non-finite", []float64{math.Inf(1), math.Inf(-1), math.NaN()}, `["inf", "-inf", "nan"]`},
		{"escapes", "q\"b\\n\nr\rt\tb\bf\f\x00\x1f\x7f", `"q\"b\\n\nr\rt\tb\bf\f\u0000\u001f\u007f"`},
		{"non-ascii", "é☃\u2028🙂", `"\u00e9\u2603\u2028\ud83d\ude42"`},
		{"html", "<a&b>", `"<a&b>"`},
		{"invalid utf-8", "a\xffb", `"a\ufffdb"`},
		{"nil object", (*Object)(nil), `null`},
		// json.loads("123456789012345678901234567890") is an int; dumps
		// writes its digits back.
		{"big integer", json.Number("-123456789012345678901234567890"), `-123456789012345678901234567890`},
		{"int64 and strings", []any{int64(-5), []string{"x", "y"}}, `[-5, ["x", "y"]]`},
	}
	for _, tt := range tests {
		got, err := AppendPython(nil, tt.v)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
		}
	}
	if _, err := AppendPython(nil, map[string]int{}); err == nil {
		t.Error("unordered map accepted")
	}
	if m, err := json.Marshal(struct{ O *Object }{o}); err != nil || !strings.Contains(string(m), `"a":2`) {
		t.Errorf("MarshalJSON through encoding/json: %s, %v", m, err)
	}
	var buf bytes.Buffer
	if err := WritePython(&buf, o); err != nil || buf.String() != tests[0].want {
		t.Errorf("WritePython: %q, %v", buf.String(), err)
	}
}

func TestAppendCompact(t *testing.T) {
	t.Parallel()
	inner := NewObject()
	inner.Set("include_usage", true)
	o := NewObject()
	o.Set("model", "m")
	o.Set("prompt", "中 <b>")
	o.Set("repetition_penalty", 1.0)
	o.Set("temperature", 0)
	o.Set("stream_options", inner)
	o.Set("stop", []any{"a", json.Number("99999999999999999999")})
	tests := []struct {
		name string
		v    any
		want string
	}{
		// A request body: no spaces, UTF-8 and HTML characters raw,
		// Python's float repr.
		{"body", o, `{"model":"m","prompt":"中 <b>","repetition_penalty":1.0,"temperature":0,"stream_options":{"include_usage":true},"stop":["a",99999999999999999999]}`},
		{"lists", []any{[]int{1, 2}, []float64{0.1, 1e16}, [][]float64{{}}, []string{"x"}, []*Object{{}}, nil},
			`[[1,2],[0.1,1e+16],[[]],["x"],[{}],null]`},
		{"non-finite", []float64{math.Inf(1), math.Inf(-1), math.NaN()}, `["inf","-inf","nan"]`},
		{"separators", "\u2028\u2029\x7f", "\"\u2028\u2029\x7f\""},
		{"invalid utf-8", "a\xffb", "\"a\uFFFDb\""},
	}
	for _, tt := range tests {
		got, err := AppendCompact(nil, tt.v)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
		}
		if !json.Valid(got) {
			t.Errorf("%s: invalid JSON %s", tt.name, got)
		}
	}
	for _, v := range []any{map[string]int{}, json.Number("1.5"), json.Number("01"), json.Number(""), json.Number("-")} {
		if got, err := AppendCompact(nil, v); err == nil {
			t.Errorf("%#v accepted: %s", v, got)
		}
	}
	bad := NewObject()
	bad.Set("k", struct{}{})
	if _, err := AppendCompact(nil, bad); err == nil || !strings.Contains(err.Error(), `key "k"`) {
		t.Errorf("error %v does not name the key", err)
	}
}

func TestAppendCompactString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hello", `"hello"`},
		{"empty", "", `""`},
		{"quote and backslash", `a"b\c`, `"a\"b\\c"`},
		{"short escapes", "\b\f\n\r\t", `"\b\f\n\r\t"`},
		// Other control characters use lower-case \u00XX, as Python does.
		{"control", "\x00\x1f", `"\u0000\u001f"`},
		// Non-ASCII stays raw UTF-8; HTML characters and DEL are not escaped.
		{"unicode", " leading 中 trailing ", `" leading 中 trailing "`},
		{"html", "<a&b>/\x7f", "\"<a&b>/\x7f\""},
		// Invalid UTF-8 becomes U+FFFD so the event stays valid JSON.
		{"invalid utf-8", "a\xffb\xc3", "\"a\uFFFDb\uFFFD\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := string(AppendCompactString([]byte("x"), tt.in))
			if got != "x"+tt.want {
				t.Fatalf("AppendCompactString(%q) = %s, want %s", tt.in, got[1:], tt.want)
			}
			var back string
			if err := json.Unmarshal([]byte(tt.want), &back); err != nil {
				t.Fatalf("not valid JSON: %v", err)
			}
			if strings.ToValidUTF8(tt.in, "\uFFFD") != back {
				t.Errorf("round trip gave %q", back)
			}
		})
	}
}

// FuzzStrings checks that every string encodes, in both forms, to valid
// JSON that decodes to the same string (each invalid UTF-8 byte becoming
// U+FFFD, as encoding/json decodes it), that the Python form is pure ASCII
// and that the compact form is valid UTF-8 without a raw control character.
func FuzzStrings(f *testing.F) {
	for _, s := range []string{"", "plain", "q\"\\", "\x00\x1f\x7f", "é☃🙂", "a\xffb", "\xed\xa0\x80", "\u2028\u2029"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		py, err := AppendPython(nil, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range py {
			if c < ' ' || c > '~' {
				t.Fatalf("non-printable-ASCII byte %#x in %q", c, py)
			}
		}
		compact := AppendCompactString(nil, s)
		if !utf8.Valid(compact) || bytes.ContainsFunc(compact, func(r rune) bool { return r < ' ' }) {
			t.Fatalf("invalid UTF-8 or raw control character in %q", compact)
		}
		for _, b := range [][]byte{py, compact} {
			var back string
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("invalid JSON %s: %v", b, err)
			}
			if want := replaceInvalidBytes(s); back != want {
				t.Fatalf("round trip of %q through %s gave %q, want %q", s, b, back, want)
			}
		}
	})
}

// replaceInvalidBytes replaces every byte of an invalid UTF-8 sequence with
// U+FFFD, one per byte, which is what the encoders write.
func replaceInvalidBytes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r)
		i += size
	}
	return b.String()
}

// BenchmarkAppendCompactString measures the escaper the simulator writes
// its events and records with, on plain and on mixed text.
func BenchmarkAppendCompactString(b *testing.B) {
	for _, s := range []struct{ name, s string }{
		{"ascii", " The simulated model writes one word for every token it streams, so the text"},
		{"mixed", "error: \"bad\" input\n中文 text with <html> & stuff\t\x01"},
	} {
		b.Run(s.name, func(b *testing.B) {
			buf := make([]byte, 0, 256)
			b.ReportAllocs()
			for b.Loop() {
				buf = AppendCompactString(buf[:0], s.s)
			}
		})
	}
}
