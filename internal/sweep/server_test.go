//go:build unix

package sweep

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestServerStopsGroup: a server that ignores SIGTERM is killed after the
// grace, with the processes it started (its process group); waiting for
// its health is bounded, and the error names its log.
func TestServerStopsGroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "server.log")
	env := &Env{StopGrace: 100 * time.Millisecond, ReadyPoll: 20 * time.Millisecond}
	// The child sleeps in a process of its own: only a signal to the
	// group reaches it.
	s, err := startServer([]string{"/bin/sh", "-c", `trap "" TERM; echo started; sleep 60 & wait`, "--port", "1"}, log, env)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.address(); got != "http://localhost:1" {
		t.Errorf("address %q", got)
	}
	// Once "started" is in the log, the trap is set: a loaded machine may
	// take its time to get the shell there.
	waitFor(t, func() bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "started")
	})
	err = s.waitReady(context.Background(), 200*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "not ready within") || !strings.Contains(err.Error(), log) {
		t.Errorf("waitReady: %v", err)
	}
	start := time.Now()
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > killWait {
		t.Errorf("stop took %s", time.Since(start))
	}
	if alive := liveInGroup(t, s.cmd.Process.Pid); alive != 0 {
		t.Errorf("%d processes of the server's group still run", alive)
	}
	if b, _ := os.ReadFile(log); !strings.Contains(string(b), "started") || !strings.HasPrefix(string(b), "# gobench sweep: /bin/sh") {
		t.Errorf("log %q", b)
	}
}

// liveInGroup counts the processes of group pgid that are not zombies
// (Linux's /proc; elsewhere, none), waiting for the kill to land.
func liveInGroup(t *testing.T, pgid int) int {
	t.Helper()
	var alive int
	waitFor(t, func() bool {
		alive = 0
		stats, _ := filepath.Glob("/proc/[0-9]*/stat")
		for _, p := range stats {
			b, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			// pid (comm) state ppid pgrp ...: comm may hold spaces.
			f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
			if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
				alive++
			}
		}
		return alive == 0
	})
	return alive
}

// waitBound bounds a wait for something another process does: far more
// than it takes on a loaded machine, so that only a real failure reaches
// it.
const waitBound = time.Minute

// waitFor polls done until it holds or waitBound passes (then the caller's
// check fails).
func waitFor(t *testing.T, done func() bool) {
	t.Helper()
	for deadline := time.Now().Add(waitBound); !done() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
}

// TestServerAddress: vLLM's reading of the server's address from its
// command line.
func TestServerAddress(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		argv []string
		want string
	}{
		{[]string{"vllm", "serve", "m"}, "http://localhost:8000"},
		{[]string{"vllm", "serve", "m", "--host", "0.0.0.0", "-p", "9000"}, "http://0.0.0.0:9000"},
		{[]string{"gobench", "sim", "--port=8123", "--host=127.0.0.1"}, "http://127.0.0.1:8123"},
	} {
		if got := (&server{argv: tt.argv}).address(); got != tt.want {
			t.Errorf("%q: %s, want %s", tt.argv, got, tt.want)
		}
	}
}
