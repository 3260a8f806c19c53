//go:build !linux

package main

import (
	"errors"
	"os"
)

// setSize is Linux's only, as openPTY is.
func setSize(*os.File, int, int) error {
	return errors.New("pseudo-terminals are opened on Linux only")
}
