package main

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// setSize gives the pseudo-terminal a window of cols × rows, as a terminal
// emulator does: gobench draws its live view only where it fits.
func setSize(ptmx *os.File, cols, rows int) error {
	if err := unix.IoctlSetWinsize(int(ptmx.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: uint16(rows)}); err != nil {
		return fmt.Errorf("size the pseudo-terminal: %w", err)
	}
	return nil
}
