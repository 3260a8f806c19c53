package runset

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultfile"
)

func TestScheduleSeed(t *testing.T) {
	for _, c := range []struct {
		seed int64
		k    int
		same bool
		want int64
	}{
		{0, 1, false, 0}, {0, 2, false, 1}, {7, 3, false, 9}, {7, 3, true, 7},
		{math.MaxUint32, 2, false, 0}, // wraps into [0, 2**32)
	} {
		if got := ScheduleSeed(c.seed, c.k, c.same); got != c.want {
			t.Errorf("ScheduleSeed(%d, %d, %v) = %d, want %d", c.seed, c.k, c.same, got, c.want)
		}
	}
}

// result is a minimal result file's object.
func result(throughput float64, failed int) *pyjson.Object {
	o := pyjson.NewObject()
	o.Set("date", "20261201-000000")
	o.Set("duration", 2.0)
	o.Set("completed", 10)
	o.Set("failed", failed)
	o.Set("request_throughput", throughput)
	return o
}

// writeRun saves a result at dir/name and returns it as read.
func writeRun(t *testing.T, dir, name string, o *pyjson.Object) *resultfile.Run {
	t.Helper()
	b, err := pyjson.AppendPython(nil, o)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := resultfile.FromObject(path, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSaveRead writes a set of three runs (the third interrupted) and
// reads it back: run files relative to the set file, statistics over the
// completed runs only, no spread as null.
func TestSaveRead(t *testing.T) {
	dir := t.TempDir()
	s := &Set{NumRuns: 3, Seed: 4, Confidence: DefaultConfidence, EndReason: Interrupted}
	for k, v := range []float64{10, 12, 3} {
		name := "r-run" + string(rune('1'+k)) + ".json"
		end := Completed
		if k == 2 {
			end = Interrupted
		}
		s.Runs = append(s.Runs, Run{Number: k + 1, File: filepath.Join(dir, name), ScheduleSeed: ScheduleSeed(4, k+1, false),
			EndReason: end, Result: writeRun(t, dir, name, result(v, 0))})
	}
	s.Summarize()
	path := filepath.Join(dir, "r-set.json")
	if err := s.Save(path); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	for _, want := range []string{`"completed_runs": 2`, `"file": "r-run1.json"`, `"schedule_seed": 6`,
		`"request_throughput": {"n": 2, "mean": 11.0, "std": 1.4142135623730951`, `"failed": {"n": 2, "mean": 0.0, "std": 0.0, "min": 0.0, "max": 0.0, "cv": null`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("set file lacks %s:\n%s", want, b)
		}
	}
	got, err := Read(path, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Runs) != 3 || len(got.Complete()) != 2 || got.EndReason != Interrupted || got.Seed != 4 {
		t.Errorf("read back: %d runs, %d complete, %s, seed %d", len(got.Runs), len(got.Complete()), got.EndReason, got.Seed)
	}
	v, ok := got.Values("request_throughput")
	if !ok || len(v) != 2 || v[0] != 10 || v[1] != 12 {
		t.Errorf("Values = %v, %v", v, ok)
	}
	// A result file is no set.
	if _, err := Read(filepath.Join(dir, "r-run1.json"), io.Discard); !errors.Is(err, ErrNotSet) {
		t.Errorf("a result read as a set: %v, want ErrNotSet", err)
	}
}

// TestOneRun: a set of one completed run has no spread (null in the
// file, "-" in the table).
func TestOneRun(t *testing.T) {
	dir := t.TempDir()
	s := &Set{NumRuns: 2, Confidence: DefaultConfidence, EndReason: Interrupted,
		Runs: []Run{{Number: 1, File: filepath.Join(dir, "a-run1.json"), EndReason: Completed, Result: writeRun(t, dir, "a-run1.json", result(5, 1))}}}
	s.Summarize()
	var b strings.Builder
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Repeated runs: 1 of 2", "request_throughput        5    -        5        5   -                   -", "one completed run: no spread"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := s.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if want := "| request_throughput | 5 | - | 5 | 5 | - | - |"; !strings.Contains(b.String(), want) {
		t.Errorf("Markdown lacks %q:\n%s", want, b.String())
	}
}
