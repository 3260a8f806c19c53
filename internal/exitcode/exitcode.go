// Package exitcode attaches a process exit status to an error, so that the
// code that knows why a command failed says so where it fails, and the
// command line reads the status off the error in one place (cli.Main)
// instead of matching sentinels or texts. It follows k6's errext: an error
// carries its code through any number of %w wrappings, and errors.As finds
// it.
package exitcode

import (
	"context"
	"errors"
	"fmt"
)

// Code is a process exit status.
type Code int

// The exit statuses of every gobench command, documented in the help texts
// and docs/ci-gates.md.
const (
	// OK: the command did what was asked.
	OK Code = 0
	// Failure: the command could not be carried out (server unreachable,
	// unreadable file, ...). Errors without a code exit with it.
	Failure Code = 1
	// BadUsage: the command line is wrong, or asks for a feature that is not
	// supported yet.
	BadUsage Code = 2
	// AllFailed: the run completed but every request failed (or more
	// than --max-failed-ratio of them).
	AllFailed Code = 3
	// ThresholdFailed: a --threshold failed; the run itself completed.
	ThresholdFailed Code = 4
	// Interrupted: the run was interrupted; what it measured was still
	// printed and saved.
	Interrupted Code = 130
)

// Coder is implemented by errors that carry an exit status.
type Coder interface {
	error
	ExitCode() Code
}

// coded is an error with an exit status.
type coded struct {
	err  error
	code Code
}

func (e *coded) Error() string  { return e.err.Error() }
func (e *coded) Unwrap() error  { return e.err }
func (e *coded) ExitCode() Code { return e.code }

// With returns err carrying code; nil stays nil. An outer code wins over
// one err already carries, so a caller can reclassify an error it wraps.
func With(err error, code Code) error {
	if err == nil {
		return nil
	}
	return &coded{err: err, code: code}
}

// Of returns the exit status err carries: OK for nil, the outermost code
// attached with With (or by a Coder), Interrupted for a cancelled context,
// else Failure.
func Of(err error) Code {
	if err == nil {
		return OK
	}
	var c Coder
	if errors.As(err, &c) {
		return c.ExitCode()
	}
	if errors.Is(err, context.Canceled) {
		return Interrupted
	}
	return Failure
}

// UsageError is a mistake on the command line (a bad value, a missing or
// contradictory flag). It exits with BadUsage and is printed with a
// pointer to --help. It keeps its cause: errors.Is and errors.As see
// through it.
type UsageError struct {
	// Err is the mistake, worded for the user.
	Err error
}

func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *UsageError) Unwrap() error { return e.Err }

// ExitCode is BadUsage.
func (e *UsageError) ExitCode() Code { return BadUsage }

// Usage marks err as a command-line mistake; nil stays nil, and an error
// that is one already is returned as it is.
func Usage(err error) error {
	if err == nil {
		return nil
	}
	var u *UsageError
	if errors.As(err, &u) {
		return err
	}
	return &UsageError{Err: err}
}

// Usagef is Usage of fmt.Errorf(format, args...); %w keeps a cause.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// ErrNotSupported marks a feature vLLM has and gobench does not yet: the
// command line names something this version cannot do, so it exits with
// BadUsage (without the pointer to --help: the command line is right).
// Wrap it with %w and say what was asked.
var ErrNotSupported = With(errors.New("not supported yet"), BadUsage)
