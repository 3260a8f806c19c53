//go:build unix

// Package fdlimit reads the process's open-file limit (RLIMIT_NOFILE).
// Every connection of a run is a descriptor; Go raises the soft limit to
// the hard one at start, and a run that needs more than that is warned.
package fdlimit

import "syscall"

// Soft returns the current soft limit, or 0 when it cannot be read.
func Soft() uint64 {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0
	}
	return l.Cur
}
