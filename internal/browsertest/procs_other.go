//go:build !linux

package browsertest

// ProfileUsers finds the processes of a browser profile through /proc,
// which only Linux has; elsewhere it finds none, so that the package
// builds (the pinned browser of make testdata is a Linux build anyway).
func ProfileUsers(string) []int { return nil }

// killProfileUsers has nothing to kill where ProfileUsers finds nothing:
// the browser's own shutdown (chromedp's Cancel) is what ends it there.
func killProfileUsers(string) {}
