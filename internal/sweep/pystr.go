package sweep

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/pyjson"
)

// pyStr is Python's str(v) of a value decoded by pyjson: what vLLM's
// ParameterSweepItem puts on a command line and in a combination's name
// (vllm/benchmarks/sweep/param_sweep.py@11dfa3169): 8, 0.5, inf, True,
// None, the text of a string, the repr of a list or a dict.
func pyStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return pyRepr(v)
}

// pyRepr is Python's repr(v): strings quoted, containers with their items'
// reprs.
func pyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int:
		return strconv.Itoa(x)
	case json.Number:
		return string(x)
	case float64:
		return pyfmt.Float(x)
	case string:
		return pyfmt.StrRepr(x)
	case []any:
		parts := make([]string, len(x))
		for i, it := range x {
			parts[i] = pyRepr(it)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *pyjson.Object:
		parts := make([]string, 0, x.Len())
		for _, k := range x.Keys() {
			it, _ := x.Get(k)
			parts = append(parts, pyfmt.StrRepr(k)+": "+pyRepr(it))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return "?"
}
