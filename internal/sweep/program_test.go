package sweep

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestBenchArgsPrograms: a bench command's program is gobench by any path
// whose base name is gobench, or by the running executable's path under
// another name; vLLM's spelling is read too, anything else refused.
func TestBenchArgsPrograms(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Skip("no executable path on this platform:", err)
	}
	for _, tt := range []struct {
		cmd  []string
		want []string // nil: refused
	}{
		{[]string{"gobench", "serve", "--num-prompts", "5"}, []string{"serve", "--num-prompts", "5"}},
		{[]string{"bin/gobench", "serve"}, []string{"serve"}},
		{[]string{"./bin/gobench", "serve"}, []string{"serve"}},
		{[]string{"/usr/local/bin/gobench", "serve"}, []string{"serve"}},
		{[]string{"gobench.exe", "serve"}, []string{"serve"}},
		{[]string{self, "serve", "--seed", "1"}, []string{"serve", "--seed", "1"}},
		{[]string{"/usr/bin/vllm", "bench", "serve", "--seed", "1"}, []string{"serve", "--seed", "1"}},
		{[]string{"notgobench", "serve"}, nil},
		{[]string{"bin/gobench", "sim"}, nil},
		{[]string{"python", "-m", "vllm"}, nil},
		{nil, nil},
	} {
		got, err := BenchArgs(tt.cmd)
		switch {
		case tt.want == nil && err == nil:
			t.Errorf("%q: read as %q, want refused", tt.cmd, got)
		case tt.want != nil && (err != nil || !slices.Equal(got, tt.want)):
			t.Errorf("%q: %q (%v), want %q", tt.cmd, got, err, tt.want)
		}
	}
}

// TestIsGobenchRenamedCopy: a copy of a file is not the running
// executable, a hard link to it is.
func TestIsGobenchRenamedCopy(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Skip("no executable path on this platform:", err)
	}
	dir := t.TempDir()
	link := filepath.Join(dir, "gb")
	if err := os.Link(self, link); err != nil {
		t.Skip("no hard link here:", err)
	}
	other := filepath.Join(dir, "other")
	if err := os.WriteFile(other, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if !IsGobench(link) {
		t.Errorf("IsGobench(%s), a link to the running executable: false", link)
	}
	if IsGobench(other) {
		t.Errorf("IsGobench(%s), another program: true", other)
	}
}
