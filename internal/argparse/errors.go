package argparse

import (
	"errors"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/spf13/pflag"
)

// ParseError rewords an error of parsing fs (pflag's) as argparse words
// it, suggesting the flag of fs nearest to an unknown one (SuggestFlag),
// so that a vLLM user meets the messages they know; a flag value's own
// usage error passes through. Every result is a usage error (exit status
// 2).
func ParseError(fs *pflag.FlagSet, err error) error {
	var ue *exitcode.UsageError
	if errors.As(err, &ue) {
		return ue
	}
	var ne *pflag.NotExistError
	if errors.As(err, &ne) {
		name := ne.GetSpecifiedName()
		if ne.GetSpecifiedShortnames() != "" {
			return exitcode.Usagef("unrecognized arguments: -%s", ne.GetSpecifiedShortnames())
		}
		return exitcode.Usagef("unrecognized arguments: --%s%s", name, SuggestFlag(fs, name))
	}
	var vr *pflag.ValueRequiredError
	if errors.As(err, &vr) {
		return exitcode.Usagef("argument --%s: expected one argument", vr.GetSpecifiedName())
	}
	return exitcode.Usage(err)
}
