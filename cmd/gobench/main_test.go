package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalsSaveThroughTheBinary builds gobench and stops a real run with
// SIGTERM and SIGHUP, as a supervisor does: the process
// saves what it measured (end_reason "interrupted") and exits with 130,
// although --interrupt-grace is far longer than the test waits.
func TestSignalsSaveThroughTheBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "gobench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// A server whose streams stall after one token, until the client goes.
	streaming := make(chan struct{}, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/completions" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"text\":\"a\"}]}\n\n")
		w.(http.Flusher).Flush()
		streaming <- struct{}{}
		<-r.Context().Done()
	}))
	defer srv.Close()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(bin, "serve", "--base-url", srv.URL, "--model", "m", "--tokenizer", "gobench-builtin",
				"--num-prompts", "2", "--random-input-len", "8", "--random-output-len", "8", "--interrupt-grace", "600",
				"--save-result", "--save-detailed", "--result-dir", dir, "--result-filename", "r.json")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			<-streaming
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(120 * time.Second): // the grace is 600 s
				_ = cmd.Process.Kill()
				t.Fatalf("still running 120 s after %s\n%s", sig, stderr.String())
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 130 {
				t.Errorf("exit %v, want 130\n%s", err, stderr.String())
			}
			b, err := os.ReadFile(filepath.Join(dir, "r.json"))
			if err != nil {
				t.Fatalf("no result file: %v\n%s", err, stderr.String())
			}
			var res map[string]any
			if err := json.Unmarshal(b, &res); err != nil || res["end_reason"] != "interrupted" {
				t.Errorf("result %v (%v)", res, err)
			}
			for len(streaming) > 0 {
				<-streaming
			}
		})
	}
}

// buildGobench builds the binary into a temporary directory.
func buildGobench(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "gobench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// readResultFile reads a saved result's counts.
func readResultFile(t *testing.T, path string) (completed, failed int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no result file: %v", err)
	}
	var res struct{ Completed, Failed int }
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("result file: %v", err)
	}
	return res.Completed, res.Failed
}

// TestSIGTERMDuringWarmUps: a hundred million warm-ups (once 3.2 GB of
// goroutines, still running 11 minutes after SIGTERM) end at SIGTERM: the
// process exits with 130 and saves the run, which sent nothing. Only the
// outcome is checked; the bound is generous.
func TestSIGTERMDuringWarmUps(t *testing.T) {
	t.Parallel()
	bin := buildGobench(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "serve", "--sim", "--num-prompts", "2", "--num-warmups", "100000000",
		"--save-result", "--result-dir", dir, "--result-filename", "r.json")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	warming := make(chan struct{})
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 4096)
		once := false
		for {
			n, err := stderr.Read(buf)
			log.Write(buf[:n])
			if !once && strings.Contains(log.String(), "Warm-up:") {
				once = true
				close(warming)
			}
			if err != nil {
				return
			}
		}
	}()
	select {
	case <-warming:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("the warm-ups never began")
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatal("still running 2 minutes after SIGTERM")
	}
	<-copied
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Errorf("exit %v, want 130\n%s", err, log.String())
	}
	if completed, failed := readResultFile(t, filepath.Join(dir, "r.json")); completed+failed != 0 {
		t.Errorf("%d completed and %d failed, want nothing sent", completed, failed)
	}
}

// TestSimUnderLowOpenFileLimit: `serve --sim` under `ulimit -n 256`, with
// 1,000 requests sent at once, completes them all and says why it held
// fewer at a time: the simulator shares the process's descriptors, and
// the run once stalled for minutes with the simulator unable to accept.
// The limit is set by the shell that starts the binary.
func TestSimUnderLowOpenFileLimit(t *testing.T) {
	t.Parallel()
	bin := buildGobench(t)
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", `ulimit -n 256 && exec "$0" "$@"`, bin, "serve", "--sim", "--sim-ttft", "0.005",
		"--sim-itl", "0.001", "--num-prompts", "1000", "--random-input-len", "16", "--random-output-len", "8",
		"--save-result", "--result-dir", dir, "--result-filename", "r.json")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit %v\n%s", err, stderr.String())
		}
	case <-time.After(5 * time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("still running after 5 minutes\n%.3000s", stderr.String())
	}
	if completed, failed := readResultFile(t, filepath.Join(dir, "r.json")); completed != 1000 || failed != 0 {
		t.Errorf("%d completed, %d failed, want 1000 and 0\n%s", completed, failed, stderr.String())
	}
	if !strings.Contains(stderr.String(), "may open only 256 files (ulimit -n)") {
		t.Errorf("no word of the limit:\n%s", stderr.String())
	}
}
