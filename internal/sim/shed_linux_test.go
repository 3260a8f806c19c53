package sim

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// shedChildEnv makes the test binary run the child's side of
// TestOutOfDescriptorsFailsAtOnce.
const shedChildEnv = "GOBENCH_TEST_SHED_CHILD"

// TestOutOfDescriptorsFailsAtOnce: a client that connects while the
// simulator's process has no descriptor left to accept it with is closed
// at once, so its request fails, instead of waiting for as long as the
// descriptors are held; once descriptors are free again, requests are
// answered. The child process lowers its own open-file limit and uses it
// up; the parent reads only the outcome. Without the spare descriptor
// the read waits for its deadline.
func TestOutOfDescriptorsFailsAtOnce(t *testing.T) {
	if os.Getenv(shedChildEnv) != "" {
		shedChild(t)
		return
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestOutOfDescriptorsFailsAtOnce$", "-test.v")
	cmd.Env = append(os.Environ(), shedChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	// "timeout" (the server never accepted) is the failure this guards.
	for _, want := range []string{"CHILD out of descriptors: closed", "CHILD descriptors back: 200"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("no %q in the child's output:\n%s", want, out)
		}
	}
}

// shedChild is the child's side: the simulator started, every descriptor
// taken but one, which the client's connection takes. A descriptor that
// another goroutine of the process lets go of in between (the runtime's,
// on a loaded machine) lets the server accept and answer: that attempt
// proves nothing, so it is made again, a few times, and the first
// attempt that meets no descriptor free is the one reported.
func shedChild(t *testing.T) {
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 64, Max: 64}); err != nil {
		t.Fatal(err)
	}
	r, err := Start(context.Background(), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := ""
	for range 5 {
		got = outOfDescriptors(r.Addr().String())
		if strings.HasPrefix(got, "closed") {
			break
		}
	}
	t.Logf("CHILD out of descriptors: %s", got)
	t.Logf("CHILD descriptors back: %s", getHealth(r.Addr().String()))
}

// outOfDescriptors takes every descriptor but one, asks addr for /health
// with it, gives them back and says what came of it.
func outOfDescriptors(addr string) string {
	var hog []*os.File
	for {
		f, err := os.Open(os.DevNull)
		if err != nil {
			break
		}
		hog = append(hog, f)
	}
	_ = hog[len(hog)-1].Close()
	hog = hog[:len(hog)-1]
	defer func() {
		for _, f := range hog {
			_ = f.Close()
		}
	}()
	return getHealth(addr)
}

// getHealth asks addr for /health on a connection of its own and says what
// came of it: the status, "closed" when the server closed the connection,
// or the error (a timeout after 30 s: the server never accepted it).
func getHealth(addr string) string {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return "dial: " + err.Error()
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := fmt.Fprintf(c, "GET /health HTTP/1.1\r\nHost: sim\r\n\r\n"); err != nil {
		return "closed" // the server may close before the request is written
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	var ne net.Error
	switch {
	case err == nil:
		_ = resp.Body.Close()
		return fmt.Sprint(resp.StatusCode)
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout: " + err.Error()
	default:
		return "closed (" + err.Error() + ")"
	}
}
