package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckAppend: a file that AppendFile could append to passes and is
// left as it was (a new one is not created); one it could not fails,
// naming the path or the directory.
func TestCheckAppend(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	existing := filepath.Join(dir, "summary.md")
	if err := os.WriteFile(existing, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, err string
	}{
		{"existing file", existing, ""},
		{"new file in a writable directory", filepath.Join(dir, "new.md"), ""},
		{"missing directory", filepath.Join(dir, "missing", "x.md"), "cannot write in directory " + filepath.Join(dir, "missing")},
		{"a directory", dir, "is a directory"},
	} {
		err := CheckAppend(tc.path)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "old\n" {
		t.Errorf("the existing file changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "new.md")); !os.IsNotExist(err) {
		t.Errorf("the check created the new file (%v)", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
