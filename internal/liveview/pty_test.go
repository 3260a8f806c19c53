//go:build linux

package liveview

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gobench/gobench/internal/live"
)

// openPTY opens a pseudo-terminal pair: what is written to tty is read
// from ptmx, as a terminal emulator reads it.
func openPTY(t *testing.T) (ptmx, tty *os.File) {
	t.Helper()
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	ptmx = os.NewFile(uintptr(fd), "/dev/ptmx")
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("name the pseudo-terminal: %v", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return ptmx, tty
}

// TestTerminalRestored draws runs on a pseudo-terminal: a run that ends
// (as after Ctrl-C, when the run reports what was sent) and a command that
// ends without ending its run (Close). Either way the terminal's modes are
// as before, the cursor is shown, and the screen holds the bar line in
// place of the frame. A frame of the run is printed in the test's log.
func TestTerminalRestored(t *testing.T) {
	for _, end := range []string{"run ended", "view closed"} {
		t.Run(end, func(t *testing.T) {
			ptmx, tty := openPTY(t)
			defer ptmx.Close()
			before, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			read := make(chan struct{})
			go func() { _, _ = io.Copy(&got, ptmx); close(read) }() // ends with EIO once tty closes
			v := New(tty)
			r := v.Watch(live.Info{Label: "pty", Model: "m", Backend: "openai", Total: 50, RequestRate: 100})
			for range 20 {
				r.Released(0)
				r.Sent()
				r.Finished(&success, "")
			}
			time.Sleep(3 * Refresh / 2) // a frame or more
			if end == "run ended" {
				r.End()
			}
			v.Close()
			after, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
			if err != nil {
				t.Fatal(err)
			}
			tty.Close()
			<-read
			if *before != *after {
				t.Errorf("the terminal's modes changed: %+v, then %+v", before, after)
			}
			checkScreen(t, got.String(), end == "run ended")
			r.End() // the drawing goroutine of the closed view's run
		})
	}
}

// checkScreen interprets what the terminal received: the cursor ends
// shown, every sequence is known, and a run that ended left its bar line
// only.
func checkScreen(t *testing.T, out string, ended bool) {
	t.Helper()
	var sc screen
	first := strings.Index(out, "\x1b[?25l")
	if i := strings.Index(out[max(first, 0):], "failures"); first >= 0 && i > 0 {
		var frame screen
		frame.write(out[:first+i+len("failures   none")])
		t.Logf("a frame on the pseudo-terminal:\n%s", frame.text())
	}
	sc.write(out)
	if sc.hidden {
		t.Error("the cursor is left hidden")
	}
	if len(sc.unknown) > 0 {
		t.Errorf("sequences the view should not write: %q", sc.unknown)
	}
	if ended && !strings.HasPrefix(sc.text(), " 40%|") || ended && strings.Contains(sc.text(), "\n") {
		t.Errorf("the screen after the run is not its bar line alone:\n%s", sc.text())
	}
}
