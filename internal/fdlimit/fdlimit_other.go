//go:build !unix

package fdlimit

// Soft returns 0: the limit is unknown on this platform.
func Soft() uint64 { return 0 }

// Raise does nothing on this platform.
func Raise() (uint64, error) { return 0, nil }
