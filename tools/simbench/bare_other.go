//go:build !linux

package main

import "errors"

// readBare is Linux-only here: the bare loop is written on epoll.
func readBare(readerJob) (int, error) {
	return 0, errors.New("the bare epoll loop runs on Linux only")
}

// readUring is Linux-only: the loop is written on io_uring.
func readUring(readerJob) (int, error) {
	return 0, errNoUring
}
