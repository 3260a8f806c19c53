package pyjson

import (
	"encoding/json"
	"math"
	"testing"
)

func TestDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, python, compact string
	}{
		{`{"b": [1, 2.5, "中", null, true], "a": {}}`,
			`{"b": [1, 2.5, "\u4e2d", null, true], "a": {}}`, `{"b":[1,2.5,"中",null,true],"a":{}}`},
		// A repeated key keeps its first position and its last value, as
		// json.loads does.
		{`{"a":1,"b":{"c":[1,2]},"a":3}`, `{"a": 3, "b": {"c": [1, 2]}}`, `{"a":3,"b":{"c":[1,2]}}`},
		// Numbers come back as json.loads reads them and json.dumps
		// writes them: floats in repr, integers as integers, however long.
		{`[1.50, 1E5, 1e-5, -0, -0.0, 0, 9223372036854775807, 9223372036854775808, -123456789012345678901234567890, 1e-400]`,
			`[1.5, 100000.0, 1e-05, 0, -0.0, 0, 9223372036854775807, 9223372036854775808, -123456789012345678901234567890, 0.0]`,
			`[1.5,100000.0,1e-05,0,-0.0,0,9223372036854775807,9223372036854775808,-123456789012345678901234567890,0.0]`},
		{` "\u00e9\ud83d\ude42" `, `"\u00e9\ud83d\ude42"`, `"é🙂"`},
	}
	for _, tt := range tests {
		v, err := Decode([]byte(tt.in))
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if b, err := AppendPython(nil, v); err != nil || string(b) != tt.python {
			t.Errorf("%s: python %s (%v), want %s", tt.in, b, err, tt.python)
		}
		if b, err := AppendCompact(nil, v); err != nil || string(b) != tt.compact {
			t.Errorf("%s: compact %s (%v), want %s", tt.in, b, err, tt.compact)
		}
	}
	v, _ := Decode([]byte(`[9223372036854775807, 9223372036854775808]`))
	if l := v.([]any); l[0] != math.MaxInt || l[1] != json.Number("9223372036854775808") {
		t.Errorf("integers decoded as %#v", l)
	}
	for _, bad := range []string{`{"b": [1, 2.5, "x", null, true], "a": {"z": 1e400}}`, `[-1e400]`, `{"a":1} x`, `{"a":`, ``, `NaN`, `[Infinity]`} {
		if v, err := Decode([]byte(bad)); err == nil {
			t.Errorf("%q accepted: %v", bad, v)
		}
	}
}

func TestDecodeObject(t *testing.T) {
	t.Parallel()
	o, err := DecodeObject([]byte(`{"temperature":0,"top_k":5}`))
	if err != nil || o.Len() != 2 {
		t.Fatalf("DecodeObject: %v, %v", o, err)
	}
	for _, bad := range []string{`[1]`, `1`, `"x"`, `null`, `{"a":1}{`} {
		if o, err := DecodeObject([]byte(bad)); err == nil {
			t.Errorf("%q accepted: %v", bad, o)
		}
	}
}

// FuzzDecode checks that whatever decodes is written back as valid JSON by
// both writers, and that the compact form decodes to the same Python form.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":{"c":[1,2]},"a":3}`))
	f.Add([]byte(`[1.5, "\u2028", 99999999999999999999, null]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Decode(data)
		if err != nil {
			return
		}
		py, err := AppendPython(nil, v)
		if err != nil || !json.Valid(py) {
			t.Fatalf("python form of %q: %s, %v", data, py, err)
		}
		compact, err := AppendCompact(nil, v)
		if err != nil || !json.Valid(compact) {
			t.Fatalf("compact form of %q: %s, %v", data, compact, err)
		}
		again, err := Decode(compact)
		if err != nil {
			t.Fatalf("compact form %s does not decode: %v", compact, err)
		}
		if py2, _ := AppendPython(nil, again); string(py2) != string(py) {
			t.Fatalf("round trip of %q: %s, want %s", data, py2, py)
		}
	})
}

// TestNumber: the numbers Decode produces read as float64, nothing else.
func TestNumber(t *testing.T) {
	t.Parallel()
	v, err := Decode([]byte(`[3, 2.5, 123456789012345678901234567890, null, "1", true]`))
	if err != nil {
		t.Fatal(err)
	}
	list := v.([]any)
	want := []struct {
		f  float64
		ok bool
	}{{3, true}, {2.5, true}, {1.2345678901234568e29, true}, {0, false}, {0, false}, {0, false}}
	for i, w := range want {
		if f, ok := Number(list[i]); f != w.f || ok != w.ok {
			t.Errorf("Number(%v) = %v, %v; want %v, %v", list[i], f, ok, w.f, w.ok)
		}
	}
	if f, ok := Number(int64(7)); f != 7 || !ok {
		t.Errorf("Number(int64(7)) = %v, %v", f, ok)
	}
}
