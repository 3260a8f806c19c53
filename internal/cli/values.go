package cli

import (
	"strconv"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultkey"
)

// argErrorf is a command-line mistake worded as Python's argparse words it
// ("argument --num-prompts: invalid int value: 'abc'"), so a vLLM user sees
// the message they know; it exits with status 2. %w keeps a cause.
func argErrorf(format string, a ...any) error { return exitcode.Usagef(format, a...) }

// The flag value types below parse like argparse's type= callables (Python's
// int() and float(), choices, nargs lists) and record whether the flag was
// given, since many vLLM flags default to None. Each also knows its Python
// value, for the argument namespace saved with PyTorch records (argsObject).

// pythonValuer is a flag value that knows what vLLM's vars(args) holds for
// it: nil stands for Python's None.
type pythonValuer interface{ python() any }

// scalar is a flag holding one value of type T: v is its value, and dst,
// when the flag is bound to a field of an options struct, receives every
// value set too.
type scalar[T comparable] struct {
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

// completions are the values shell completion offers for the flag (none
// for a number).
func (f *scalar[T]) completions() []string { return f.offer }

func (f *scalar[T]) String() string {
	var zero T
	if f.show == nil || (!f.set && f.v == zero) {
		return ""
	}
	return f.show(f.v)
}

// Type is the pflag type name; "bool" would make pflag take no value.
func (f *scalar[T]) Type() string { return f.kind }

// Set parses s and stores the value.
func (f *scalar[T]) Set(s string) error {
	v, err := f.parse(s)
	if err != nil {
		if exitcode.Of(err) == exitcode.BadUsage {
			return err
		}
		return argErrorf("argument --%s: invalid %s value: %s", f.name, f.kind, pyfmt.StrRepr(s))
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

// python is the value, or None for a flag left at a zero default. A
// duration is the seconds the flag reads (an int or a float, as its kind
// says), which JSON can hold.
func (f *scalar[T]) python() any {
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

// ptr returns a copy of the value, or nil when the flag was not given
// (vLLM's None).
func (f *scalar[T]) ptr() *T {
	if !f.set {
		return nil
	}
	v := f.v
	return &v
}

// bindOptionalInt is an int flag whose value defaults to None (nil): a
// value given is written to *dst as a pointer.
func bindOptionalInt(name string, dst **int) *scalar[int] {
	f := newInt(name, 0)
	f.store = func(v int) { *dst = &v }
	return f
}

// intFlag is an int flag parsed with Python's int().
type intFlag = scalar[int]

// floatFlag is a float flag parsed with Python's float(): "inf" works.
type floatFlag = scalar[float64]

// newInt is an int flag with default v.
func newInt(name string, v int) *intFlag {
	return &intFlag{v: v, name: name, kind: "int", parse: pyfmt.ParseInt, show: strconv.Itoa}
}

// bindInt is an int flag writing to *dst, whose value is its default.
func bindInt(name string, dst *int) *intFlag {
	f := newInt(name, *dst)
	f.dst = dst
	return f
}

// newFloat is a float flag with default v.
func newFloat(name string, v float64) *floatFlag {
	return &floatFlag{v: v, name: name, kind: "float", parse: pyfmt.ParseFloat, show: pyfmt.Float}
}

// bindFloat is a float flag writing to *dst, whose value is its default.
func bindFloat(name string, dst *float64) *floatFlag {
	f := newFloat(name, *dst)
	f.dst = dst
	return f
}

// bindSeconds is a float flag of seconds writing a duration to *dst.
func bindSeconds(name string, dst *time.Duration) *scalar[time.Duration] {
	return &scalar[time.Duration]{v: *dst, dst: dst, name: name, kind: "float",
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
		return 0, argErrorf("argument --%s: not a finite number of seconds within 292 years (got %s)", name, text)
	}
	return metrics.Duration(v), nil
}

// bindWholeSeconds is an int flag of seconds writing a duration to *dst.
func bindWholeSeconds(name string, dst *time.Duration) *scalar[time.Duration] {
	return &scalar[time.Duration]{v: *dst, dst: dst, name: name, kind: "int",
		parse: func(s string) (time.Duration, error) {
			v, err := pyfmt.ParseInt(s)
			if err != nil {
				return 0, err
			}
			return secondsValue(name, float64(v), strconv.Itoa(v))
		},
		show: func(d time.Duration) string { return strconv.Itoa(int(d / time.Second)) }}
}

// bindInt64 is an int flag writing to an int64.
func bindInt64(name string, dst *int64) *scalar[int64] {
	return &scalar[int64]{v: *dst, dst: dst, name: name, kind: "int",
		parse: func(s string) (int64, error) {
			v, err := pyfmt.ParseInt(s)
			return int64(v), err
		},
		show: func(v int64) string { return strconv.FormatInt(v, 10) }}
}

// choiceFlag is a string flag limited to choices.
type choiceFlag = scalar[string]

// newChoice is a choice flag with default v ("" for vLLM's None).
func newChoice(name, v string, choices ...string) *choiceFlag {
	return &choiceFlag{v: v, name: name, kind: "string", show: func(s string) string { return s }, offer: choices,
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
			return "", argErrorf("argument --%s: invalid choice: %s (choose from %s)", name, pyfmt.StrRepr(s), strings.Join(quoted, ", "))
		}}
}

// bindChoice is a choice flag writing to *dst, whose value is its default.
func bindChoice(name string, dst *string, choices ...string) *choiceFlag {
	f := newChoice(name, *dst, choices...)
	f.dst = dst
	return f
}

// listFlag collects the values of an nargs flag (--header a=1 b=2 arrives
// here as repeated values once the arguments are normalised).
type listFlag struct {
	v   []string
	set bool
}

func (f *listFlag) String() string { return strings.Join(f.v, " ") }
func (f *listFlag) Type() string   { return "strings" }

// Set adds one value; the normaliser's marker of an empty nargs="*" list
// adds none.
func (f *listFlag) Set(s string) error {
	if s != emptyListMarker {
		f.v = append(f.v, s)
	}
	f.set = true
	return nil
}

// python is the list, or None when the flag was not given.
func (f *listFlag) python() any {
	if !f.set {
		return nil
	}
	return append([]string{}, f.v...)
}

// emptyListMarker is what the argument normaliser passes for an nargs="*"
// flag given without values (argparse then stores []).
const emptyListMarker = "\x00empty"

// stringsFlag is a repeatable flag taking one value per occurrence
// (--threshold a --threshold b); unlike listFlag it never swallows the
// arguments that follow, so positional arguments may come after it.
type stringsFlag struct{ v []string }

func (f *stringsFlag) String() string { return strings.Join(f.v, " ") }
func (f *stringsFlag) Type() string   { return "stringArray" }

// Set adds one value.
func (f *stringsFlag) Set(s string) error {
	f.v = append(f.v, s)
	return nil
}

// jsonFlag is a flag holding a JSON object (--extra-body,
// --chat-template-kwargs). Several occurrences (and vLLM's dotted form
// --extra-body.top_k 5) merge, later keys winning.
type jsonFlag struct {
	name string
	v    pyjson.Object
	dst  *pyjson.Object
	set  bool
}

func (f *jsonFlag) String() string {
	if !f.set {
		return ""
	}
	b, _ := pyjson.AppendCompact(nil, &f.v) // decoded values always encode
	return string(b)
}

func (f *jsonFlag) Type() string { return "json" }

// Set merges one JSON object into the value. It is decoded as json.loads
// decodes it, so that the body carries the values vLLM would send
// (package pyjson).
func (f *jsonFlag) Set(s string) error {
	o, err := pyjson.DecodeObject([]byte(s))
	if err != nil {
		if _, err := pyjson.Decode([]byte(s)); err == nil {
			return argErrorf("argument --%s: invalid loads value: %s (a JSON object is required)", f.name, pyfmt.StrRepr(s))
		}
		return argErrorf("argument --%s: invalid loads value: %s", f.name, pyfmt.StrRepr(s))
	}
	f.v.Update(o)
	f.set = true
	if f.dst != nil {
		*f.dst = *f.v.Clone()
	}
	return nil
}

// python is the object as Python values, or None when not given.
func (f *jsonFlag) python() any {
	if !f.set {
		return nil
	}
	return f.v.Clone()
}

// percentilesFlag is --metric-percentiles: comma-separated Python floats
// in [0, 100] (metrics.ParseMetricPercentiles).
type percentilesFlag struct {
	dst  *[]float64
	text string
	set  bool
}

func (f *percentilesFlag) String() string {
	if f.set {
		return f.text
	}
	parts := make([]string, len(*f.dst))
	for i, p := range *f.dst {
		parts[i] = resultkey.PercentileLabel(p)
	}
	return strings.Join(parts, ",")
}

func (f *percentilesFlag) Type() string { return "string" }

// Set parses the list.
func (f *percentilesFlag) Set(s string) error {
	ps, err := metrics.ParseMetricPercentiles(s)
	if err != nil {
		return exitcode.Usage(err)
	}
	*f.dst, f.text, f.set = ps, s, true
	return nil
}

// python is the flag's text, as vLLM keeps it.
func (f *percentilesFlag) python() any { return f.String() }
