package buildinfo

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	t.Parallel()
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "3cc574e1234567890abcdef1234567890abcdef0"
	for _, tc := range []struct {
		name    string
		stamped string
		info    *debug.BuildInfo
		want    string
	}{
		{"stamped by make build", "v0.4.0-3-g3cc574e", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "v0.4.0-3-g3cc574e"},
		{"go install @v0.4.0", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}}, "v0.4.0"},
		{"go install @latest, untagged", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201021859-3cc574e12345"}}, "v0.0.0-20261201021859-3cc574e12345"},
		{"go build in a clean checkout", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "false")}, "devel 3cc574e12345"},
		{"go build with local changes", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "true")}, "devel 3cc574e12345+dirty"},
		{"go build outside a checkout", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
		{"no build info", "dev", nil, "devel"},
	} {
		if got := FromBuildInfo(tc.stamped, tc.info); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	want := "gobench v0.4.0 (" + runtime.Version() + ", " + runtime.GOOS + "/" + runtime.GOARCH + ")"
	if got := Describe("v0.4.0"); got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
