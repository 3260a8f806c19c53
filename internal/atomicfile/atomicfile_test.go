package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// names lists dir, sorted.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

func assertFile(t *testing.T, path, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || string(b) != want {
		t.Errorf("%s = %q (%v), want %q", path, b, err, want)
	}
}

func TestReplace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := writeFile(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(dir, "r.json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(p.tmp.Name()), ".r.json.") || filepath.Dir(p.tmp.Name()) != dir {
		t.Errorf("temporary file %s", p.tmp.Name())
	}
	if _, err := p.Write([]byte("tw")); err != nil {
		t.Fatal(err)
	}
	assertFile(t, path, "one") // nothing visible before Commit
	if err := p.Replace(path, []byte("o")); err != nil {
		t.Fatal(err)
	}
	assertFile(t, path, "two")
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the replaced file's 0600", st.Mode())
	}
	if got := names(t, dir); strings.Join(got, " ") != "r.json" {
		t.Errorf("directory %v", got)
	}
	if err := p.Commit(path); !errors.Is(err, errFinished) {
		t.Errorf("a second Commit: %v", err)
	}
}

// TestCommitFailure: a destination that cannot be replaced (a directory)
// is left alone, and so is everything else; the temporary file is gone.
func TestCommitFailure(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dest := filepath.Join(dir, "d")
	if err := os.MkdirAll(filepath.Join(dest, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Replace(dest, []byte("data")); err == nil || !strings.Contains(err.Error(), dest) {
		t.Errorf("Replace over a directory: %v", err)
	}
	if got := names(t, dir); strings.Join(got, " ") != "d" {
		t.Errorf("directory %v", got)
	}
	other := filepath.Join(t.TempDir(), "x")
	p, _ = Prepare(dir, "")
	if err := p.Commit(other); err == nil || !strings.Contains(err.Error(), "not in the prepared directory") {
		t.Errorf("Commit outside the directory: %v", err)
	}
	if got := names(t, dir); strings.Join(got, " ") != "d" {
		t.Errorf("directory %v", got)
	}
}

func TestPrepareErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(dir, "missing"), file} {
		if _, err := Prepare(d, ""); err == nil || !strings.Contains(err.Error(), "cannot write in directory "+d) {
			t.Errorf("Prepare(%s): %v", d, err)
		}
	}
	p, err := Prepare(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := p.Target(sub, false); err == nil || !strings.Contains(err.Error(), sub+" is a directory") {
		t.Errorf("Target of a directory: %v", err)
	}
	p.Abort()
	p.Abort()
	if got := names(t, dir); strings.Join(got, " ") != "f sub" {
		t.Errorf("directory after Abort %v", got)
	}
	if _, err := p.Write([]byte("x")); !errors.Is(err, errFinished) {
		t.Errorf("Write after Abort: %v", err)
	}
}

func TestAppend(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name, before string // "-" for no file
		target       bool
		want         string
	}{
		{"new file", "-", false, "{1}"},
		{"after a newline", "{0}\n", false, "{0}\n{1}"},
		{"after a cut line", "{0}\n{\"da", false, "{0}\n{\"da\n{1}"},
		{"empty file", "", false, "{1}"},
		{"held target", "{0}", true, "{0}\n{1}"},
		{"held target that did not exist", "-", true, "{1}"},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".jsonl")
		if tt.before != "-" {
			if err := os.WriteFile(path, []byte(tt.before), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p, err := Prepare(dir, "")
		if err != nil {
			t.Fatal(err)
		}
		if tt.target {
			if err := p.Target(path, true); err != nil {
				t.Fatal(err)
			}
		}
		if err := p.Append(path, []byte("{1}")); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
		assertFile(t, path, tt.want)
	}
	if err := AppendFile(filepath.Join(dir, "summary.md"), []byte("# one\n")); err != nil {
		t.Fatal(err)
	}
	if err := AppendFile(filepath.Join(dir, "summary.md"), []byte("# two\n")); err != nil {
		t.Fatal(err)
	}
	assertFile(t, filepath.Join(dir, "summary.md"), "# one\n# two\n")
	for _, n := range names(t, dir) {
		if strings.HasSuffix(n, ".tmp") {
			t.Errorf("temporary file %s left", n)
		}
	}
	if err := AppendFile(filepath.Join(dir, "no", "such"), []byte("x")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("AppendFile in a missing directory: %v", err)
	}
}

// writeFile replaces the file at path with data (Prepare, then Replace).
func writeFile(path string, data []byte) error {
	p, err := Prepare(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		return err
	}
	return p.Replace(path, data)
}
