package jsonlist

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// element is what one call of Element gave, comparable across readers.
type element struct {
	Data      string
	Line, Col int
	OK        bool
	Err       string
}

// elements reads every element of in through a Reader.
func elements(in io.Reader, limit int) []element {
	l := New(in, "in", limit)
	if err := l.Open("a list"); err != nil {
		return []element{{Err: err.Error()}}
	}
	var out []element
	for i := 0; i < 1<<16; i++ {
		v, ok, err := l.Element(i == 0)
		e := element{Data: string(v.Data), Line: v.Line, Col: v.Col, OK: ok}
		if err != nil {
			e.Err = err.Error()
		}
		out = append(out, e)
		if !ok || err != nil {
			break
		}
	}
	return out
}

// offset is the byte offset of line and col (from 1) in b.
func offset(b []byte, line, col int) int {
	off := 0
	for ; line > 1; line-- {
		nl := bytes.IndexByte(b[off:], '\n')
		if nl < 0 {
			return -1
		}
		off += nl + 1
	}
	return off + col - 1
}

// TestElements: hand-made lists, their elements and where they start.
func TestElements(t *testing.T) {
	tests := []struct {
		in   string
		want []element
	}{
		{`[{"a": "x]\"}"}, [1, [2]],"s\\", 12 ,true]`, []element{
			{Data: `{"a": "x]\"}"}`, Line: 1, Col: 2, OK: true},
			{Data: `[1, [2]]`, Line: 1, Col: 18, OK: true},
			{Data: `"s\\"`, Line: 1, Col: 27, OK: true},
			{Data: `12`, Line: 1, Col: 34, OK: true},
			{Data: `true`, Line: 1, Col: 38, OK: true},
			{},
		}},
		{"[\n {\"a\":\n  \"b\"},\n\n {}\n]", []element{
			{Data: "{\"a\":\n  \"b\"}", Line: 2, Col: 2, OK: true},
			{Data: "{}", Line: 5, Col: 2, OK: true},
			{},
		}},
		{`[{"a": 1`, []element{{Line: 1, Col: 2, Err: "in:1:9: the file ends inside the list (unexpected EOF)"}}},
		{`[{"a": "0123456789012345"}]`, []element{{Line: 1, Col: 2, Err: "value too large"}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, elements(bytes.NewReader([]byte(tt.in)), 20)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.in, diff)
		}
	}
}

// FuzzElements: the elements do not depend on how the input arrives (whole,
// a byte at a time, in halves); each one's Line and Col point at its bytes
// in the input; and for a valid JSON list they are the elements
// encoding/json finds.
func FuzzElements(f *testing.F) {
	for _, s := range []string{`[]`, `[1,2]`, `[{"a":"\"]"},["x",{}]]`, "[\n\"a\\\\\",\n null ]", `[{"a"`, `["\u00e9", -1.5e3, false]`} {
		f.Add([]byte(s), 64)
	}
	f.Fuzz(func(t *testing.T, in []byte, limit int) {
		limit = 1 + abs(limit)%4096
		whole := elements(bytes.NewReader(in), limit)
		for name, r := range map[string]io.Reader{
			"one byte": iotest.OneByteReader(bytes.NewReader(in)),
			"halves":   iotest.HalfReader(bytes.NewReader(in)),
		} {
			if diff := cmp.Diff(whole, elements(r, limit)); diff != "" {
				t.Fatalf("%s (-whole +%s):\n%s", name, name, diff)
			}
		}
		var got [][]byte
		for _, e := range whole {
			if !e.OK {
				break
			}
			off := offset(in, e.Line, e.Col)
			if off < 0 || !bytes.HasPrefix(in[off:], []byte(e.Data)) {
				t.Fatalf("element %q at %d:%d is not there", e.Data, e.Line, e.Col)
			}
			got = append(got, []byte(e.Data))
		}
		var want []json.RawMessage
		if len(in) > limit || !bytes.HasPrefix(bytes.TrimLeft(in, " \t\r\n"), []byte("[")) || json.Unmarshal(in, &want) != nil {
			return
		}
		if len(got) != len(want) || whole[len(whole)-1].Err != "" {
			t.Fatalf("%d elements (%v), encoding/json finds %d", len(got), whole[len(whole)-1], len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("element %d: %q, encoding/json %q", i, got[i], want[i])
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
