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

// TestSoftIsRaisedAtStart: a process started with a soft limit below its
// hard limit reads about the hard limit (Go raises it at start), so the
// run's warning names the limit that binds.
func TestSoftIsRaisedAtStart(t *testing.T) {
	if os.Getenv("FDLIMIT_CHILD") == "1" {
		var l syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
			t.Fatal(err)
		}
		t.Logf("CHILD soft=%d hard=%d", Soft(), l.Max)
		return
	}
	t.Parallel()
	cmd := exec.Command("sh", "-c", `ulimit -S -n 64 && ulimit -H -n 512 && exec "$0" -test.run='^TestSoftIsRaisedAtStart$' -test.v`, os.Args[0])
	cmd.Env = append(os.Environ(), "FDLIMIT_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	// Go sets the soft limit one below the hard limit (syscall's init).
	if !strings.Contains(string(out), "CHILD soft=511 hard=512") && !strings.Contains(string(out), "CHILD soft=512 hard=512") {
		t.Errorf("child printed:\n%s\nwant its soft limit raised to about 512", out)
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
