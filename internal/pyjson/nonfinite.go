package pyjson

import (
	"bytes"
	"fmt"
	"math"
)

// NonFinite is one of the bare tokens NaN, Infinity and -Infinity that
// Python's json.dump writes for a non-finite float (vLLM does, e.g. for
// --burstiness inf) and json.loads reads back; standard JSON has none.
type NonFinite struct {
	// Start is the token's offset in the text; Token its spelling.
	Start int
	Token string
}

// Value is the float the token stands for.
func (t NonFinite) Value() float64 {
	switch t.Token {
	case "NaN":
		return math.NaN()
	case "Infinity":
		return math.Inf(1)
	}
	return math.Inf(-1)
}

// FindNonFinite returns the bare non-finite tokens of data in order, text
// inside strings left alone. It only looks for the tokens: data need not
// be valid JSON.
func FindNonFinite(data []byte) []NonFinite {
	var found []NonFinite
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		var tok string
		switch c {
		case '"':
			inString = true
			continue
		case 'N':
			tok = "NaN"
		case 'I':
			tok = "Infinity"
		case '-':
			tok = "-Infinity"
		default:
			continue
		}
		if bytes.HasPrefix(data[i:], []byte(tok)) {
			found = append(found, NonFinite{Start: i, Token: tok})
			i += len(tok) - 1
		}
	}
	return found
}

// DecodeFile is Decode for a file Python's json.dump wrote: it also reads
// the bare NaN, Infinity and -Infinity as json.loads does, into float64
// values (which AppendPython writes as the strings "nan", "inf" and
// "-inf", the package's rule for non-finite floats). (Decode refuses
// them: it reads what a user types, e.g. --extra-body, where vLLM would
// send such a value on to the server as invalid JSON.)
func DecodeFile(data []byte) (any, error) {
	toks := FindNonFinite(data)
	if len(toks) == 0 {
		return Decode(data)
	}
	// Each token becomes the number 0, and its value is found again by
	// where that number ends in the rewritten text: exact, whatever the
	// text's strings and other numbers hold.
	var out []byte
	last := 0
	at := make(map[int64]float64, len(toks))
	for _, t := range toks {
		out = append(out, data[last:t.Start]...)
		out = append(out, '0')
		at[int64(len(out))] = t.Value()
		last = t.Start + len(t.Token)
	}
	return decodeText(append(out, data[last:]...), at)
}

// DecodeFileObject is DecodeFile for a value that must be an object.
func DecodeFileObject(data []byte) (*Object, error) { return object(DecodeFile(data)) }

// NonFinitePaths lists where a value built for the writers (floats, lists,
// Objects) holds a NaN or an infinity, as paths below path ("x.a[2]"): a
// check that a figure which could not be computed was left out or made
// null rather than written as NaN.
func NonFinitePaths(v any, path string) []string {
	bad := func(f float64) bool { return math.IsNaN(f) || math.IsInf(f, 0) }
	var out []string
	switch x := v.(type) {
	case float64:
		if bad(x) {
			out = append(out, path)
		}
	case []float64:
		for i, f := range x {
			if bad(f) {
				out = append(out, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	case []any:
		for i, e := range x {
			out = append(out, NonFinitePaths(e, fmt.Sprintf("%s[%d]", path, i))...)
		}
	case []*Object:
		for i, e := range x {
			out = append(out, NonFinitePaths(e, fmt.Sprintf("%s[%d]", path, i))...)
		}
	case *Object:
		for _, k := range x.Keys() {
			e, _ := x.Get(k)
			out = append(out, NonFinitePaths(e, path+"."+k)...)
		}
	}
	return out
}
