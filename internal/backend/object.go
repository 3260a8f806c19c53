package backend

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Object is a JSON object that keeps its keys in insertion order and updates
// like a Python dict: setting an existing key replaces its value in place,
// a new key goes to the end. vLLM builds payloads as dicts and merges
// --extra-body with dict.update, so this is what reproduces its field order.
type Object struct {
	keys []string
	vals []json.RawMessage
}

// Len returns the number of keys.
func (o *Object) Len() int { return len(o.keys) }

// Keys returns the keys in order.
func (o *Object) Keys() []string { return o.keys }

// Get returns the raw value of key.
func (o *Object) Get(key string) (json.RawMessage, bool) {
	for i, k := range o.keys {
		if k == key {
			return o.vals[i], true
		}
	}
	return nil, false
}

// Set sets key to the raw JSON value v, which must be valid JSON.
func (o *Object) Set(key string, v json.RawMessage) {
	for i, k := range o.keys {
		if k == key {
			o.vals[i] = v
			return
		}
	}
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, v)
}

// SetValue marshals v and sets key to it.
func (o *Object) SetValue(key string, v any) error {
	b, err := marshal(v)
	if err != nil {
		return fmt.Errorf("encode %q: %w", key, err)
	}
	o.Set(key, b)
	return nil
}

// Update sets every key of other, in other's order (Python's dict.update).
func (o *Object) Update(other Object) {
	for i, k := range other.keys {
		o.Set(k, other.vals[i])
	}
}

// Clone returns a copy that can be updated without changing o.
func (o Object) Clone() Object {
	return Object{keys: append([]string(nil), o.keys...), vals: append([]json.RawMessage(nil), o.vals...)}
}

// AppendJSON appends o as compact JSON to dst.
func (o Object) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	for i, k := range o.keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		kb, _ := marshal(k) // a string always marshals
		dst = append(dst, kb...)
		dst = append(dst, ':')
		dst = append(dst, o.vals[i]...)
	}
	return append(dst, '}')
}

// MarshalJSON implements json.Marshaler.
func (o Object) MarshalJSON() ([]byte, error) { return o.AppendJSON(nil), nil }

// UnmarshalJSON implements json.Unmarshaler, keeping the key order of data.
// A repeated key keeps its first position and its last value, as Python's
// json.loads does.
func (o *Object) UnmarshalJSON(data []byte) error {
	p, err := ParseObject(data)
	if err != nil {
		return err
	}
	*o = p
	return nil
}

// ParseObject parses a JSON object, keeping its key order.
func ParseObject(data []byte) (Object, error) {
	var o Object
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return o, fmt.Errorf("parse JSON object: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return o, errors.New("parse JSON object: not an object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return o, fmt.Errorf("parse JSON object: %w", err)
		}
		key, ok := tok.(string)
		if !ok {
			return o, errors.New("parse JSON object: key is not a string")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return o, fmt.Errorf("parse JSON object: value of %q: %w", key, err)
		}
		o.Set(key, v)
	}
	if _, err := dec.Token(); err != nil {
		return o, fmt.Errorf("parse JSON object: %w", err)
	}
	if _, err := dec.Token(); err == nil {
		return o, errors.New("parse JSON object: trailing data after the object")
	}
	return o, nil
}

// marshal is json.Marshal without HTML escaping, so prompts reach the server
// byte for byte as the user wrote them (Python's json.dumps escapes only
// non-ASCII, which decodes to the same text).
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
