//go:build !(linux || darwin)

package atomicfile

import "errors"

// errNoStatfs is Available's error where the free space is not read.
var errNoStatfs = errors.New("atomicfile: the free space is not known on this platform")

// Available returns an error: the free space is not read on this
// platform, and the save's own errors are what tells a full disk.
func (p *Pending) Available() (uint64, error) { return 0, errNoStatfs }
