package atomicfile

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestNoDescriptorNeededAtTheEnd: a save prepared
// before the open-file limit was used up still completes: Replace and a
// held append use the descriptors Prepare and Target took, an append to
// an existing file takes the temporary file's, a new file is hard-linked.
// It runs in a child process whose limit is lowered.
func TestNoDescriptorNeededAtTheEnd(t *testing.T) {
	if dir := os.Getenv("GOBENCH_TEST_FD_DIR"); dir != "" {
		fdChild(t, dir)
		return
	}
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"old.jsonl", "held.jsonl"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{0}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoDescriptorNeededAtTheEnd$", "-test.v")
	cmd.Env = append(os.Environ(), "GOBENCH_TEST_FD_DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "CHILD exhausted") {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for name, want := range map[string]string{
		"r.json": "{1}", "old.jsonl": "{0}\n{1}", "held.jsonl": "{0}\n{1}", "new.jsonl": "{1}",
	} {
		assertFile(t, filepath.Join(dir, name), want)
	}
	if got := names(t, dir); len(got) != 4 {
		t.Errorf("directory %v", got)
	}
}

// fdChild prepares four saves, uses up every descriptor before each
// completes, and fails the (child) test when one cannot.
func fdChild(t *testing.T, dir string) {
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 64, Max: 64}); err != nil {
		t.Fatal(err)
	}
	path := func(name string) string { return filepath.Join(dir, name) }
	prepare := func(target string) *Pending {
		p, err := Prepare(dir, "")
		if err != nil {
			t.Fatal(err)
		}
		if target != "" {
			if err := p.Target(path(target), true); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	replace, old, held, fresh := prepare(""), prepare(""), prepare("held.jsonl"), prepare("")
	var hog []*os.File
	exhaust := func() {
		for {
			f, err := os.Open(os.DevNull)
			if err != nil {
				return
			}
			hog = append(hog, f)
		}
	}
	saves := []struct {
		name string
		save func() error
	}{
		{"replace", func() error { return replace.Replace(path("r.json"), []byte("{1}")) }},
		{"append to an existing file", func() error { return old.Append(path("old.jsonl"), []byte("{1}")) }},
		{"append to a held file", func() error { return held.Append(path("held.jsonl"), []byte("{1}")) }},
		{"append to a new file", func() error { return fresh.Append(path("new.jsonl"), []byte("{1}")) }},
	}
	for _, s := range saves {
		exhaust()
		if _, err := os.Open(os.DevNull); err == nil {
			t.Fatal("descriptors left after exhausting them")
		}
		if err := s.save(); err != nil {
			t.Errorf("%s: %v", s.name, err)
		}
	}
	t.Logf("CHILD exhausted %d descriptors", len(hog))
	for _, f := range hog {
		_ = f.Close()
	}
}
