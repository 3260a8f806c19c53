//go:build unix

package main

import (
	"errors"
	"os"
	"runtime"
	"syscall"
)

// maxRSS is an exited process's peak resident set in KiB: Linux and the
// BSDs give ru_maxrss in KiB, macOS in bytes.
func maxRSS(ps *os.ProcessState) (int64, error) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, errors.New("no resource usage on this system")
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) / 1024, nil
	}
	return int64(ru.Maxrss), nil
}
