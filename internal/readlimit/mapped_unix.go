//go:build unix

package readlimit

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only; the mapping outlives
// f's descriptor.
func mapFile(f *os.File, size int) ([]byte, func(), error) {
	m, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_PRIVATE|mapPopulate)
	if err != nil {
		return nil, nil, err
	}
	return m, func() { _ = syscall.Munmap(m) }, nil
}
