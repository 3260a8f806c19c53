package run

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/pyjson"
)

// TestFailingStageKeepsResult: a panic in any optional stage at the end of
// a run (the server view, gobench's figures, the speculative-decoding
// figures, the printed block, the profiler's stop, the writing of the
// optional parts) or an error printing the block costs that stage only:
// the result is still saved, without the part the stage adds, and one
// warning names what was dropped and why. A panic in the server view once
// ended the run with exit status 2 and no result file.
func TestFailingStageKeepsResult(t *testing.T) {
	t.Parallel()
	srv := startSim(t, time.Millisecond, time.Millisecond)
	for _, tc := range []struct {
		name, stage string
		// renderErr makes the printed block fail with an error instead.
		renderErr bool
		// gone are the result's keys the failure drops.
		gone []string
		// wantErr is a part of the run's error; "" for none.
		wantErr string
	}{
		{name: "server counters", stage: stageCounters, gone: []string{"server_view"}},
		{name: "server view", stage: stageView, gone: []string{"server_view"}},
		{name: "gobench figures", stage: stageFigures, gone: []string{"gobench_steady_state", "gobench_client"}},
		{name: "spec decode", stage: stageSpec},
		{name: "per turn", stage: stageTurns},
		{name: "profiler stop", stage: stageProfile},
		{name: "optional parts", stage: stageParts, gone: []string{"server_view", "gobench_steady_state", "gobench_client"}},
		{name: "block panics", stage: stageBlock, wantErr: "print the result block: panic: boom"},
		{name: "block fails", renderErr: true, wantErr: "print the result block: stdout is gone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			o := baseOptions(srv.URL)
			o.NumPrompts, o.Dataset.NumPrompts, o.Profile = 4, 4, true
			o.SaveResult, o.SaveDetailed, o.ResultDir, o.ResultFilename = true, true, dir, "r.json"
			var b buffers
			env := b.env()
			if tc.renderErr {
				env.Render = func(io.Writer, Block) error { return errors.New("stdout is gone") }
			}
			p, err := NewPlan(context.Background(), o, env)
			if err != nil {
				t.Fatal(err)
			}
			p.failAt = func(stage string) {
				if stage == tc.stage {
					panic("boom")
				}
			}
			res, err := p.Execute(context.Background(), env)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("err = %v, want %q", err, tc.wantErr)
			}
			if res == nil || res.File == "" {
				t.Fatalf("no result file\n%s", b.err.String())
			}
			saved := readResult(t, filepath.Join(dir, "r.json"))
			if saved["completed"] != 4.0 {
				t.Errorf("completed %v, want 4", saved["completed"])
			}
			for _, k := range []string{"server_view", "gobench_steady_state", "gobench_client"} {
				_, has := saved[k]
				if dropped := slices.Contains(tc.gone, k); has == dropped {
					t.Errorf("%s present %v, want %v", k, has, !dropped)
				}
			}
			warning := "WARNING: " + tc.stage + " failed and is left out: panic: boom"
			if tc.stage == stageParts {
				warning = "WARNING: " + tc.stage + " are left out of the result: panic: boom"
			}
			if n := strings.Count(b.err.String(), warning); tc.stage != stageBlock && tc.stage != "" && n != 1 {
				t.Errorf("%d warnings %q in:\n%s", n, warning, b.err.String())
			}
		})
	}
}

// TestEncodes: a part the result file's writer refuses is an error of its
// stage, not of the save.
func TestEncodes(t *testing.T) {
	t.Parallel()
	ok := pyjson.NewObject()
	ok.Set("nan", math.NaN()) // Python's json.dump writes NaN
	bad := pyjson.NewObject()
	bad.Set("chan", make(chan int))
	for _, tc := range []struct {
		part *pyjson.Object
		ok   bool
	}{{nil, true}, {ok, true}, {bad, false}} {
		if err := encodes(tc.part); (err == nil) != tc.ok {
			t.Errorf("encodes(%v) = %v", tc.part, err)
		}
	}
}

// TestSaveFailureKeepsCopy: a save that fails after the run (here the
// result directory vanished during it, as a disk that filled up would
// fail it) keeps the result in the temporary directory, says where, and
// the run's error names both; a copy never replaces another file.
func TestSaveFailureKeepsCopy(t *testing.T) {
	srv := startSim(t, time.Millisecond, time.Millisecond)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if err := os.WriteFile(filepath.Join(tmp, "r.json"), []byte("another file"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "results")
	o := baseOptions(srv.URL)
	o.NumPrompts, o.Dataset.NumPrompts = 3, 3
	o.SaveResult, o.ResultDir, o.ResultFilename = true, dir, "r.json"
	var b buffers
	env := b.env()
	env.Transport = func(maxConns int, insecure bool) http.RoundTripper {
		base := NewTransport(maxConns, insecure)
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			if strings.HasSuffix(r.URL.Path, "/completions") {
				_ = os.RemoveAll(dir)
			}
			return base.RoundTrip(r)
		})
	}
	res, err := Serve(context.Background(), o, env)
	want := filepath.Join(tmp, "r-1.json")
	if err == nil || !strings.Contains(err.Error(), "the result was saved to "+want+" instead") {
		t.Fatalf("err = %v", err)
	}
	if res == nil || res.File != want {
		t.Fatalf("result file %v, want %s", res, want)
	}
	if saved := readResult(t, want); saved["completed"] != 3.0 {
		t.Errorf("the copy holds %v", saved)
	}
	if b, _ := os.ReadFile(filepath.Join(tmp, "r.json")); string(b) != "another file" {
		t.Errorf("the file already there became %q", b)
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
