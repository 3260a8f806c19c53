package runner

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/run"
	"github.com/gobench/gobench/internal/tokenizer"
)

// TestJobOptions: a Runner sends every run to its server, and a job's
// result path names the result file (and saves it).
func TestJobOptions(t *testing.T) {
	t.Parallel()
	o := run.DefaultOptions()
	o.BaseURL, o.ResultDir, o.ResultFilename = "http://elsewhere:1", "a", "b.json"
	got := New(Env{ServerURL: "http://127.0.0.1:9"}).Options(Job{Options: o, ResultPath: "dir/sub/run=0.json"})
	if got.BaseURL != "http://127.0.0.1:9" || got.ResultDir != "dir/sub" || got.ResultFilename != "run=0.json" || !got.SaveResult {
		t.Errorf("options %q %q %q save=%v", got.BaseURL, got.ResultDir, got.ResultFilename, got.SaveResult)
	}
	kept := New(Env{}).Options(Job{Options: o})
	if kept.BaseURL != o.BaseURL || kept.ResultDir != "a" || kept.ResultFilename != "b.json" || kept.SaveResult {
		t.Errorf("a job without a server or a path changed the options: %+v", kept)
	}
}

// TestJobEnv: a job's transcript takes both writers, its standard output
// the one, and its stop replaces the Runner's first interrupt step.
func TestJobEnv(t *testing.T) {
	t.Parallel()
	var out, errOut, log, own bytes.Buffer
	stop, jobStop := make(chan struct{}), make(chan struct{})
	r := New(Env{Run: run.Env{Stdout: &out, Stderr: &errOut, Stop: stop}})
	if env := r.runEnv(Job{Transcript: &log, Stdout: &own}); env.Stdout != &log || env.Stderr != &log || env.Stop != stop {
		t.Error("a transcript does not take both writers")
	}
	if env := r.runEnv(Job{Stdout: &own, Stop: jobStop}); env.Stdout != &own || env.Stderr != &errOut || env.Stop != jobStop {
		t.Error("a job's standard output or stop is not the run's")
	}
	if r.Stopped() {
		t.Error("stopped before the interrupt")
	}
	close(stop)
	if !r.Stopped() {
		t.Error("not stopped after the interrupt")
	}
}

// TestAbortWait: after the third interrupt a run that does not save (its
// server never answers) is given up after AbortWait, as interrupted.
func TestAbortWait(t *testing.T) {
	t.Parallel()
	hold := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(hold) })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // ends the run left behind
	abort := make(chan struct{})
	close(abort)
	o := run.DefaultOptions()
	o.BaseURL, o.Model, o.Tokenizer, o.NumPrompts = srv.URL, "m", tokenizer.BuiltinName, 1
	r := New(Env{Run: run.Env{Abort: abort}, AbortWait: time.Millisecond})
	_, err := r.Run(ctx, Job{Options: o})
	if !errors.Is(err, run.ErrInterrupted) || !strings.Contains(err.Error(), "did not save within 1ms") {
		t.Errorf("error %v, want the abort's", err)
	}
}
