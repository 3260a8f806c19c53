package cli

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/pyfmt"
)

// argError is a command-line error worded as Python's argparse words it
// ("argument --num-prompts: invalid int value: 'abc'"), so a vLLM user sees
// the message they know. The command line exits with status 2 on it.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

func argErrorf(format string, a ...any) error { return &argError{msg: fmt.Sprintf(format, a...)} }

// The flag value types below parse like argparse's type= callables (Python's
// int() and float(), choices, nargs lists) and record whether the flag was
// given, since many vLLM flags default to None.

// intFlag is an int flag; set reports whether it was given.
type intFlag struct {
	name string
	v    int
	set  bool
}

func (f *intFlag) String() string {
	if !f.set && f.v == 0 {
		return ""
	}
	return strconv.Itoa(f.v)
}
func (f *intFlag) Type() string { return "int" }
func (f *intFlag) Set(s string) error {
	v, err := pyfmt.ParseInt(s)
	if err != nil {
		return argErrorf("argument --%s: invalid int value: %s", f.name, pyfmt.StrRepr(s))
	}
	f.v, f.set = v, true
	return nil
}

// ptr returns the value, or nil when the flag was not given.
func (f *intFlag) ptr() *int {
	if !f.set {
		return nil
	}
	v := f.v
	return &v
}

// floatFlag is a float flag parsed with Python's float(): "inf" works.
type floatFlag struct {
	name string
	v    float64
	set  bool
}

func (f *floatFlag) String() string {
	if !f.set && f.v == 0 {
		return ""
	}
	return pyfmt.Float(f.v)
}
func (f *floatFlag) Type() string { return "float" }
func (f *floatFlag) Set(s string) error {
	v, err := pyfmt.ParseFloat(s)
	if err != nil {
		return argErrorf("argument --%s: invalid float value: %s", f.name, pyfmt.StrRepr(s))
	}
	f.v, f.set = v, true
	return nil
}

func (f *floatFlag) ptr() *float64 {
	if !f.set {
		return nil
	}
	v := f.v
	return &v
}

// choiceFlag is a string flag limited to choices.
type choiceFlag struct {
	name    string
	v       string
	choices []string
	set     bool
}

func (f *choiceFlag) String() string { return f.v }
func (f *choiceFlag) Type() string   { return "string" }
func (f *choiceFlag) Set(s string) error {
	for _, c := range f.choices {
		if c == s {
			f.v, f.set = s, true
			return nil
		}
	}
	quoted := make([]string, len(f.choices))
	for i, c := range f.choices {
		quoted[i] = pyfmt.StrRepr(c)
	}
	return argErrorf("argument --%s: invalid choice: %s (choose from %s)", f.name, pyfmt.StrRepr(s), strings.Join(quoted, ", "))
}

// listFlag collects the values of an nargs flag (--header a=1 b=2 arrives
// here as repeated values once the arguments are normalised).
type listFlag struct {
	v   []string
	set bool
}

func (f *listFlag) String() string { return strings.Join(f.v, " ") }
func (f *listFlag) Type() string   { return "strings" }
func (f *listFlag) Set(s string) error {
	f.v, f.set = append(f.v, s), true
	return nil
}

// emptyListMarker is what the argument normaliser passes for an nargs="*"
// flag given without values (argparse then stores []).
const emptyListMarker = "\x00empty"

// jsonFlag is a flag holding a JSON object (--extra-body,
// --chat-template-kwargs). Several occurrences (and vLLM's dotted form
// --extra-body.top_k 5) merge, later keys winning.
type jsonFlag struct {
	name string
	v    backend.Object
	set  bool
}

func (f *jsonFlag) String() string {
	if !f.set {
		return ""
	}
	return string(f.v.AppendJSON(nil))
}
func (f *jsonFlag) Type() string { return "json" }
func (f *jsonFlag) Set(s string) error {
	o, err := backend.ParseObject([]byte(s))
	if err != nil {
		var any json.RawMessage
		if json.Unmarshal([]byte(s), &any) == nil {
			return argErrorf("argument --%s: invalid loads value: %s (a JSON object is required)", f.name, pyfmt.StrRepr(s))
		}
		return argErrorf("argument --%s: invalid loads value: %s", f.name, pyfmt.StrRepr(s))
	}
	f.v.Update(o)
	f.set = true
	return nil
}
