package atomicfile

import (
	"os/exec"
	"testing"
)

// TestAvailable: the free space of a prepared directory, read through the
// temporary file's descriptor: what a 64 KiB tmpfs holds (mounting needs
// root: without it, a temporary directory's non-zero figure), and an error
// once the save is given up.
func TestAvailable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	want := uint64(0)
	if exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).Run() == nil {
		t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
		want = 64 << 10
	}
	p, err := Prepare(dir, "r.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Available()
	switch {
	case err != nil:
		t.Fatal(err)
	case want != 0 && got != want:
		t.Errorf("Available() = %d on a 64 KiB tmpfs", got)
	case got == 0:
		t.Error("Available() = 0")
	}
	p.Abort()
	if _, err := p.Available(); err == nil {
		t.Error("no error after Abort")
	}
}
