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
// SIGTERM and SIGHUP, as a supervisor does (issue 9, item 7): the process
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
