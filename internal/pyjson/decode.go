package pyjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Decode decodes one JSON value the way Python's json.loads does, into the
// values the writers take: objects become *Object with their key order (a
// repeated key keeps its first position and its last value), arrays []any,
// integers int, integers beyond int json.Number (Python's integers have no
// limit, and the digits are written back unchanged), other numbers float64.
// A float out of range (1e400, which Python reads as inf), Python's
// non-standard NaN and Infinity, and anything after the value are errors.
//
// Decoded values written back with AppendCompact are what vLLM sends for
// the same --extra-body (it parses it with json.loads and sends
// json.dumps): 1.50 becomes 1.5, 1E5 becomes 100000.0.
func Decode(data []byte) (any, error) { return decodeText(data, nil) }

// DecodeObject is Decode for a value that must be an object.
func DecodeObject(data []byte) (*Object, error) { return object(Decode(data)) }

// decodeText decodes data, which must hold one value and nothing after it;
// the numbers ending at the offsets of nonFinite stand for its values.
func decodeText(data []byte, nonFinite map[int64]float64) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValueWith(dec, nonFinite)
	if err != nil {
		return nil, fmt.Errorf("decode JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("decode JSON: trailing data")
	}
	return v, nil
}

// object is a decoded value that must be an object.
func object(v any, err error) (*Object, error) {
	if err != nil {
		return nil, err
	}
	o, ok := v.(*Object)
	if !ok {
		return nil, errors.New("decode JSON: not an object")
	}
	return o, nil
}

// decodeValueWith decodes the next value of dec; a number that ends at
// an offset of nonFinite stands for its value there (DecodeFile).
func decodeValueWith(dec *json.Decoder, nonFinite map[int64]float64) (any, error) {
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
				v, err := decodeValueWith(dec, nonFinite)
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
				v, err := decodeValueWith(dec, nonFinite)
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
		if f, ok := nonFinite[dec.InputOffset()]; ok {
			return f, nil
		}
		return decodeNumber(t)
	default: // string, bool, nil
		return t, nil
	}
}

// decodeNumber is int for an integer that fits, json.Number for a larger
// one and float64 otherwise.
func decodeNumber(n json.Number) (any, error) {
	s := string(n)
	if isInteger(s) {
		if i, err := strconv.Atoi(s); err == nil {
			return i, nil
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("number %s: %w", s, err)
	}
	return f, nil
}

// Number returns a decoded JSON number as a float64: the int, float64 or
// json.Number (an integer too large for int) that Decode produces, and
// int64. ok is false for any other value (null, strings, lists).
func Number(v any) (f float64, ok bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}
