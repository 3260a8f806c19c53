package argparse

import (
	"strconv"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/pyjson"
)

// The flag value types below parse like argparse's type= callables (Python's
// int() and float(), choices, nargs lists) and record whether the flag was
// given, since many vLLM flags default to None. Each also knows its Python
// value, for the argument namespace saved with PyTorch records.

// PythonValuer is a flag value that knows what vLLM's vars(args) holds for
// it, so that the argument namespace gobench saves is vLLM's: Python
// returns nil for Python's None.
type PythonValuer interface{ Python() any }

// Scalar is a flag holding one value of type T, parsed as argparse's type=
// callable parses it (Python's int() and float(), a choice). When the flag
// is bound to a field of an options struct (the Bind constructors), the
// field receives every value set too, and its value before parsing is the
// flag's default, so that the help shows the run's defaults.
type Scalar[T comparable] struct {
	v   T
	dst *T
	// store, when set, receives every value set instead of dst.
	store func(T)
	set   bool
	name  string
	// kind is the pflag type ("int", "float", "string") and argparse's
	// word for it in "invalid int value".
	kind  string
	parse func(string) (T, error)
	show  func(T) string
	// offer lists the values shell completion offers: a choice flag's
	// choices, or the ones gobench supports among them.
	offer []string
}

// Completions are the values shell completion offers for the flag (none
// for a number), so that a choice flag completes without more code.
func (f *Scalar[T]) Completions() []string { return f.offer }

// Offer sets the values shell completion offers, for a choice flag that
// accepts vLLM's choices but where gobench supports fewer.
func (f *Scalar[T]) Offer(values []string) { f.offer = values }

// Value is the flag's value: the value given, else its default.
func (f *Scalar[T]) Value() T { return f.v }

// Given reports whether the flag was given, for the flags whose default
// is vLLM's None.
func (f *Scalar[T]) Given() bool { return f.set }

// String is the value as the flag reads it, "" for a zero value not given
// (so that pflag's help shows no default for vLLM's None).
func (f *Scalar[T]) String() string {
	var zero T
	if f.show == nil || (!f.set && f.v == zero) {
		return ""
	}
	return f.show(f.v)
}

// Type is the pflag type name; "bool" would make pflag take no value.
func (f *Scalar[T]) Type() string { return f.kind }

// Set parses s and stores the value.
func (f *Scalar[T]) Set(s string) error {
	v, err := f.parse(s)
	if err != nil {
		if exitcode.Of(err) == exitcode.BadUsage {
			return err
		}
		return exitcode.Usagef("argument --%s: invalid %s value: %s", f.name, f.kind, pyfmt.StrRepr(s))
	}
	f.v, f.set = v, true
	switch {
	case f.store != nil:
		f.store(v)
	case f.dst != nil:
		*f.dst = v
	}
	return nil
}

// Python is the value, or None for a flag left at a zero default. A
// duration is the seconds the flag reads (an int or a float, as its kind
// says), which JSON can hold.
func (f *Scalar[T]) Python() any {
	var zero T
	if !f.set && f.v == zero {
		return nil
	}
	if d, ok := any(f.v).(time.Duration); ok {
		if f.kind == "int" {
			return int(d / time.Second)
		}
		return d.Seconds()
	}
	return f.v
}

// Ptr returns a copy of the value, or nil when the flag was not given
// (vLLM's None).
func (f *Scalar[T]) Ptr() *T {
	if !f.set {
		return nil
	}
	v := f.v
	return &v
}

// BindOptionalInt is an int flag whose value defaults to None (nil): a
// value given is written to *dst as a pointer.
func BindOptionalInt(name string, dst **int) *Scalar[int] {
	f := NewInt(name, 0)
	f.store = func(v int) { *dst = &v }
	return f
}

// Int is an int flag parsed with Python's int().
type Int = Scalar[int]

// Float is a float flag parsed with Python's float(): "inf" works.
type Float = Scalar[float64]

// NewInt is an int flag with default v.
func NewInt(name string, v int) *Int {
	return &Int{v: v, name: name, kind: "int", parse: pyfmt.ParseInt, show: strconv.Itoa}
}

// BindInt is an int flag writing to *dst, whose value is its default.
func BindInt(name string, dst *int) *Int {
	f := NewInt(name, *dst)
	f.dst = dst
	return f
}

// NewFloat is a float flag with default v.
func NewFloat(name string, v float64) *Float {
	return &Float{v: v, name: name, kind: "float", parse: pyfmt.ParseFloat, show: pyfmt.Float}
}

// BindFloat is a float flag writing to *dst, whose value is its default.
func BindFloat(name string, dst *float64) *Float {
	f := NewFloat(name, *dst)
	f.dst = dst
	return f
}

// BindSeconds is a float flag of seconds writing a duration to *dst.
func BindSeconds(name string, dst *time.Duration) *Scalar[time.Duration] {
	return &Scalar[time.Duration]{v: *dst, dst: dst, name: name, kind: "float",
		parse: func(s string) (time.Duration, error) {
			v, err := pyfmt.ParseFloat(s)
			if err != nil {
				return 0, err
			}
			return secondsValue(name, v, pyfmt.Float(v))
		},
		show: func(d time.Duration) string { return pyfmt.Float(d.Seconds()) }}
}

// secondsValue converts the seconds given to --name (written text) into
// a duration, refusing what no duration holds (NaN, ±inf, beyond 292
// years), which would otherwise convert to an arbitrary one. Whether the
// duration makes sense for the flag is run.Options.Validate's to say.
func secondsValue(name string, v float64, text string) (time.Duration, error) {
	if !metrics.FitsDuration(v) {
		return 0, exitcode.Usagef("argument --%s: not a finite number of seconds within 292 years (got %s)", name, text)
	}
	return metrics.Duration(v), nil
}

// BindWholeSeconds is an int flag of seconds writing a duration to *dst.
func BindWholeSeconds(name string, dst *time.Duration) *Scalar[time.Duration] {
	return &Scalar[time.Duration]{v: *dst, dst: dst, name: name, kind: "int",
		parse: func(s string) (time.Duration, error) {
			v, err := pyfmt.ParseInt(s)
			if err != nil {
				return 0, err
			}
			return secondsValue(name, float64(v), strconv.Itoa(v))
		},
		show: func(d time.Duration) string { return strconv.Itoa(int(d / time.Second)) }}
}

// BindDuration is a flag of a positive duration, written as Go writes
// one (90s, 2m) or as seconds (90, 1.5): gobench's own flags of time,
// which vLLM does not have.
func BindDuration(name string, dst *time.Duration) *Scalar[time.Duration] {
	return &Scalar[time.Duration]{v: *dst, dst: dst, name: name, kind: "duration",
		parse: func(s string) (time.Duration, error) {
			d, err := time.ParseDuration(s)
			if err != nil {
				v, ferr := pyfmt.ParseFloat(s)
				if ferr != nil {
					return 0, exitcode.Usagef("argument --%s: invalid duration: %s (e.g. 60s, 2m, 90)", name, pyfmt.StrRepr(s))
				}
				if d, err = secondsValue(name, v, s); err != nil {
					return 0, err
				}
			}
			if d <= 0 {
				return 0, exitcode.Usagef("argument --%s: must be positive (got %s)", name, pyfmt.StrRepr(s))
			}
			return d, nil
		},
		show: func(d time.Duration) string { return d.String() }}
}

// BindInt64 is an int flag writing to an int64.
func BindInt64(name string, dst *int64) *Scalar[int64] {
	return &Scalar[int64]{v: *dst, dst: dst, name: name, kind: "int",
		parse: func(s string) (int64, error) {
			v, err := pyfmt.ParseInt(s)
			return int64(v), err
		},
		show: func(v int64) string { return strconv.FormatInt(v, 10) }}
}

// Choice is a string flag limited to choices, refused with argparse's
// "invalid choice" message; shell completion offers the choices.
type Choice = Scalar[string]

// NewChoice is a choice flag with default v ("" for vLLM's None).
func NewChoice(name, v string, choices ...string) *Choice {
	return &Choice{v: v, name: name, kind: "string", show: func(s string) string { return s }, offer: choices,
		parse: func(s string) (string, error) {
			for _, c := range choices {
				if c == s {
					return s, nil
				}
			}
			quoted := make([]string, len(choices))
			for i, c := range choices {
				quoted[i] = pyfmt.StrRepr(c)
			}
			return "", exitcode.Usagef("argument --%s: invalid choice: %s (choose from %s)", name, pyfmt.StrRepr(s), strings.Join(quoted, ", "))
		}}
}

// BindChoice is a choice flag writing to *dst, whose value is its default.
func BindChoice(name string, dst *string, choices ...string) *Choice {
	f := NewChoice(name, *dst, choices...)
	f.dst = dst
	return f
}

// List collects the values of an nargs flag: --header a=1 b=2 arrives
// here as repeated values once Normalize has rewritten the arguments, and
// takes every value that follows, as argparse's nargs="*" and "+" do. Its
// zero value is an empty list not given.
type List struct {
	v   []string
	set bool
}

// String is the values, space-separated.
func (f *List) String() string { return strings.Join(f.v, " ") }

// Type is the pflag type name.
func (f *List) Type() string { return "strings" }

// Value is the values given, in order.
func (f *List) Value() []string { return f.v }

// Given reports whether the flag was given, even without values.
func (f *List) Given() bool { return f.set }

// Set adds one value; the normaliser's marker of an empty nargs="*" list
// adds none.
func (f *List) Set(s string) error {
	if s != EmptyList {
		f.v = append(f.v, s)
	}
	f.set = true
	return nil
}

// Python is the list, or None when the flag was not given.
func (f *List) Python() any {
	if !f.set {
		return nil
	}
	return append([]string{}, f.v...)
}

// EmptyList is the value Normalize passes for an nargs="*" flag given
// without values (argparse then stores []): a List adds no value for it,
// and whoever reads the normalized arguments (the recorded command line)
// knows it for what it is.
const EmptyList = "\x00empty"

// Strings is a repeatable flag taking one value per occurrence
// (--threshold a --threshold b); unlike List it never swallows the
// arguments that follow, so positional arguments may come after it. Its
// zero value is an empty list.
type Strings struct{ v []string }

// String is the values, space-separated.
func (f *Strings) String() string { return strings.Join(f.v, " ") }

// Type is the pflag type name.
func (f *Strings) Type() string { return "stringArray" }

// Value is the values given, in order.
func (f *Strings) Value() []string { return f.v }

// Set adds one value.
func (f *Strings) Set(s string) error {
	f.v = append(f.v, s)
	return nil
}

// JSON is a flag holding a JSON object (--extra-body,
// --chat-template-kwargs). Several occurrences (and vLLM's dotted form
// --extra-body.top_k 5, which Normalize rewrites for a JSON flag only)
// merge, later keys winning.
type JSON struct {
	name string
	v    pyjson.Object
	dst  *pyjson.Object
	set  bool
}

// NewJSON is a JSON flag called name.
func NewJSON(name string) *JSON { return &JSON{name: name} }

// BindJSON is a JSON flag called name writing the merged object to *dst.
func BindJSON(name string, dst *pyjson.Object) *JSON { return &JSON{name: name, dst: dst} }

// String is the object's compact JSON text, "" when not given.
func (f *JSON) String() string {
	if !f.set {
		return ""
	}
	b, _ := pyjson.AppendCompact(nil, &f.v) // decoded values always encode
	return string(b)
}

// Type is the pflag type name.
func (f *JSON) Type() string { return "json" }

// Value is the merged object (empty when not given).
func (f *JSON) Value() *pyjson.Object { return &f.v }

// Given reports whether the flag was given.
func (f *JSON) Given() bool { return f.set }

// Set merges one JSON object into the value. It is decoded as json.loads
// decodes it, so that the body carries the values vLLM would send
// (package pyjson).
func (f *JSON) Set(s string) error {
	o, err := pyjson.DecodeObject([]byte(s))
	if err != nil {
		if _, err := pyjson.Decode([]byte(s)); err == nil {
			return exitcode.Usagef("argument --%s: invalid loads value: %s (a JSON object is required)", f.name, pyfmt.StrRepr(s))
		}
		return exitcode.Usagef("argument --%s: invalid loads value: %s", f.name, pyfmt.StrRepr(s))
	}
	f.v.Update(o)
	f.set = true
	if f.dst != nil {
		*f.dst = *f.v.Clone()
	}
	return nil
}

// Python is the object as Python values, or None when not given.
func (f *JSON) Python() any {
	if !f.set {
		return nil
	}
	return f.v.Clone()
}
