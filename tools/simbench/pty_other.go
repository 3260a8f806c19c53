//go:build !linux

package main

import (
	"errors"
	"os"
)

// openPTY is Linux-only here: -progress bar needs a pseudo-terminal.
func openPTY() (ptmx, tty *os.File, err error) {
	return nil, nil, errors.New("-progress bar needs a pseudo-terminal, opened on Linux only")
}
