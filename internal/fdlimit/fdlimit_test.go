//go:build unix

package fdlimit

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestRaise runs in a child process (the limit is process-wide) whose soft
// limit starts below its hard limit: Raise lifts it to the hard limit, and
// Soft reads it back.
func TestRaise(t *testing.T) {
	if os.Getenv("FDLIMIT_CHILD") == "1" {
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 64, Max: 512}); err != nil {
			t.Fatal(err)
		}
		got, err := Raise()
		t.Logf("CHILD raised=%d soft=%d err=%v", got, Soft(), err)
		return
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestRaise$", "-test.v")
	cmd.Env = append(os.Environ(), "FDLIMIT_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if want := "CHILD raised=512 soft=512 err=<nil>"; !strings.Contains(string(out), want) {
		t.Errorf("child printed:\n%s\nwant %q", out, want)
	}
}

func TestSoft(t *testing.T) {
	t.Parallel()
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		t.Fatal(err)
	}
	if got := Soft(); got != l.Cur {
		t.Errorf("Soft() = %d, want %s", got, strconv.FormatUint(l.Cur, 10))
	}
}
