//go:build !unix

package main

import (
	"errors"
	"os"
)

// maxRSS needs getrusage's ru_maxrss, which this system lacks.
func maxRSS(*os.ProcessState) (int64, error) {
	return 0, errors.New("the peak resident set needs a Unix system (getrusage's ru_maxrss)")
}
