// Package buildinfo names the gobench binary's version: the one a release
// build stamps in with -ldflags, else what the Go toolchain embeds (the
// module version for `go install …@version`, the VCS revision for a
// `go build` in a checkout), so that no binary says only "dev".
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Version is gobench's version for a binary stamped with stamped ("" or
// "dev" when the build did not stamp it).
func Version(stamped string) string {
	info, _ := debug.ReadBuildInfo()
	return FromBuildInfo(stamped, info)
}

// FromBuildInfo picks the version: stamped when set; else the main
// module's version (v1.2.3, or a pseudo-version such as
// v0.0.0-20261201021859-3cc574e12345 for `go install …@latest` on an
// untagged commit); else "devel" with the commit Go recorded from the
// checkout (12 hex digits, "+dirty" for uncommitted changes); else "devel".
func FromBuildInfo(stamped string, info *debug.BuildInfo) string {
	if stamped != "" && stamped != "dev" {
		return stamped
	}
	if info == nil {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		return "devel"
	}
	return "devel " + rev[:min(len(rev), 12)] + dirty
}

// Describe is the line `gobench version` and `gobench --version` print:
// the version, the Go toolchain and the platform, which a bug report needs.
func Describe(version string) string {
	return "gobench " + version + " (" + runtime.Version() + ", " + runtime.GOOS + "/" + runtime.GOARCH + ")"
}
