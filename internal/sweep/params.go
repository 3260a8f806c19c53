package sweep

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/readlimit"
)

// NameKey names a combination in the dict form of a parameter file; it is
// no parameter.
const NameKey = "_benchmark_name"

// Comb is one combination of parameters (vLLM's ParameterSweepItem): keys
// in the file's order, each a flag's name in either spelling (max_num_seqs
// or max-num-seqs) and its value as JSON decoded it.
type Comb struct {
	o *pyjson.Object
}

// NewComb is a combination of the keys and values of o, in its order.
func NewComb(o *pyjson.Object) Comb {
	if o == nil {
		o = pyjson.NewObject()
	}
	return Comb{o: o}
}

// Len is the number of keys, the name included.
func (c Comb) Len() int { return c.o.Len() }

// Keys are the keys in order.
func (c Comb) Keys() []string { return c.o.Keys() }

// Get is the value of key.
func (c Comb) Get(key string) (any, bool) { return c.o.Get(key) }

// With is a copy of c with key set to v (Python's comb | {key: v}: an
// existing key keeps its place).
func (c Comb) With(key string, v any) Comb {
	o := c.o.Clone()
	o.Set(key, v)
	return Comb{o: o}
}

// Name is the combination's _benchmark_name, else its parameters as
// "key=value" joined by "-" (ParameterSweepItem.name).
func (c Comb) Name() string {
	if v, ok := c.o.Get(NameKey); ok {
		return pyfmt.Str(v)
	}
	return c.Text("-")
}

// Text is "key=value" of every parameter joined by sep (as_text).
func (c Comb) Text(sep string) string {
	var parts []string
	for _, k := range c.o.Keys() {
		if k == NameKey {
			continue
		}
		v, _ := c.o.Get(k)
		parts = append(parts, k+"="+pyfmt.Str(v))
	}
	return strings.Join(parts, sep)
}

// Has reports whether the combination sets key in any spelling.
func (c Comb) Has(key string) bool {
	for _, k := range keyCandidates(key) {
		if _, ok := c.o.Get(k); ok {
			return true
		}
	}
	return false
}

// keyCandidates are the spellings of a key, vLLM's
// _iter_param_key_candidates: as given, "-" as "_", "_" as "-"; before a
// ".", only the part in front changes (inner config keys stay as they are).
func keyCandidates(key string) []string {
	if prefix, rest, ok := strings.Cut(key, "."); ok {
		var out []string
		for _, p := range keyCandidates(prefix) {
			out = append(out, p+"."+rest)
		}
		return out
	}
	return []string{key, strings.ReplaceAll(key, "-", "_"), strings.ReplaceAll(key, "_", "-")}
}

// flagCandidates are the flag spellings of a key, the dashed one first
// (_iter_cmd_key_candidates).
func flagCandidates(key string) []string {
	c := keyCandidates(key)
	slices.Reverse(c)
	for i := range c {
		c[i] = "--" + c[i]
	}
	return c
}

// flagWords are the words a key and value become: a boolean is --key or
// --no-key (--a.b=true or false for an inner key), anything else --key
// and Python's str of the value, a dict as its JSON (_normalize_cmd_kv_pair).
func flagWords(key string, v any) []string {
	if b, ok := v.(bool); ok {
		if strings.Contains(key, ".") {
			return []string{flagCandidates(key)[0] + "=" + strconv.FormatBool(b)}
		}
		if !b {
			key = "no-" + key
		}
		return []string{flagCandidates(key)[0]}
	}
	if o, ok := v.(*pyjson.Object); ok {
		b, err := pyjson.AppendPython(nil, o)
		if err == nil {
			return []string{flagCandidates(key)[0], string(b)}
		}
	}
	return []string{flagCandidates(key)[0], pyfmt.Str(v)}
}

// Apply is cmd with the combination's parameters applied, vLLM's
// apply_to_cmd: a flag already on the command line (in any spelling) gets
// the new value in place, one that is not is appended.
func (c Comb) Apply(cmd []string) []string {
	cmd = slices.Clone(cmd)
	for _, k := range c.o.Keys() {
		if k == NameKey {
			continue
		}
		v, _ := c.o.Get(k)
		words := flagWords(k, v)
		replaced := false
		for _, flag := range flagCandidates(k) {
			i := slices.Index(cmd, flag)
			if i < 0 {
				continue
			}
			cmd[i] = words[0]
			if len(words) == 2 && i+1 < len(cmd) {
				cmd[i+1] = words[1]
			} else if len(words) == 2 {
				cmd = append(cmd, words[1])
			}
			replaced = true
			break
		}
		if !replaced {
			cmd = append(cmd, words...)
		}
	}
	return cmd
}

// Params is the list of combinations of a parameter file (vLLM's
// ParameterSweep).
type Params []Comb

// One is the list of a single empty combination: the command as it is.
func One() Params { return Params{NewComb(nil)} }

// maxParamsBytes bounds a parameter file.
const maxParamsBytes = 64 << 20

// ReadParams reads a parameter file: a JSON list of objects, or an object
// of named objects ({"name": {...}}: each gets _benchmark_name), vLLM's
// ParameterSweep.read_json. Names must be unique.
func ReadParams(path string) (Params, error) {
	data, err := readlimit.File(path, maxParamsBytes)
	if err != nil {
		return nil, fmt.Errorf("read parameter file: %w", err)
	}
	v, err := pyjson.DecodeFile(data)
	if err != nil {
		return nil, fmt.Errorf("parameter file %s: %w", path, err)
	}
	p, err := paramsOf(v)
	if err != nil {
		return nil, fmt.Errorf("parameter file %s: %w", path, err)
	}
	return p, nil
}

// paramsOf is the combinations of a decoded parameter file.
func paramsOf(v any) (Params, error) {
	var records []any
	switch x := v.(type) {
	case *pyjson.Object:
		for _, name := range x.Keys() {
			it, _ := x.Get(name)
			o, ok := it.(*pyjson.Object)
			if !ok {
				return nil, fmt.Errorf("the combination %q is not an object", name)
			}
			rec := pyjson.NewObject()
			rec.Set(NameKey, name)
			rec.Update(o)
			records = append(records, rec)
		}
	case []any:
		records = x
	default:
		return nil, errors.New("the parameter sweep should be a list of objects or an object of named objects")
	}
	var p Params
	seen := map[string]bool{}
	for i, r := range records {
		o, ok := r.(*pyjson.Object)
		if !ok {
			return nil, fmt.Errorf("item %d of the parameter sweep is not an object", i)
		}
		if n, ok := o.Get(NameKey); ok {
			if seen[pyfmt.Str(n)] {
				return nil, fmt.Errorf("duplicate %s value %q: every name must be unique", NameKey, pyfmt.Str(n))
			}
			seen[pyfmt.Str(n)] = true
		}
		p = append(p, NewComb(o))
	}
	return p, nil
}
