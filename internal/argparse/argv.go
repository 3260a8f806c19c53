package argparse

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/spf13/pflag"
)

// Normalize rewrites a vLLM command line into one pflag parses the same
// way argparse (vLLM's FlexibleArgumentParser) would:
//
//   - "_" becomes "-" in flag names up to the first "." (--num_prompts);
//   - unambiguous prefixes select their flag (--num-prom 5), ambiguous ones
//     are refused with argparse's message;
//   - nargs flags take every following value that does not look like an
//     option (--goodput ttft:500 tpot:50, --header a=1 b=2);
//   - value flags take the next argument even when it is a negative number
//     (--seed -1), and "expected one argument" when the next is an option;
//   - any other argument starting with "-" (but "-h" and "-") is refused
//     as argparse refuses it: "unrecognized arguments: -x";
//   - dotted JSON flags build an object: --extra-body.top_k 5 is
//     --extra-body '{"top_k": 5}' (values JSON-decoded when they parse,
//     "key+" appends to a list).
//
// Every flag comes out as --name=value, so pflag's own rules for separate
// values never apply; an nargs="*" flag given without values comes out as
// --name=EmptyList. lists names the nargs flags of fs with their minimum
// count plus one (1 for "+", 2 for "*", so that 0 means "not a list"); a
// flag whose value is a *List is one too.
func Normalize(args []string, fs *pflag.FlagSet, lists map[string]int) ([]string, error) {
	n := &normalizer{args: args, fs: fs, lists: lists, dotted: map[string]*pyjson.Object{}}
	for ; n.i < len(args); n.i++ {
		a := args[n.i]
		if a == "--" {
			return append(n.out, args[n.i:]...), nil
		}
		if f := shorthand(fs, a); f != nil {
			a = "--" + f.Name // -o FILE is --output FILE
		}
		if !strings.HasPrefix(a, "--") {
			if err := checkPositional(a); err != nil {
				return nil, err
			}
			n.out = append(n.out, a)
			continue
		}
		if err := n.option(a); err != nil {
			return nil, err
		}
	}
	return n.out, nil
}

// normalizer is Normalize's walk over the arguments: i is the argument
// being read, out what has been written.
type normalizer struct {
	args   []string
	i      int
	fs     *pflag.FlagSet
	lists  map[string]int
	dotted map[string]*pyjson.Object
	out    []string
}

// option writes the long option a (with its values) as --name=value.
func (n *normalizer) option(a string) error {
	name, val, hasVal := strings.Cut(a[2:], "=")
	head, tail, isDotted := strings.Cut(name, ".")
	head = strings.ReplaceAll(head, "_", "-")
	f, err := resolveFlag(n.fs, head)
	if err != nil {
		return err
	}
	switch {
	case f == nil:
		n.out = append(n.out, a) // unknown: pflag reports it
	case isDotted:
		return n.dottedOption(f, tail, val, hasVal)
	case f.Value.Type() == "bool":
		if hasVal {
			n.out = append(n.out, "--"+f.Name+"="+val)
		} else {
			n.out = append(n.out, "--"+f.Name)
		}
	case n.lists[f.Name] > 0 || isList(f):
		return n.listOption(f, val, hasVal)
	default:
		v, err := n.value(f, val, hasVal)
		if err != nil {
			return err
		}
		n.out = append(n.out, "--"+f.Name+"="+v)
	}
	return nil
}

// value is the option's one value: after "=" or the next argument.
func (n *normalizer) value(f *pflag.Flag, val string, hasVal bool) (string, error) {
	if hasVal {
		return val, nil
	}
	if n.i+1 >= len(n.args) || looksLikeOption(n.args[n.i+1]) {
		return "", exitcode.Usagef("argument --%s: expected one argument", f.Name)
	}
	n.i++
	return n.args[n.i], nil
}

// dottedOption writes --name.key value as the JSON object built so far.
func (n *normalizer) dottedOption(f *pflag.Flag, tail, val string, hasVal bool) error {
	if _, ok := f.Value.(*JSON); !ok {
		return exitcode.Usagef("argument --%s: does not take dotted keys (--%s.%s)", f.Name, f.Name, tail)
	}
	v, err := n.value(f, val, hasVal)
	if err != nil {
		return err
	}
	arg, err := dottedArg(n.dotted, f.Name, tail, v)
	if err != nil {
		return exitcode.Usagef("argument --%s.%s: %v", f.Name, tail, err)
	}
	n.out = append(n.out, arg)
	return nil
}

// listOption writes an nargs option's values, one --name=value each.
func (n *normalizer) listOption(f *pflag.Flag, val string, hasVal bool) error {
	var vals []string
	if hasVal {
		vals = append(vals, val)
	}
	for n.i+1 < len(n.args) && !looksLikeOption(n.args[n.i+1]) && n.args[n.i+1] != "--" {
		n.i++
		vals = append(vals, n.args[n.i])
	}
	if len(vals) == 0 {
		if n.lists[f.Name] == 1 {
			return exitcode.Usagef("argument --%s: expected at least one argument", f.Name)
		}
		vals = []string{EmptyList}
	}
	for _, v := range vals {
		n.out = append(n.out, "--"+f.Name+"="+v)
	}
	return nil
}

// checkPositional refuses an argument that starts with one "-" as argparse
// does, by its text ("unrecognized arguments: -x"): pflag would read
// "-1e-300" as shorthand flags and name a flag "--1". A negative number is
// a positional argument to argparse, but no command takes one that can
// start with "-". "-h" (help) and "-" pass.
func checkPositional(a string) error {
	if looksLikeOption(a) && a != "-h" || negativeNumber.MatchString(a) {
		return exitcode.Usagef("unrecognized arguments: %s", a)
	}
	return nil
}

func isList(f *pflag.Flag) bool {
	_, ok := f.Value.(*List)
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
// nothing matches. Hidden flags (vLLM's, not supported yet) count, as they
// do in vLLM's parser, so that a prefix means what it means there.
func resolveFlag(fs *pflag.FlagSet, name string) (*pflag.Flag, error) {
	if f := fs.Lookup(name); f != nil {
		return f, nil
	}
	var matches []string
	fs.VisitAll(func(f *pflag.Flag) {
		if strings.HasPrefix(f.Name, name) {
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
	return nil, exitcode.Usagef("ambiguous option: --%s could match %s", name, strings.Join(matches, ", "))
}

// dottedArg sets --name.path value in the object dotted builds for the
// flag name and returns the flag's argument: the whole top-level key of
// the object so far, so that the JSON flag's merge ends with the object
// built.
func dottedArg(dotted map[string]*pyjson.Object, name, path, value string) (string, error) {
	obj := dotted[name]
	if obj == nil {
		obj = pyjson.NewObject()
		dotted[name] = obj
	}
	top, err := setDotted(obj, path, value)
	if err != nil {
		return "", err
	}
	one := pyjson.NewObject()
	val, _ := obj.Get(top)
	one.Set(top, val)
	b, err := pyjson.AppendCompact(nil, one)
	if err != nil {
		return "", err
	}
	return "--" + name + "=" + string(b), nil
}

// setDotted sets the dotted path in obj to value (JSON-decoded when it is
// JSON, else a string; a trailing "+" appends to a list) and returns the
// top-level key.
func setDotted(obj *pyjson.Object, path, value string) (string, error) {
	keys := strings.Split(path, ".")
	var leaf any = value
	if json.Valid([]byte(value)) {
		v, err := pyjson.Decode([]byte(value))
		if err != nil {
			return "", err
		}
		leaf = v
	}
	var set func(o *pyjson.Object, keys []string) error
	set = func(o *pyjson.Object, keys []string) error {
		k := keys[0]
		appendTo := strings.HasSuffix(k, "+")
		k = strings.TrimSuffix(k, "+")
		cur, exists := o.Get(k)
		switch {
		case len(keys) > 1:
			child := pyjson.NewObject()
			if exists {
				c, ok := cur.(*pyjson.Object)
				if !ok {
					return fmt.Errorf("%s is not a JSON object", k)
				}
				child = c
			}
			if err := set(child, keys[1:]); err != nil {
				return err
			}
			o.Set(k, child)
		case appendTo:
			list, ok := cur.([]any)
			if cur != nil && !ok {
				return fmt.Errorf("%s is not a JSON list", k)
			}
			o.Set(k, append(list, leaf))
		default:
			o.Set(k, leaf)
		}
		return nil
	}
	top := strings.TrimSuffix(keys[0], "+")
	return top, set(obj, keys)
}

// shorthand is the flag a one-letter option ("-o") names, nil when a is
// not one or no flag has it (vLLM's commands have none; gobench report's
// -o is argparse's add_argument("-o", "--output")).
func shorthand(fs *pflag.FlagSet, a string) *pflag.Flag {
	if len(a) != 2 || a[0] != '-' || a == "-h" {
		return nil
	}
	return fs.ShorthandLookup(a[1:])
}

// ExpandShort spells the short flags of shorts (short → long, e.g. "-o"
// → "--output-dir") long, with their value as "-oVALUE", "-o=VALUE" or the
// next argument, for the commands whose one-letter options pflag does not
// hold as shorthands; Normalize reads long flags only.
func ExpandShort(args []string, shorts map[string]string) []string {
	out := make([]string, 0, len(args))
	for _, a := range args {
		for short, long := range shorts {
			if a == short {
				a = long
			} else if v, ok := strings.CutPrefix(a, short); ok && !strings.HasPrefix(a, "--") {
				a = long + "=" + strings.TrimPrefix(v, "=")
			}
		}
		out = append(out, a)
	}
	return out
}
