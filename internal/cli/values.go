package cli

import (
	"strings"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/resultkey"
)

// argErrorf is a command-line mistake worded as Python's argparse words it
// ("argument --num-prompts: invalid int value: 'abc'"), so a vLLM user sees
// the message they know; it exits with status 2. %w keeps a cause.
func argErrorf(format string, a ...any) error { return exitcode.Usagef(format, a...) }

// percentilesFlag is --metric-percentiles: comma-separated Python floats
// in [0, 100] (metrics.ParseMetricPercentiles). It is serve's own, beside
// the generic flag values of package argparse.
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

// Python is the flag's text, as vLLM keeps it (argparse.PythonValuer).
func (f *percentilesFlag) Python() any { return f.String() }
