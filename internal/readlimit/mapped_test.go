package readlimit

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestMapJSONObject: a regular file is mapped and gives its bytes; the
// bound holds; an empty file, a directory's absence and a device take the
// read path with its errors; release may be called twice.
func TestMapJSONObject(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	body := `{"a": "` + strings.Repeat("x", 10000) + `"}`
	p := filepath.Join(dir, "t.json")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	data, release, err := MapJSONObject(p, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != body {
		t.Fatalf("mapped %d bytes, want the file's %d", len(data), len(body))
	}
	release()
	release()

	var tooLarge *TooLargeError
	if _, _, err := MapJSONObject(p, 100); !errors.As(err, &tooLarge) || tooLarge.Limit != 100 {
		t.Errorf("over the bound: %v, want a *TooLargeError", err)
	}
	empty := filepath.Join(dir, "empty.json")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if data, release, err := MapJSONObject(empty, 100); err != nil || len(data) != 0 {
		t.Errorf("empty file: %q, %v", data, err)
	} else {
		release()
	}
	if _, _, err := MapJSONObject(filepath.Join(dir, "missing.json"), 100); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want not exist", err)
	}
	if runtime.GOOS != "windows" {
		var notObject *NotObjectError
		if _, _, err := MapJSONObject("/dev/zero", 1<<20); !errors.As(err, &notObject) {
			t.Errorf("/dev/zero: %v, want a *NotObjectError", err)
		}
	}
}
