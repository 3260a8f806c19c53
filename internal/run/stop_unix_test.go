//go:build unix

package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/tokenizer"
)

// TestStopWhilePlanning: the first interrupt ends a run whose plan waits
// on a file that never answers (a FIFO, as a hung network mount would),
// where no context reaches: the run ends as interrupted at once, and
// leaves no temporary file in the result directory. The bound, a minute,
// is generous; without the fix the run never ends.
func TestStopWhilePlanning(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// file is the FIFO's name; set points the options at it.
		file string
		set  func(o *Options, fifo string)
	}{
		{name: "dataset", file: "data.json", set: func(o *Options, fifo string) {
			o.Dataset.Name, o.Dataset.Path = "sharegpt", fifo
		}},
		{name: "tokenizer", file: "tokenizer.json", set: func(o *Options, fifo string) {
			o.Tokenizer = filepath.Dir(fifo)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			fifo := filepath.Join(t.TempDir(), tc.file)
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("no FIFO: %v", err)
			}
			t.Cleanup(func() { unblockFIFO(fifo) }) // when the test failed first
			o := baseOptions("http://127.0.0.1:1")
			o.Model, o.Tokenizer = "m", tokenizer.BuiltinName
			o.SaveResult, o.ResultDir = true, dir
			tc.set(&o, fifo)
			stop := make(chan struct{})
			var b lockedBuffers
			env := Env{Stdout: &b, Stderr: &b, Stop: stop}
			done := make(chan error, 1)
			go func() {
				_, err := Serve(context.Background(), o, env)
				done <- err
			}()
			time.Sleep(100 * time.Millisecond) // the plan is on its way, or soon
			close(stop)
			select {
			case err := <-done:
				if !errors.Is(err, ErrInterrupted) {
					t.Errorf("err = %v", err)
				}
			case <-time.After(time.Minute):
				t.Fatal("still planning a minute after the stop")
			}
			if names, _ := os.ReadDir(dir); len(names) != 0 {
				t.Errorf("the result directory holds %v", names)
			}
			if !unblockFIFO(fifo) {
				t.Error("the plan was not waiting on the file when the run ended")
			}
		})
	}
}

// unblockFIFO lets a reader blocked opening fifo go, and reports whether
// there was one: a writer's open that does not wait succeeds only when a
// reader has the FIFO open, and its close gives the reader the end.
func unblockFIFO(fifo string) bool {
	f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	_ = f.Close()
	return true
}
