package readlimit

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	small := write("small.json", " \n{\"a\": 1}\n{\"b\": 2}\n")
	big := write("big.json", "{"+strings.Repeat(" ", 2000)+"}")
	list := write("list.json", "\n\t [1]")
	empty := write("empty.json", "")
	tests := []struct {
		name   string
		read   func(string, int64) ([]byte, error)
		path   string
		limit  int64
		want   string // the content, or part of the error
		failed bool
	}{
		{"file", File, small, 1 << 10, " \n{\"a\": 1}\n{\"b\": 2}\n", false},
		{"object", JSONObject, small, 1 << 10, " \n{\"a\": 1}\n{\"b\": 2}\n", false},
		{"exactly the limit", File, small, int64(len(" \n{\"a\": 1}\n{\"b\": 2}\n")), " \n{\"a\": 1}\n{\"b\": 2}\n", false},
		{"empty", JSONObject, empty, 10, "", false},
		{"too large", File, big, 1 << 10, "big.json: larger than 1 KiB, the most gobench reads from such a file", true},
		{"a regular file is left to its parser", JSONObject, list, 1 << 10, "\n\t [1]", false},
		{"a pipe that is not an object", JSONObject, pipe(t, "\n\t [1]"), 1 << 10, "it starts with '[' where a JSON object should start", true},
		{"a pipe", JSONObject, pipe(t, " {}"), 1 << 10, " {}", false},
		{"missing", File, filepath.Join(dir, "nope"), 10, "no such file", true},
		{"/dev/zero", File, "/dev/zero", 1 << 20, "/dev/zero: larger than 1 MiB", true},
		{"/dev/zero object", JSONObject, "/dev/zero", 1 << 30, `/dev/zero: it starts with '\x00' where a JSON object should start`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.path == "/dev/zero" {
				if _, err := os.Stat("/dev/zero"); err != nil {
					t.Skip("no /dev/zero")
				}
			}
			got, err := tt.read(tt.path, tt.limit)
			if tt.failed {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err = %v, want %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	var tooLarge *TooLargeError
	if _, err := File(big, 100); !errors.As(err, &tooLarge) || tooLarge.Limit != 100 || tooLarge.Path != big {
		t.Errorf("not a *TooLargeError: %v", err)
	}
	var notObject *NotObjectError
	if _, err := JSONObject(pipe(t, "[1]"), 100); !errors.As(err, &notObject) || notObject.Found != '[' {
		t.Errorf("not a *NotObjectError: %v", err)
	}
}

// pipe is a path that reads body from a pipe (/dev/fd on Linux).
func pipe(t *testing.T, body string) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := "/dev/fd/" + strconv.Itoa(int(r.Fd()))
	if _, err := os.Stat(p); err != nil {
		t.Skip("no /dev/fd")
	}
	go func() {
		_, _ = w.WriteString(body)
		_ = w.Close()
	}()
	t.Cleanup(func() { _ = r.Close() })
	return p
}

// TestBoundedMemory: reading a device that never ends allocates about
// twice the bound (the buffer doubles up to it), and a wrong first character stops at once.
// Not parallel: it measures the process's allocations.
func TestBoundedMemory(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	const limit = 4 << 20
	for _, tc := range []struct {
		name string
		read func(string, int64) ([]byte, error)
		most uint64
	}{
		{"File", File, 3 * limit},
		{"JSONObject", JSONObject, 64 << 10},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := tc.read("/dev/zero", limit)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Fatalf("%s: /dev/zero read whole", tc.name)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > tc.most {
			t.Errorf("%s: allocated %d bytes for a bound of %d, want at most %d", tc.name, got, limit, tc.most)
		}
	}
}

func TestSize(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{64 << 20: "64 MiB", 2 << 30: "2 GiB", 1 << 10: "1 KiB", 1000: "1000 bytes", 1<<20 + 1: "1048577 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
