package resultfile

import (
	"encoding/json"
	"strings"

	"github.com/gobench/gobench/internal/pyjson"
)

// Lookup returns the value that key names: a top-level key of the result,
// or a dotted path into an object the result holds, such as
// "server_view.ratios.preemptions" or
// "server_view.quantiles.vllm:time_to_first_token_seconds.p99". Values come
// decoded as pyjson.Decode decodes them (*pyjson.Object, []any, int,
// float64, string, bool, nil).
//
// A name may itself contain dots (the top-level "p99.9_itl_ms"): at each
// level the whole remaining path is tried as a name first, then its
// dotted prefixes from the shortest. In a list of objects a name selects
// the element whose "metric" member has that value, so that the rows of
// server_view.client_vs_server are named by their metric
// ("server_view.client_vs_server.ttft.gap_mean").
func (r *Run) Lookup(key string) (any, bool) {
	if raw, ok := r.Raw(key); ok {
		return decodeRaw(raw)
	}
	for i := 0; i < len(key); i++ {
		if key[i] != '.' {
			continue
		}
		o, ok := r.Object(key[:i])
		if !ok {
			continue
		}
		if v, ok := resolve(o, key[i+1:]); ok {
			return v, true
		}
	}
	return nil, false
}

// decodeRaw decodes one top-level value.
func decodeRaw(raw json.RawMessage) (any, bool) {
	v, err := pyjson.Decode(raw)
	return v, err == nil
}

// resolve finds path inside the object or list v (Lookup).
func resolve(v any, path string) (any, bool) {
	if x, ok := member(v, path); ok {
		return x, true
	}
	for i := 0; i < len(path); i++ {
		if path[i] != '.' {
			continue
		}
		child, ok := member(v, path[:i])
		if !ok || !isContainer(child) {
			continue
		}
		if x, ok := resolve(child, path[i+1:]); ok {
			return x, true
		}
	}
	return nil, false
}

// member is the value named name directly inside v: an object's member, or
// the element of a list of objects whose "metric" is name.
func member(v any, name string) (any, bool) {
	switch v := v.(type) {
	case *pyjson.Object:
		return v.Get(name)
	case []any:
		for _, e := range v {
			if o, ok := e.(*pyjson.Object); ok {
				if m, _ := o.Get("metric"); m == name {
					return o, true
				}
			}
		}
	}
	return nil, false
}

func isContainer(v any) bool {
	switch v.(type) {
	case *pyjson.Object, []any:
		return true
	}
	return false
}

// nestedNumber is the value at a dotted path (Lookup) when it is a
// number, or one of the strings that spell a non-finite float.
func (r *Run) nestedNumber(key string) (float64, bool) {
	if !strings.Contains(key, ".") {
		return 0, false
	}
	v, ok := r.Lookup(key)
	if !ok {
		return 0, false
	}
	return asNumber(v)
}

// asNumber is a decoded value (Lookup) as a float64 when it is a number:
// an integer, a float, or one of the strings gobench and vLLM write for
// non-finite floats ("inf", "nan", "Infinity", ...).
func asNumber(v any) (float64, bool) {
	if s, ok := v.(string); ok {
		f, ok := nonFinite[s]
		return f, ok
	}
	return pyjson.Number(v)
}

// nestedString is the value at a dotted path (Lookup) when it is a string.
func (r *Run) nestedString(key string) (string, bool) {
	if !strings.Contains(key, ".") {
		return "", false
	}
	v, ok := r.Lookup(key)
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	return s, ok
}
