//go:build unix

// Package fdlimit reads and raises the process's open-file limit
// (RLIMIT_NOFILE). Every connection of a run is a descriptor, so a run of
// thousands of concurrent streams needs a limit above the 1024 many shells
// start with: gobench raises the soft limit to the hard one at start, as
// most servers do, and warns before a run that needs more than it has.
package fdlimit

import (
	"fmt"
	"syscall"
)

// Soft returns the current soft limit, or 0 when it cannot be read.
func Soft() uint64 {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0
	}
	return l.Cur
}

// Raise sets the soft limit to the hard limit, which an unprivileged
// process may always do, and returns the soft limit in force afterwards.
func Raise() (uint64, error) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, fmt.Errorf("read the open-file limit: %w", err)
	}
	if l.Cur >= l.Max {
		return l.Cur, nil
	}
	raised := syscall.Rlimit{Cur: l.Max, Max: l.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised); err != nil {
		return l.Cur, fmt.Errorf("raise the open-file limit from %d to %d: %w", l.Cur, l.Max, err)
	}
	return l.Max, nil
}
