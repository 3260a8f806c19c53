package argparse

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/readlimit"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

// maxConfigBytes bounds a serve --config file, so that a path naming a
// device or a pipe that never ends fails instead of exhausting memory: a
// file of flags is a few kilobytes.
const maxConfigBytes = 1 << 20

// maxConfigArgBytes bounds the arguments a config file expands into, so
// that YAML aliases (a "billion laughs" file) cannot make a small file
// expand without end.
const maxConfigArgBytes = 1 << 20

// configEntry is one top-level key of a config file: the arguments it
// stands for, as vLLM's FlexibleArgumentParser.load_config_file
// (vllm/utils/argparse_utils.py@00da11e37) writes them, and the line of
// the key.
type configEntry struct {
	key  string
	line int
	args []string
	// negatable: the key is false and its flag has a --no- form, which
	// vLLM's loader does not write (the key is left out): worth a note.
	negatable bool
}

// configLineError is an error in a config file at a line.
type configLineError struct {
	line int
	err  error
}

func (e *configLineError) Error() string { return fmt.Sprintf("line %d: %v", e.line, e.err) }
func (e *configLineError) Unwrap() error { return e.err }

// parseConfigFile turns a YAML config file into command-line arguments
// the way vLLM's load_config_file does (yaml.safe_load, then per key):
//
//   - true is "--key", false is nothing, even when a --no-key flag
//     exists (self_timed: false leaves --self-timed's default, as in
//     vLLM); the entry is then marked negatable for a note;
//   - a list is "--key item ..." (nothing when empty), each item as
//     Python's str() writes it;
//   - a mapping is "--key" and its json.dumps text (for JSON flags such
//     as --extra-body);
//   - anything else is "--key" and its str() text (null is "None").
//
// Scalars resolve as PyYAML's YAML 1.1 resolver does (yes/no/on/off are
// booleans, 0x1f and 010 integers, 1.5 a float, 1e5 a string), except
// base-60 numbers, which stay strings. vLLM fails on a file that is not a
// mapping; so does this, with the line. A list item that is not a plain
// value, which vLLM passes as Python's repr, is refused.
func parseConfigFile(text []byte, hasFlag func(string) bool) ([]configEntry, error) {
	dec := yaml.NewDecoder(strings.NewReader(string(text)))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return nil, errors.New("expected flag: value lines, got an empty file")
	} else if err != nil {
		return nil, err
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil && next.Kind == 0:
		return nil, err
	default:
		return nil, &configLineError{max(next.Line, 1), errors.New("a config file holds one YAML document")}
	}
	root := resolveAlias(&doc)
	if root.Kind != yaml.MappingNode {
		return nil, &configLineError{root.Line, fmt.Errorf("expected flag: value lines, got %s", describeNode(root))}
	}
	w := &configWalker{hasFlag: hasFlag, budget: maxConfigArgBytes, open: map[*yaml.Node]bool{}}
	return w.mappingEntries(root)
}

// configWalker walks a config file's nodes: hasFlag says which flags
// exist, budget is what the arguments may still take, and open holds the
// mappings and lists being walked, so that one that holds itself (through
// an alias) is an error rather than endless.
type configWalker struct {
	hasFlag func(string) bool
	budget  int
	open    map[*yaml.Node]bool
}

// enter marks n open, failing when it already is.
func (w *configWalker) enter(n *yaml.Node) error {
	if w.open[n] {
		return fmt.Errorf("the value at line %d holds itself", n.Line)
	}
	w.open[n] = true
	return nil
}

// mappingEntries is the entries of the top-level mapping node, in the
// order of mergedPairs: as the last occurrence of a flag wins, the
// mapping's own keys override what it merges, as in PyYAML.
func (w *configWalker) mappingEntries(m *yaml.Node) ([]configEntry, error) {
	pairs, err := w.mergedPairs(m)
	if err != nil {
		return nil, err
	}
	var out []configEntry
	for i := 0; i < len(pairs); i += 2 {
		k, v := pairs[i], pairs[i+1]
		if k.Kind != yaml.ScalarNode || yamlScalar(k).kind != "str" || k.Value == "" {
			return nil, &configLineError{k.Line, fmt.Errorf("expected a flag name, got %s", describeNode(k))}
		}
		args, err := w.entryArgs(k.Value, v)
		negatable := false
		if s := yamlScalar(v); v.Kind == yaml.ScalarNode && s.kind == "bool" && !s.b {
			negatable = w.hasFlag("no-" + strings.ReplaceAll(k.Value, "_", "-"))
		}
		if err == nil {
			err = w.spend([]string{k.Value}) // merges repeat keys
		}
		if err != nil {
			return nil, &configLineError{k.Line, fmt.Errorf("%s: %w", k.Value, err)}
		}
		out = append(out, configEntry{key: k.Value, line: k.Line, args: args, negatable: negatable})
	}
	return out, nil
}

// mergedPairs is the keys and values (alternating, aliases resolved) of
// mapping m as PyYAML's flatten_mapping orders them: the pairs of the
// mappings a merge key ("<<: *base", or a list of them) names, the later
// ones of a list first, then m's own; a later pair overrides an earlier
// one with the same key.
func (w *configWalker) mergedPairs(m *yaml.Node) ([]*yaml.Node, error) {
	if err := w.enter(m); err != nil {
		return nil, &configLineError{m.Line, err}
	}
	defer delete(w.open, m)
	var merged, own []*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := resolveAlias(m.Content[i]), resolveAlias(m.Content[i+1])
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!merge" {
			if err := w.spend([]string{k.Value}); err != nil {
				return nil, &configLineError{k.Line, err}
			}
			own = append(own, k, v)
			continue
		}
		sources := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			sources = v.Content
		}
		for j := len(sources) - 1; j >= 0; j-- {
			src := resolveAlias(sources[j])
			if src.Kind != yaml.MappingNode {
				return nil, &configLineError{k.Line, fmt.Errorf("<<: expected a mapping to merge, got %s", describeNode(src))}
			}
			pairs, err := w.mergedPairs(src)
			if err == nil {
				err = w.spend(make([]string, len(pairs))) // a merge copies them
			}
			if le := (*configLineError)(nil); err != nil && !errors.As(err, &le) {
				err = &configLineError{k.Line, err}
			}
			if err != nil {
				return nil, err
			}
			merged = append(merged, pairs...)
		}
	}
	return append(merged, own...), nil
}

// entryArgs is the arguments of one key and its value.
func (w *configWalker) entryArgs(key string, v *yaml.Node) ([]string, error) {
	flag := "--" + key
	switch v.Kind {
	case yaml.SequenceNode:
		if len(v.Content) == 0 {
			return nil, nil
		}
		args := []string{flag}
		for _, item := range v.Content {
			item = resolveAlias(item)
			if item.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("a list item must be a plain value, got %s (line %d)", describeNode(item), item.Line)
			}
			args = append(args, yamlScalar(item).str())
		}
		return args, w.spend(args)
	case yaml.MappingNode:
		obj, err := w.nodeJSON(v)
		if err != nil {
			return nil, err
		}
		b, err := pyjson.AppendPython(nil, obj)
		if err != nil {
			return nil, err
		}
		args := []string{flag, string(b)}
		return args, w.spend(args)
	}
	s := yamlScalar(v)
	if s.kind == "bool" {
		if s.b {
			return []string{flag}, nil
		}
		return nil, nil
	}
	args := []string{flag, s.str()}
	return args, w.spend(args)
}

// spend takes the size of args from the budget, failing once it is spent.
func (w *configWalker) spend(args []string) error {
	for _, a := range args {
		w.budget -= len(a) + 1
	}
	if w.budget < 0 {
		return fmt.Errorf("expands to more than %s of arguments", readlimit.Size(maxConfigArgBytes))
	}
	return nil
}

// nodeJSON is the value PyYAML builds for n, as package pyjson writes it.
func (w *configWalker) nodeJSON(n *yaml.Node) (any, error) {
	n = resolveAlias(n)
	if err := w.spend([]string{n.Value, ""}); err != nil {
		return nil, err
	}
	if n.Kind == yaml.SequenceNode { // mergedPairs marks a mapping
		if err := w.enter(n); err != nil {
			return nil, err
		}
		defer delete(w.open, n)
	}
	switch n.Kind {
	case yaml.MappingNode:
		pairs, err := w.mergedPairs(n)
		if err != nil {
			return nil, err
		}
		obj := pyjson.NewObject()
		for i := 0; i < len(pairs); i += 2 {
			k := pairs[i]
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("a key must be a plain value, got %s (line %d)", describeNode(k), k.Line)
			}
			v, err := w.nodeJSON(pairs[i+1])
			if err != nil {
				return nil, err
			}
			obj.Set(yamlScalar(k).jsonKey(), v)
		}
		return obj, nil
	case yaml.SequenceNode:
		list := make([]any, 0, len(n.Content))
		for _, item := range n.Content {
			v, err := w.nodeJSON(item)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		return list, nil
	}
	return yamlScalar(n).json(), nil
}

// resolveAlias follows a YAML alias to the node it names.
func resolveAlias(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		return resolveAlias(n.Content[0])
	}
	return n
}

// pyScalar is a YAML scalar as PyYAML's safe_load constructs it.
type pyScalar struct {
	// kind is "null", "bool", "int", "float" or "str".
	kind string
	b    bool
	i    *big.Int
	f    float64
	s    string
}

// PyYAML's implicit resolvers (yaml/resolver.py), base-60 forms left out.
var (
	yamlBool  = regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	yamlInt   = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$`)
	yamlFloat = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	yamlNull  = regexp.MustCompile(`^(?:~|null|Null|NULL|)$`)
)

// yamlScalar resolves a scalar node: quoted and block scalars and those
// tagged !!str are strings; plain ones resolve by their text.
func yamlScalar(n *yaml.Node) pyScalar {
	v := n.Value
	quoted := n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0
	if quoted || n.Style&yaml.TaggedStyle != 0 && n.ShortTag() == "!!str" {
		return pyScalar{kind: "str", s: v}
	}
	switch {
	case yamlNull.MatchString(v):
		return pyScalar{kind: "null"}
	case yamlBool.MatchString(v):
		c := v[0] | 0x20
		return pyScalar{kind: "bool", b: c == 'y' || c == 't' || strings.EqualFold(v, "on")}
	case yamlInt.MatchString(v):
		if i, ok := new(big.Int).SetString(strings.ReplaceAll(v, "_", ""), 0); ok {
			return pyScalar{kind: "int", i: i}
		}
	case yamlFloat.MatchString(v):
		return pyScalar{kind: "float", f: yamlFloatValue(v)}
	}
	return pyScalar{kind: "str", s: v}
}

// yamlFloatValue is PyYAML's construct_yaml_float of a text the float
// resolver matched.
func yamlFloatValue(v string) float64 {
	v = strings.ToLower(strings.ReplaceAll(v, "_", ""))
	sign := 1.0
	if v[0] == '-' || v[0] == '+' {
		if v[0] == '-' {
			sign = -1
		}
		v = v[1:]
	}
	switch v {
	case ".inf":
		return sign * math.Inf(1)
	case ".nan":
		return math.NaN()
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return math.NaN() // unreachable: the resolver matched a decimal
	}
	return sign * f
}

// str is Python's str() of the value.
func (s pyScalar) str() string {
	switch s.kind {
	case "null":
		return "None"
	case "bool":
		if s.b {
			return "True"
		}
		return "False"
	case "int":
		return s.i.String()
	case "float":
		return pyfmt.Float(s.f)
	}
	return s.s
}

// json is the value as package pyjson writes it.
func (s pyScalar) json() any {
	switch s.kind {
	case "null":
		return nil
	case "bool":
		return s.b
	case "int":
		return json.Number(s.i.String())
	case "float":
		return s.f
	}
	return s.s
}

// jsonKey is json.dumps's text of a dict key of this value.
func (s pyScalar) jsonKey() string {
	switch s.kind {
	case "null":
		return "null"
	case "bool":
		return strconv.FormatBool(s.b)
	case "float":
		switch {
		case math.IsNaN(s.f):
			return "NaN"
		case math.IsInf(s.f, 1):
			return "Infinity"
		case math.IsInf(s.f, -1):
			return "-Infinity"
		}
	}
	return s.str()
}

// describeNode names what a YAML node holds, for an error.
func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if s := yamlScalar(n); s.kind == "null" {
			return "nothing"
		}
		return strconv.Quote(n.Value)
	}
	return "a document"
}

// WithConfig expands the --config=FILE of arguments that Normalize wrote
// (serve's, vLLM's FlexibleArgumentParser) into the YAML file's flags, or
// returns norm as it is when there is none: the file's flags go first,
// each checked alone on a flag set fresh returns, so that an error names
// the file and the key's line, and a flag the command line also gives is
// dropped from the file's, so that the command line wins (for nargs lists
// too, as argparse's last occurrence replaces the earlier ones). fs and
// lists are those Normalize was given.
func WithConfig(norm []string, fs *pflag.FlagSet, lists map[string]int, fresh func() *pflag.FlagSet) ([]string, error) {
	return WithConfigNotes(norm, fs, lists, fresh, io.Discard)
}

// WithConfigNotes is WithConfig that writes to notes one line for each
// false key whose flag has a --no- form: vLLM's loader leaves such a key
// out, and so does gobench, but the file's author likely meant the --no-
// form.
func WithConfigNotes(norm []string, fs *pflag.FlagSet, lists map[string]int, fresh func() *pflag.FlagSet, notes io.Writer) ([]string, error) {
	path, rest, err := takeConfigArg(norm)
	if err != nil || path == "" {
		return norm, err
	}
	entries, err := loadConfigFile(path, fs)
	if err != nil {
		return nil, err
	}
	given := map[string]bool{}
	for _, a := range rest {
		if name, _, ok := strings.Cut(strings.TrimPrefix(a, "--"), "="); ok || strings.HasPrefix(a, "--") {
			given[name] = true
		}
	}
	norms, flags := make([][]string, len(entries)), make([]string, len(entries))
	last := map[string]int{}
	for i, e := range entries {
		where := fmt.Sprintf("--config %s:%d: %s", path, e.line, e.key)
		name := e.key
		switch {
		case len(e.args) > 0:
			name = strings.TrimPrefix(e.args[0], "--")
		case e.negatable:
			name = "no-" + e.key // oversample: false, where only --no-oversample exists
		}
		f, err := configFlag(fs, name)
		if err != nil {
			return nil, exitcode.Usagef("%s: %w", where, err)
		}
		n, err := Normalize(e.args, fs, lists)
		if err == nil {
			err = fresh().Parse(n)
		}
		if err != nil {
			return nil, exitcode.Usagef("%s: %w", where, flagError(err))
		}
		norms[i], flags[i], last[f.Name] = n, f.Name, i
		if e.negatable {
			sep := "-"
			if strings.Contains(e.key, "_") {
				sep = "_"
			}
			fmt.Fprintf(notes, "Note: %s: false leaves the flag unset, as vLLM's loader does (no%s%s: true gives --%s).\n",
				where, sep, e.key, f.Name)
		}
	}
	var out []string
	for i, n := range norms {
		// A flag the file gives twice (num_prompts and num-prompts, or
		// through a merge key) takes its last value, lists included.
		if !given[flags[i]] && last[flags[i]] == i {
			out = append(out, n...)
		}
	}
	return append(out, rest...), nil
}

// takeConfigArg finds the one --config=FILE of the normalized arguments
// and returns FILE and the other arguments.
func takeConfigArg(norm []string) (string, []string, error) {
	path, rest := "", make([]string, 0, len(norm))
	for i, a := range norm {
		if a == "--" {
			rest = append(rest, norm[i:]...)
			break
		}
		v, ok := strings.CutPrefix(a, "--config=")
		if !ok {
			rest = append(rest, a)
			continue
		}
		if path != "" {
			return "", nil, exitcode.Usagef("argument --config: more than one config file (%s and %s)", path, v)
		}
		if v == "" {
			return "", nil, exitcode.Usagef("argument --config: expected a YAML file name")
		}
		path = v
	}
	return path, rest, nil
}

// loadConfigFile reads and parses the file of --config: vLLM accepts .yaml
// and .yml names only.
func loadConfigFile(path string, fs *pflag.FlagSet) ([]configEntry, error) {
	ext := path[strings.LastIndexByte(path, '.')+1:]
	if ext != "yaml" && ext != "yml" {
		return nil, exitcode.Usagef("argument --config: %s: the config file must be a .yaml or .yml file", path)
	}
	b, err := readlimit.File(path, maxConfigBytes)
	if err != nil {
		return nil, exitcode.Usagef("argument --config: %w", err)
	}
	hasFlag := func(name string) bool { return fs.Lookup(name) != nil }
	entries, err := parseConfigFile(b, hasFlag)
	var le *configLineError
	switch {
	case errors.As(err, &le):
		return nil, exitcode.Usagef("--config %s:%d: %w", path, le.line, le.err)
	case err != nil:
		return nil, exitcode.Usagef("--config %s: %w", path, err)
	}
	return entries, nil
}

// configFlag is the flag a config key names (underscores or dashes, or an
// unambiguous prefix, as on the command line); an unknown key is an error
// naming the nearest flag, and --config itself is refused.
func configFlag(fs *pflag.FlagSet, key string) (*pflag.Flag, error) {
	head, _, _ := strings.Cut(key, ".")
	head = strings.ReplaceAll(head, "_", "-")
	f, err := resolveFlag(fs, head)
	switch {
	case err != nil:
		return nil, err
	case f == nil:
		return nil, fmt.Errorf("unknown flag --%s%s", head, SuggestFlag(fs, head))
	case f.Name == "config":
		return nil, errors.New("a config file cannot name another")
	}
	return f, nil
}

// flagError is the usage error inside a pflag parse error (a flag value
// says what is wrong in argparse's words), or err itself.
func flagError(err error) error {
	var ue *exitcode.UsageError
	if errors.As(err, &ue) {
		return ue
	}
	return err
}
