package pyjson

import "slices"

// Object is a JSON object that keeps its keys in insertion order, like the
// Python dict vLLM builds its payloads and results in: setting an existing
// key replaces its value in place (the key keeps its first position), a new
// key goes last, Update is dict.update and Delete removes a key. This is
// what reproduces vLLM's key order, in result files and in request bodies
// merged with --extra-body alike. The zero value is an empty object ready
// to use. Assigning an Object shares its storage; use Clone for a copy that
// can change independently.
type Object struct {
	entries []entry
	// index maps each key to its position once the object has more than
	// indexFrom keys; smaller objects (every request body) scan entries,
	// which is faster than hashing and allocates nothing.
	index map[string]int
}

type entry struct {
	key string
	val any
}

// indexFrom is the number of keys above which an Object keeps an index.
const indexFrom = 16

// NewObject returns an empty Object.
func NewObject() *Object { return &Object{} }

// find returns the position of key, or -1.
func (o *Object) find(key string) int {
	if o.index != nil {
		if i, ok := o.index[key]; ok {
			return i
		}
		return -1
	}
	for i := range o.entries {
		if o.entries[i].key == key {
			return i
		}
	}
	return -1
}

// reindex rebuilds the index from entries.
func (o *Object) reindex() {
	o.index = make(map[string]int, len(o.entries))
	for i, e := range o.entries {
		o.index[e.key] = i
	}
}

// Set stores v under key: appended if the key is new, replaced in place
// otherwise (Python's d[key] = v). The package documentation lists the
// values the writers take.
func (o *Object) Set(key string, v any) {
	if i := o.find(key); i >= 0 {
		o.entries[i].val = v
		return
	}
	o.entries = append(o.entries, entry{key, v})
	switch {
	case o.index != nil:
		o.index[key] = len(o.entries) - 1
	case len(o.entries) > indexFrom:
		o.reindex()
	}
}

// Get returns the value stored under key and whether it exists.
func (o *Object) Get(key string) (any, bool) {
	if i := o.find(key); i >= 0 {
		return o.entries[i].val, true
	}
	return nil, false
}

// Delete removes key if present (Python's `if k in d: del d[k]`).
func (o *Object) Delete(key string) {
	i := o.find(key)
	if i < 0 {
		return
	}
	o.entries = slices.Delete(o.entries, i, i+1)
	if o.index != nil {
		o.reindex()
	}
}

// Keys returns the keys in order (a copy).
func (o *Object) Keys() []string {
	keys := make([]string, len(o.entries))
	for i, e := range o.entries {
		keys[i] = e.key
	}
	return keys
}

// Len returns the number of keys.
func (o *Object) Len() int { return len(o.entries) }

// Update sets every key of other, in other's order (Python's
// d.update(other)): keys o has keep their position, new keys go last.
func (o *Object) Update(other *Object) {
	for _, e := range other.entries {
		o.Set(e.key, e.val)
	}
}

// Clone returns a copy that can be set, updated and deleted from without
// changing o. Like Python's dict.copy it is shallow: nested objects and
// lists are shared.
func (o *Object) Clone() *Object {
	c := &Object{entries: slices.Clone(o.entries)}
	if o.index != nil {
		c.reindex()
	}
	return c
}

// MarshalJSON encodes o as AppendCompact does, so that an Object can also
// be a value given to encoding/json.
func (o *Object) MarshalJSON() ([]byte, error) { return AppendCompact(nil, o) }

// Plain returns o as Go maps and slices (nested objects become
// map[string]any, lists []any; numbers stay int, json.Number or float64),
// for code that takes plain Go values, such as a template engine. The key
// order is lost.
func (o *Object) Plain() map[string]any {
	m := make(map[string]any, len(o.entries))
	for _, e := range o.entries {
		m[e.key] = plain(e.val)
	}
	return m
}

// plain converts one decoded value for Plain.
func plain(v any) any {
	switch x := v.(type) {
	case *Object:
		return x.Plain()
	case []any:
		out := make([]any, len(x))
		for i, y := range x {
			out[i] = plain(y)
		}
		return out
	}
	return v
}
