package hub

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteAtomicBound: a body up to the bound lands whole; one byte more
// fails, naming the bound, and leaves neither the file nor a temporary
// one (a Hub or HF_ENDPOINT with an endless answer cannot fill the disk).
func TestWriteAtomicBound(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok")
	if err := writeAtomic(ok, strings.NewReader("0123456789"), 10); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(ok); string(b) != "0123456789" {
		t.Errorf("wrote %q", b)
	}
	big := filepath.Join(dir, "big")
	err := writeAtomic(big, strings.NewReader("0123456789A"), 10)
	if err == nil || !strings.Contains(err.Error(), "larger than 10 bytes") {
		t.Errorf("err = %v", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("left in the folder: %v", left)
	}
}
