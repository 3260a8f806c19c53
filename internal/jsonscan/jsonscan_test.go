package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMaxDepth: nesting is valid up to encoding/json's bound and not past
// it, as json.Valid says.
func TestMaxDepth(t *testing.T) {
	for _, depth := range []int{1, maxDepth, maxDepth + 1} {
		for _, open := range []string{"[", `{"a":`} {
			closing := map[string]string{"[": "]", `{"a":`: "}"}[open]
			v := []byte(strings.Repeat(open, depth) + "1" + strings.Repeat(closing, depth))
			s := New(v)
			err := s.Skip()
			if err == nil {
				err = s.End()
			}
			if (err == nil) != json.Valid(v) {
				t.Errorf("depth %d of %q: scanner err %v, json.Valid %v", depth, open, err, json.Valid(v))
			}
		}
	}
}

// FuzzText: a valid JSON string decodes as json.Unmarshal decodes it, and
// Skip takes what json.Valid takes.
func FuzzText(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\"b\n"`, "\"\xe2\x82\"", `"\u00e9\ud800"`, `"\ud83d\ude00x"`, `""`, `[1,{"a":null}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		s := New(raw)
		err := s.Skip()
		if err == nil {
			err = s.End()
		}
		if (err == nil) != json.Valid(raw) {
			t.Fatalf("%q: scanner err %v, json.Valid %v", raw, err, json.Valid(raw))
		}
		if err != nil || len(raw) == 0 || New(raw).Peek() != '"' {
			return
		}
		rs, esc, _ := New(raw).Str()
		var want string
		if err := json.Unmarshal(raw, &want); err != nil || Text(rs, esc) != want {
			t.Fatalf("Text(%q) = %q; json.Unmarshal gives %q, %v", raw, Text(rs, esc), want, err)
		}
	})
}
