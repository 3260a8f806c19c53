//go:build linux || darwin

package atomicfile

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Available returns the bytes an unprivileged writer may still add to the
// file system of the prepared directory (statfs(2)'s f_bavail blocks: the
// blocks kept for root are left out, so the figure is the smaller one). It
// asks through the temporary file's descriptor, so it needs no new one.
func (p *Pending) Available() (uint64, error) {
	if p == nil || p.tmp == nil {
		return 0, errFinished
	}
	raw, err := p.tmp.SyscallConn()
	if err != nil {
		return 0, fmt.Errorf("free space in %s: %w", p.dir, err)
	}
	var st unix.Statfs_t
	var serr error
	if err := raw.Control(func(fd uintptr) { serr = unix.Fstatfs(int(fd), &st) }); err != nil {
		return 0, fmt.Errorf("free space in %s: %w", p.dir, err)
	}
	if serr != nil {
		return 0, fmt.Errorf("free space in %s: %w", p.dir, serr)
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil //nolint:gosec // block counts and sizes are never negative here
}
