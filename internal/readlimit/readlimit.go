// Package readlimit reads whole files with a bound on their size.
//
// A path on the command line can name something that never ends (a device
// such as /dev/zero, a named pipe, a file under /proc) or a file far larger
// than any real one of its kind; os.ReadFile would then grow until the
// kernel kills the process (`--dataset-path /dev/zero` reached 24 GB).
// File fails instead with a *TooLargeError naming the file and the bound,
// having allocated at most about twice the bound. JSONObject, for files that
// must hold JSON objects, also stops an input of unknown size (a device, a
// pipe) at once with a *NotObjectError when its first character that is not
// JSON whitespace is not '{', so that /dev/zero fails after one read of 512
// bytes. A regular file is read whole (its size is known and bounded) and
// left to the caller's parser, which may accept damage of its own kind.
//
// Files that are read as streams (the datasets) bound each value instead;
// see package dataset.
package readlimit

import (
	"fmt"
	"io"
	"os"
	"slices"
)

// TooLargeError is the error of a file that holds more than its bound.
type TooLargeError struct {
	// Path is the file as named.
	Path string
	// Limit is the bound, in bytes.
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: larger than %s, the most gobench reads from such a file", e.Path, Size(e.Limit))
}

// NotObjectError is the error of a file that must hold a JSON object and
// starts with something else.
type NotObjectError struct {
	// Path is the file as named.
	Path string
	// Found is its first character that is not JSON whitespace.
	Found byte
}

func (e *NotObjectError) Error() string {
	return fmt.Sprintf("%s: it starts with %s where a JSON object should start", e.Path, Quote(e.Found))
}

// File reads the file at path like os.ReadFile, failing with a
// *TooLargeError once it holds more than limit bytes.
func File(path string, limit int64) ([]byte, error) { return read(path, limit, false) }

// JSONObject is File for a file that holds a JSON object (or several, one
// per line): an input of unknown size (not a regular file, or one that
// says it is empty, as /proc's do) fails with a *NotObjectError, having
// read no further, when its first character that is not JSON whitespace is
// not '{'.
func JSONObject(path string, limit int64) ([]byte, error) { return read(path, limit, true) }

func read(path string, limit int64, object bool) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(512) // os.ReadFile's guess when the size is unknown
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > 0 {
		if st.Size() > limit {
			return nil, &TooLargeError{Path: path, Limit: limit}
		}
		size = st.Size() + 1 // one more byte sees EOF (or growth) at once
		object = false
	}
	buf := make([]byte, 0, size)
	r := io.LimitReader(f, limit+1)
	for {
		if len(buf) == cap(buf) { // double, but not past the bound
			buf = slices.Grow(buf, int(min(int64(cap(buf)), limit+1-int64(len(buf)))))
		}
		start := len(buf)
		n, err := r.Read(buf[start:cap(buf)])
		buf = buf[:start+n]
		if object {
			// Every byte before start was whitespace.
			if c, ok := firstNonSpace(buf[start:]); ok {
				if c != '{' {
					return nil, &NotObjectError{Path: path, Found: c}
				}
				object = false
			}
		}
		if int64(len(buf)) > limit {
			return nil, &TooLargeError{Path: path, Limit: limit}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// firstNonSpace returns the first byte of b that is not JSON whitespace.
func firstNonSpace(b []byte) (byte, bool) {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
		default:
			return c, true
		}
	}
	return 0, false
}

// Size writes a bound for messages: "64 MiB", "2 GiB", or bytes.
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Quote writes a byte for messages as encoding/json's syntax errors do:
// 'x', or '\x00' for a quote, a backslash, a control or a non-ASCII byte.
func Quote(c byte) string {
	if c >= 0x20 && c < 0x7f && c != '\'' && c != '\\' {
		return "'" + string(c) + "'"
	}
	return fmt.Sprintf(`'\x%02x'`, c)
}
