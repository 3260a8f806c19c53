package cli

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"

	"github.com/gobench/gobench/internal/backend"
	"github.com/spf13/pflag"
)

// normalizeArgs rewrites a vLLM command line into one pflag parses the same
// way argparse (vLLM's FlexibleArgumentParser) would:
//
//   - "_" becomes "-" in flag names up to the first "." (--num_prompts);
//   - unambiguous prefixes select their flag (--num-prom 5), ambiguous ones
//     are refused with argparse's message;
//   - nargs flags take every following value that does not look like an
//     option (--goodput ttft:500 tpot:50, --header a=1 b=2);
//   - value flags take the next argument even when it is a negative number
//     (--seed -1), and "expected one argument" when the next is an option;
//   - dotted JSON flags build an object: --extra-body.top_k 5 is
//     --extra-body '{"top_k": 5}' (values JSON-decoded when they parse,
//     "key+" appends to a list).
//
// Every flag comes out as --name=value, so pflag's own rules for separate
// values never apply.
func normalizeArgs(args []string, fs *pflag.FlagSet, lists map[string]int) ([]string, error) {
	var out []string
	dotted := map[string]*backend.Object{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...), nil
		}
		if !strings.HasPrefix(a, "--") {
			out = append(out, a)
			continue
		}
		name, val, hasVal := strings.Cut(a[2:], "=")
		head, tail, isDotted := strings.Cut(name, ".")
		head = strings.ReplaceAll(head, "_", "-")
		f, err := resolveFlag(fs, head)
		if err != nil {
			return nil, err
		}
		if f == nil {
			out = append(out, a) // unknown: pflag reports it
			continue
		}
		next := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(args) || looksLikeOption(args[i+1]) {
				return "", argErrorf("argument --%s: expected one argument", f.Name)
			}
			i++
			return args[i], nil
		}
		switch {
		case isDotted:
			if _, ok := f.Value.(*jsonFlag); !ok {
				return nil, argErrorf("argument --%s: does not take dotted keys (--%s.%s)", f.Name, f.Name, tail)
			}
			v, err := next()
			if err != nil {
				return nil, err
			}
			obj := dotted[f.Name]
			if obj == nil {
				obj = &backend.Object{}
				dotted[f.Name] = obj
			}
			top, err := setDotted(obj, tail, v)
			if err != nil {
				return nil, argErrorf("argument --%s.%s: %v", f.Name, tail, err)
			}
			one := backend.Object{}
			raw, _ := obj.Get(top)
			one.Set(top, raw)
			out = append(out, "--"+f.Name+"="+string(one.AppendJSON(nil)))
		case f.Value.Type() == "bool":
			if hasVal {
				out = append(out, "--"+f.Name+"="+val)
			} else {
				out = append(out, "--"+f.Name)
			}
		case lists[f.Name] > 0 || isList(f):
			var vals []string
			if hasVal {
				vals = append(vals, val)
			}
			for i+1 < len(args) && !looksLikeOption(args[i+1]) && args[i+1] != "--" {
				i++
				vals = append(vals, args[i])
			}
			if len(vals) == 0 {
				if lists[f.Name] == 1 {
					return nil, argErrorf("argument --%s: expected at least one argument", f.Name)
				}
				vals = []string{emptyListMarker}
			}
			for _, v := range vals {
				out = append(out, "--"+f.Name+"="+v)
			}
		default:
			v, err := next()
			if err != nil {
				return nil, err
			}
			out = append(out, "--"+f.Name+"="+v)
		}
	}
	return out, nil
}

func isList(f *pflag.Flag) bool {
	_, ok := f.Value.(*listFlag)
	return ok
}

// negativeNumber is argparse's _negative_number_matcher: such arguments are
// values, not options.
var negativeNumber = regexp.MustCompile(`^-\d+$|^-\d*\.\d+$`)

func looksLikeOption(s string) bool {
	return strings.HasPrefix(s, "-") && len(s) > 1 && !negativeNumber.MatchString(s)
}

// resolveFlag finds the flag called name or, as argparse's allow_abbrev
// does, the only flag whose name starts with it. It returns nil, nil when
// nothing matches.
func resolveFlag(fs *pflag.FlagSet, name string) (*pflag.Flag, error) {
	if f := fs.Lookup(name); f != nil {
		return f, nil
	}
	var matches []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && strings.HasPrefix(f.Name, name) {
			matches = append(matches, f.Name)
		}
	})
	switch len(matches) {
	case 0:
		return nil, nil
	case 1:
		return fs.Lookup(matches[0]), nil
	}
	sort.Strings(matches)
	for i, m := range matches {
		matches[i] = "--" + m
	}
	return nil, argErrorf("ambiguous option: --%s could match %s", name, strings.Join(matches, ", "))
}

// setDotted sets the dotted path in obj to value (JSON-decoded when it
// parses, else a string; a trailing "+" appends to a list) and returns the
// top-level key.
func setDotted(obj *backend.Object, path, value string) (string, error) {
	keys := strings.Split(path, ".")
	raw := json.RawMessage(value)
	if !json.Valid(raw) {
		b, _ := json.Marshal(value)
		raw = b
	}
	var set func(o *backend.Object, keys []string) error
	set = func(o *backend.Object, keys []string) error {
		k := keys[0]
		appendTo := strings.HasSuffix(k, "+")
		k = strings.TrimSuffix(k, "+")
		if len(keys) > 1 {
			var child backend.Object
			if cur, ok := o.Get(k); ok {
				if err := json.Unmarshal(cur, &child); err != nil {
					return err
				}
			}
			if err := set(&child, keys[1:]); err != nil {
				return err
			}
			o.Set(k, child.AppendJSON(nil))
			return nil
		}
		if appendTo {
			var list []json.RawMessage
			if cur, ok := o.Get(k); ok {
				if err := json.Unmarshal(cur, &list); err != nil {
					return err
				}
			}
			b, _ := json.Marshal(append(list, raw))
			o.Set(k, b)
			return nil
		}
		o.Set(k, raw)
		return nil
	}
	top := strings.TrimSuffix(keys[0], "+")
	return top, set(obj, keys)
}
