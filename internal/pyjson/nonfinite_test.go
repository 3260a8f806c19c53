package pyjson

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestDecodeFileNonFinite: Python's json.dump of
// {"a": nan, "b": [inf, -inf, "NaN"], "c": 1.5, "d": 0, "e": -1}
// reads back with the tokens as floats, the string "NaN" as a string and
// the real zero as 0; written back, the floats are the package's strings
// "nan", "inf" and "-inf".
func TestDecodeFileNonFinite(t *testing.T) {
	const text = `{"a": NaN, "b": [Infinity, -Infinity, "NaN"], "c": 1.5, "d": 0, "e": -1}`
	v, err := DecodeFile([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	o := v.(*Object)
	a, _ := o.Get("a")
	b, _ := o.Get("b")
	d, _ := o.Get("d")
	if f, ok := a.(float64); !ok || !math.IsNaN(f) {
		t.Errorf("a = %#v, want NaN", a)
	}
	list := b.([]any)
	if list[0] != math.Inf(1) || list[1] != math.Inf(-1) || list[2] != "NaN" {
		t.Errorf("b = %#v", list)
	}
	if d != 0 {
		t.Errorf("d = %#v, want the int 0", d)
	}
	out, err := AppendPython(nil, o)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a": "nan", "b": ["inf", "-inf", "NaN"], "c": 1.5, "d": 0, "e": -1}`; string(out) != want {
		t.Errorf("written back:\n%s\nwant:\n%s", out, want)
	}
	// Decode, for what a user types, still refuses them.
	if _, err := Decode([]byte(text)); err == nil {
		t.Error("Decode accepted a bare NaN")
	}
}

func TestFindNonFinite(t *testing.T) {
	got := FindNonFinite([]byte(`{"NaN": "a \"Infinity\"", "x": -Infinity, "y": -1, "z": [NaN]}`))
	var s []string
	for _, n := range got {
		s = append(s, n.Token)
	}
	if strings.Join(s, ",") != "-Infinity,NaN" || got[0].Start != 31 {
		t.Errorf("found %+v", got)
	}
}

func FuzzDecodeFile(f *testing.F) {
	f.Add([]byte(`{"a": NaN, "b": [Infinity, -Infinity, "NaN"]}`))
	f.Add([]byte(`[0, -0, 1e5, "Infinity"]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := DecodeFile(data)
		if err != nil {
			return
		}
		// What decodes writes back and decodes to the same text again.
		out, err := AppendPython(nil, v)
		if err != nil {
			return
		}
		v2, err := DecodeFile(out)
		if err != nil {
			t.Fatalf("%s: written back as %s, which does not decode: %v", data, out, err)
		}
		out2, _ := AppendPython(nil, v2)
		if string(out2) != string(out) {
			t.Errorf("%s: %s then %s", data, out, out2)
		}
	})
}

func TestNonFinitePaths(t *testing.T) {
	t.Parallel()
	o := NewObject()
	o.Set("ok", 1.5)
	o.Set("nan", math.NaN())
	inner := NewObject()
	inner.Set("inf", math.Inf(1))
	o.Set("list", []any{0.0, inner, []float64{1, math.Inf(-1)}})
	o.Set("rows", []*Object{inner})
	got := NonFinitePaths(o, "x")
	want := []string{"x.nan", "x.list[1].inf", "x.list[2][1]", "x.rows[0].inf"}
	if !slices.Equal(got, want) {
		t.Errorf("NonFinitePaths = %q, want %q", got, want)
	}
}
