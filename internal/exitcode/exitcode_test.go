package exitcode

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestOf(t *testing.T) {
	t.Parallel()
	base := errors.New("boom")
	tests := []struct {
		name string
		err  error
		want Code
	}{
		{"nil", nil, OK},
		{"plain", base, Failure},
		{"with", With(base, AllFailed), AllFailed},
		{"wrapped with", fmt.Errorf("run: %w", With(base, ThresholdFailed)), ThresholdFailed},
		{"outer wins", With(With(base, AllFailed), Interrupted), Interrupted},
		{"usage", Usagef("argument --seed: %w", base), BadUsage},
		{"not supported", fmt.Errorf("--backend x: %w", ErrNotSupported), BadUsage},
		{"cancelled", fmt.Errorf("ready check: %w", context.Canceled), Interrupted},
		{"code beats cancel", With(context.Canceled, Failure), Failure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Of(tt.err); got != tt.want {
				t.Errorf("Of(%v) = %d, want %d", tt.err, got, tt.want)
			}
		})
	}
}

func TestWithNil(t *testing.T) {
	t.Parallel()
	if With(nil, BadUsage) != nil || Usage(nil) != nil {
		t.Error("a nil error must stay nil")
	}
}

func TestUsageKeepsCause(t *testing.T) {
	t.Parallel()
	cause := errors.New("Seed must be between 0 and 2**32 - 1")
	err := Usagef("argument --seed: %w", cause)
	if !errors.Is(err, cause) {
		t.Error("the cause is lost")
	}
	if err.Error() != "argument --seed: Seed must be between 0 and 2**32 - 1" {
		t.Errorf("text %q", err)
	}
	var u *UsageError
	if !errors.As(fmt.Errorf("outer: %w", err), &u) {
		t.Error("UsageError not found through a wrapping")
	}
	if Usage(err) != err {
		t.Error("Usage of a usage error must return it unchanged")
	}
}

func TestNotSupportedIs(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("--dataset-name sonnet: %w", ErrNotSupported)
	if !errors.Is(err, ErrNotSupported) {
		t.Error("errors.Is(ErrNotSupported) failed through a wrapping")
	}
	if err.Error() != "--dataset-name sonnet: not supported yet" {
		t.Errorf("text %q", err)
	}
	var u *UsageError
	if errors.As(err, &u) {
		t.Error("not supported is not a command-line mistake: no --help hint")
	}
}
