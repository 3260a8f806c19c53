package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/golden"
	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/tokenizer"
	"github.com/google/go-cmp/cmp"
)

// sweepSim serves the simulator; completions counts the completion
// requests, and onCompletion (if set) is called with the count.
func sweepSim(t *testing.T, onCompletion func(n int64)) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	s, err := sim.NewServer(sim.Config{Tokenizer: tokenizer.Builtin(), Root: tokenizer.BuiltinName})
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/completions" {
			c := n.Add(1)
			if onCompletion != nil {
				onCompletion(c)
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// sweepArgs is a sweep of two bench combinations (one named) against url,
// 5 prompts each, one run, into dir/exp.
func sweepArgs(t *testing.T, url, dir string, extra ...string) []string {
	t.Helper()
	bench := filepath.Join(dir, "bench.json")
	if err := os.WriteFile(bench, []byte(`[{"request_rate": 50}, {"_benchmark_name": "burst", "request_rate": "inf"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	return append([]string{"sweep", "serve", "--bench-cmd", "vllm bench serve --base-url " + url +
		" --num-prompts 5 --random-input-len 16 --random-output-len 4 --ready-check-timeout-sec 0",
		"--bench-params", bench, "--num-runs", "1", "-o", dir, "-e", "exp"}, extra...)
}

// plotRuns reads an experiment as vLLM's `sweep plot` does
// (vllm/benchmarks/sweep/plot.py@11dfa3169 plot()): every **/summary.json
// under the folder, each a JSON list of run objects, all concatenated.
func plotRuns(t *testing.T, dir string) []map[string]any {
	t.Helper()
	var runs []map[string]any
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "summary.json" {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var list []map[string]any
		if err := json.Unmarshal(b, &list); err != nil {
			t.Errorf("%s is not a JSON list of objects: %v", path, err)
		}
		runs = append(runs, list...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// listing is the files under dir, relative, sorted.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			out = append(out, rel)
		}
		return err
	})
	slices.Sort(out)
	return out
}

// TestSweepEndToEnd runs `gobench sweep serve` through Main against the
// simulator (already running: no --serve-cmd) and reads the experiment
// back the way vLLM's plot reads it: the folders and files vLLM names,
// summary.json lists whose runs carry plot's default axes
// (request_throughput, p99_e2el_ms: serve passes --percentile-metrics
// ttft,tpot,itl,e2el as vLLM's sweep does), run_number and the swept
// parameters; then vLLM's summary.csv and gobench's table.
func TestSweepEndToEnd(t *testing.T) {
	t.Parallel()
	srv, n := sweepSim(t, nil)
	dir := t.TempDir()
	out, errOut, code := runMain(t, sweepArgs(t, srv.URL, dir)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	exp := filepath.Join(dir, "exp")
	want := []string{"BENCH--burst/run=0.json", "BENCH--burst/summary.json", "BENCH--request_rate=50/run=0.json",
		"BENCH--request_rate=50/summary.json", "summary.csv", "sweep_table.csv", "sweep_table.json"}
	if diff := cmp.Diff(want, listing(t, exp)); diff != "" {
		t.Errorf("layout (-want +got):\n%s", diff)
	}
	runs := plotRuns(t, exp)
	if len(runs) != 2 || n.Load() != 10 {
		t.Fatalf("%d runs, %d requests; want 2 and 10", len(runs), n.Load())
	}
	for _, r := range runs {
		for _, k := range []string{"request_throughput", "p99_e2el_ms", "p99_ttft_ms", "median_itl_ms", "run_number", "request_rate", "completed"} {
			if _, ok := r[k]; !ok {
				t.Errorf("a run lacks %q, which plot's --var-x/--var-y/--curve-by may name", k)
			}
		}
	}
	if runs[0]["_benchmark_name"] != "burst" && runs[1]["_benchmark_name"] != "burst" {
		t.Errorf("no run carries _benchmark_name burst")
	}
	csv, _ := os.ReadFile(filepath.Join(exp, "summary.csv"))
	if !strings.HasPrefix(string(csv), ",date,") || strings.Count(string(csv), "\n") != 3 {
		t.Errorf("summary.csv:\n%s", csv)
	}
	if !strings.Contains(out, "Sweep summary") || !strings.Contains(out, "burst run=0") || !strings.Contains(out, "request_rate=50 run=0") {
		t.Errorf("stdout:\n%s", out)
	}
}

// TestSweepResume: an existing experiment is refused without --resume;
// with it, only the runs without a result file run again.
func TestSweepResume(t *testing.T) {
	t.Parallel()
	srv, n := sweepSim(t, nil)
	dir := t.TempDir()
	if _, errOut, code := runMain(t, sweepArgs(t, srv.URL, dir)...); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	kept := filepath.Join(dir, "exp", "BENCH--request_rate=50", "run=0.json")
	before, _ := os.ReadFile(kept)
	if _, errOut, code := runMain(t, sweepArgs(t, srv.URL, dir)...); code != 2 || !strings.Contains(errOut, "--resume") {
		t.Errorf("again without --resume: exit %d, want 2 and a hint\n%s", code, errOut)
	}
	if err := os.RemoveAll(filepath.Join(dir, "exp", "BENCH--burst")); err != nil {
		t.Fatal(err)
	}
	n.Store(0)
	if _, errOut, code := runMain(t, sweepArgs(t, srv.URL, dir, "--resume")...); code != 0 {
		t.Fatalf("--resume: exit %d\n%s", code, errOut)
	}
	after, _ := os.ReadFile(kept)
	if n.Load() != 5 || !bytes.Equal(before, after) {
		t.Errorf("--resume sent %d requests (want 5: the missing run only); the kept run changed: %v", n.Load(), !bytes.Equal(before, after))
	}
	if len(plotRuns(t, filepath.Join(dir, "exp"))) != 2 {
		t.Error("the resumed experiment does not hold both runs")
	}
}

// TestSweepInterrupted: an interrupt during the second combination stops
// the sweep with exit status 130; the first combination's results stay,
// the interrupted run leaves none, and --resume completes the experiment.
func TestSweepInterrupted(t *testing.T) {
	t.Parallel()
	sigs := make(chan os.Signal, 1)
	srv, _ := sweepSim(t, func(n int64) {
		if n == 7 { // the second request of the second combination
			sigs <- syscall.SIGINT
		}
	})
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), sweepArgs(t, srv.URL, dir), Deps{Stdout: &out, Stderr: &errOut, Signals: sigs})
	if code != int(exitcode.Interrupted) || !strings.Contains(errOut.String(), "--resume") {
		t.Fatalf("exit %d, want %d and a pointer to --resume\n%s", code, exitcode.Interrupted, &errOut)
	}
	exp := filepath.Join(dir, "exp")
	want := []string{"BENCH--request_rate=50/run=0.json", "BENCH--request_rate=50/summary.json"}
	if diff := cmp.Diff(want, listing(t, exp)); diff != "" {
		t.Errorf("after the interrupt (-want +got):\n%s", diff)
	}
	if _, errOut, code := runMain(t, sweepArgs(t, srv.URL, dir, "--resume")...); code != 0 {
		t.Fatalf("--resume: exit %d\n%s", code, errOut)
	}
	if len(plotRuns(t, exp)) != 2 {
		t.Error("the resumed experiment does not hold both runs")
	}
}

// TestSweepFailingServer: a server command that exits before it is ready
// fails the sweep with its exit status, the end of its output and the
// path of all of it, which is kept. Its address (from --port, which sh
// passes to the script as $1 and $2) is one where nothing listens, so
// only the exit can end the ready wait.
func TestSweepFailingServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, errOut, code := runMain(t, "sweep", "serve", "--serve-cmd", `/bin/sh -c "echo boom >&2; exit 3" sh --port 1`,
		"--bench-cmd", "gobench serve --port 1", "-o", dir, "-e", "exp")
	log := filepath.Join(dir, "exp", "SERVE-default-server.log")
	if code != 1 || !strings.Contains(errOut, "exit status 3") || !strings.Contains(errOut, "  boom") || !strings.Contains(errOut, log) {
		t.Errorf("exit %d, want 1 naming the status, the output and %s\n%s", code, log, errOut)
	}
	if b, err := os.ReadFile(log); err != nil || !strings.Contains(string(b), "boom") {
		t.Errorf("server output %q (%v), want boom", b, err)
	}
}

// TestSweepDryRun lists the servers and benchmark commands a sweep would
// run, with vLLM's markers, and creates nothing.
func TestSweepDryRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	serve := filepath.Join(dir, "serve.json")
	if err := os.WriteFile(serve, []byte(`{"small": {"max_num_seqs": 8}, "big": {"max_num_seqs": 64, "enable_prefix_caching": false}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append(sweepArgs(t, "http://127.0.0.1:8000", dir, "--dry-run", "--serve-params", serve),
		"--serve-cmd", "gobench sim --port 8000")
	out, errOut, code := runMain(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "exp")); err == nil {
		t.Error("a dry run created the experiment folder")
	}
	golden.Check(t, []byte(strings.ReplaceAll(out, dir, "DIR")))
}

// TestSweepFlagErrors: mistakes are usage errors naming the flag.
func TestSweepFlagErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	_ = os.WriteFile(bad, []byte(`[{"_benchmark_name": "a"}, {"_benchmark_name": "a"}]`), 0o644)
	unknown := filepath.Join(dir, "unknown.json")
	_ = os.WriteFile(unknown, []byte(`[{"request_rate": 1}, {"num_promptz": 5}]`), 0o644)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "serve"}, "--bench-cmd"},
		{[]string{"sweep", "serve", "--bench-cmd", "curl http://x"}, "--bench-cmd must be a gobench serve command line"},
		{[]string{"sweep", "serve", "--bench-cmd", "gobench serve 'x"}, "argument --bench-cmd: no closing quotation"},
		{[]string{"sweep", "serve", "--bench-cmd", "gobench serve", "--bench-params", bad}, "duplicate _benchmark_name"},
		{[]string{"sweep", "serve", "--bench-cmd", "gobench serve", "--bench-params", unknown}, `bench parameter "num_promptz": gobench serve has no flag`},
		{[]string{"sweep", "serve", "--bench-cmd", "gobench serve", "--num-runs", "0"}, "--num-runs should be at least 1"},
		{[]string{"sweep", "serve", "--bench-cmd", "gobench serve", "-o", dir, "-e", "none", "--resume"}, "cannot resume"},
		{[]string{"sweep", "serve_workload", "--bench-cmd", "gobench serve", "--workload-iters", "1"}, "--workload-iters should be at least 2"},
	} {
		_, errOut, code := runMain(t, tt.args...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%q: exit %d, want 2 and %q\n%s", tt.args, code, tt.want, errOut)
		}
	}
}

// TestSweepHelpGolden: the help of the group and of its commands.
func TestSweepHelpGolden(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"sweep", "--help"}, {"sweep", "serve", "--help"}, {"sweep", "serve_workload", "--help"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			out, errOut, code := runMain(t, args...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden.Check(t, []byte(out))
		})
	}
}

// TestSweepServeWorkload: `sweep serve_workload` runs the serial (max
// concurrency 1) and the batch (max concurrency = the prompts) levels in
// vLLM's WL- folders, then levels in between, each read back as plot reads
// them.
func TestSweepServeWorkload(t *testing.T) {
	t.Parallel()
	srv, _ := sweepSim(t, nil)
	dir := t.TempDir()
	out, errOut, code := runMain(t, "sweep", "serve_workload", "--bench-cmd", "gobench serve --base-url "+srv.URL+
		" --num-prompts 8 --random-input-len 16 --random-output-len 4 --ready-check-timeout-sec 0",
		"--workload-var", "max_concurrency", "--workload-iters", "3", "--num-runs", "1", "-o", dir, "-e", "wl")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	exp := filepath.Join(dir, "wl")
	files := listing(t, exp)
	for _, want := range []string{"BENCH--max_concurrency=1-WL--max_concurrency=1/summary.json",
		"BENCH--max_concurrency=8-WL--max_concurrency=8/summary.json"} {
		if !slices.Contains(files, want) {
			t.Errorf("no %s in %q", want, files)
		}
	}
	runs := plotRuns(t, exp)
	if len(runs) < 2 || len(runs) > 3 {
		t.Errorf("%d runs, want the serial, the batch and at most one level between", len(runs))
	}
	for _, r := range runs {
		if _, ok := r["max_concurrency"]; !ok {
			t.Errorf("a run lacks the explored max_concurrency: %v", r["run_number"])
		}
	}
	if !strings.Contains(errOut, "Serial inference: max_concurrency=") || !strings.Contains(errOut, "[WL END]") || !strings.Contains(out, "Sweep summary") {
		t.Errorf("stderr:\n%s\nstdout:\n%s", errOut, out)
	}
}
