//go:build !unix

package fdlimit

// Soft returns 0: the limit is unknown on this platform.
func Soft() uint64 { return 0 }
