package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/gobench/gobench/internal/atomicfile"
	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/readlimit"
)

// runComb runs one combination NumRuns times into dir (run_comb): after an
// unmeasured warm-up run when asked, run=0.json, run=1.json, ..., then
// summary.json with the list of the runs. A combination whose linked
// variables differ is skipped (nil).
func (s *sweeper) runComb(ctx context.Context, sess *session, sc, bc Comb, dir string) ([]Point, error) {
	if !s.linked(sc, bc) {
		return nil, nil
	}
	if n := s.o.WarmupNumPrompts; n > 0 {
		if _, err := s.runOne(ctx, sess, sc, bc.With("num_prompts", n), -1, filepath.Join(dir, "warmup.json")); err != nil {
			return nil, err
		}
	}
	var data []Point
	for run := range s.o.NumRuns {
		d, err := s.runOne(ctx, sess, sc, bc, run, runPath(dir, run))
		if err != nil {
			return nil, err
		}
		if d != nil {
			data = append(data, Point{Label: runLabel(sc, bc, run), Result: d})
		}
	}
	if s.o.DryRun {
		return nil, nil
	}
	if len(data) == 0 {
		fmt.Fprintln(s.log, "[NO SUCCESSFUL MEASURED RUNS] leaving combination retryable")
		return nil, nil
	}
	list := make([]any, len(data))
	for i, d := range data {
		list[i] = d.Result
	}
	return data, writeJSON(summaryPath(dir), list, 4)
}

// linked reports whether the linked variables of sc and bc agree
// (_comb_is_valid).
func (s *sweeper) linked(sc, bc Comb) bool {
	for _, lv := range s.o.LinkVars {
		a, okA := sc.Get(lv[0])
		b, okB := bc.Get(lv[1])
		if !okA || !okB || pyfmt.Repr(a) != pyfmt.Repr(b) {
			return false
		}
	}
	return true
}

// runOne is one run; with ContinueOnError a failure is recorded in
// run=N.failure.json and skipped (nil, nil), unless the sweep was
// interrupted.
func (s *sweeper) runOne(ctx context.Context, sess *session, sc, bc Comb, run int, path string) (*pyjson.Object, error) {
	d, err := s.runBenchmark(ctx, sess, sc, bc, run, path)
	if err == nil || !s.o.ContinueOnError || ctx.Err() != nil {
		return d, err
	}
	failure := pyjson.NewObject()
	failure.Set("run_number", run)
	failure.Set("error_type", errorType(err))
	failure.Set("error", err.Error())
	failure.Set("serve_overrides", sc.o)
	failure.Set("bench_overrides", bc.o)
	fpath := path[:len(path)-len(filepath.Ext(path))] + ".failure.json"
	if werr := writeJSON(fpath, failure, 2); werr != nil {
		return nil, errors.Join(err, werr)
	}
	fmt.Fprintf(s.log, "[FAILED BENCHMARK] run=%d: %v\nFailure details: %s\n", run, err, fpath)
	if sess != nil {
		_ = s.afterBench(ctx, sess) // as vLLM: suppressed
	}
	return nil, nil
}

// runBenchmark is vLLM's run_benchmark: the bench command with the
// combination applied and the result saved as path; a result already at
// path is read back instead (--resume). The file is the run's result with
// run_number and the combinations' parameters added.
func (s *sweeper) runBenchmark(ctx context.Context, sess *session, sc, bc Comb, run int, path string) (*pyjson.Object, error) {
	params := benchParams(bc, path)
	index := s.runs
	s.runs++
	fmt.Fprintf(s.log, "[BEGIN BENCHMARK]\nBenchmark overrides: %s\nRun Number: %d\nBenchmark command: %s\nOutput file: %s\n",
		pyfmt.Repr(bc.o), run, pyfmt.Repr(anyList(params.Apply(s.o.BenchCmd))), path)
	if exists(path) {
		fmt.Fprintln(s.log, "Found existing results.\n[SKIPPED BENCHMARK]")
		d, err := readRun(path)
		if err != nil {
			return nil, err
		}
		return withParams(d, sc, bc, run), nil
	}
	if sess == nil && !s.o.DryRun {
		return nil, fmt.Errorf("cannot find results at %s", path)
	}
	if s.o.DryRun {
		fmt.Fprintln(s.log, "[END BENCHMARK]")
		return nil, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("combination folder: %w", err)
	}
	resets := len(s.o.AfterBenchCmd) > 0 || sess.srv != nil
	err := s.bench(ctx, sess, Bench{Params: params, Stdout: s.showStdout(), Index: index, ResetsCaches: resets})
	if ctx.Err() != nil {
		// Cut short by the interrupt, the run saved what it measured (and
		// may even have succeeded): a partial run is no result, and the
		// sweep ends as interrupted whatever the run's own status.
		err = fmt.Errorf("interrupted: %w", ctx.Err())
	}
	if err != nil {
		// An interrupted or failed run may have saved what it measured:
		// it is no result of this point, and --resume must run it again.
		_ = os.Remove(path)
		return nil, fmt.Errorf("benchmark run %d of %s: %w", run, filepath.Dir(path), err)
	}
	if err := s.afterBench(ctx, sess); err != nil {
		return nil, err
	}
	d, err := readRun(path)
	if err != nil {
		return nil, err
	}
	d = withParams(d, sc, bc, run)
	if err := writeJSON(path, d, 4); err != nil {
		return nil, err
	}
	fmt.Fprintln(s.log, "[END BENCHMARK]")
	return d, nil
}

// benchParams are a run's parameters: the bench combination's, then what
// vLLM's sweep adds to every benchmark command (the four percentile
// metrics that plot reads, and the result file at path).
func benchParams(bc Comb, path string) Comb {
	return bc.With("percentile_metrics", "ttft,tpot,itl,e2el").With("save_result", true).
		With("result_dir", filepath.Dir(path)).With("result_filename", filepath.Base(path))
}

// bench carries out one benchmark run against the session's server: a
// server that exited before the run fails it at once, one that exits
// during the run cancels it, and either way the error is the server's
// exit and the end of its output.
func (s *sweeper) bench(ctx context.Context, sess *session, b Bench) error {
	srv := sess.srv
	if srv == nil {
		return s.env.Run(ctx, b)
	}
	if srv.hasExited() {
		return srv.exitError("before the benchmark")
	}
	bctx, release := srv.watch(ctx)
	defer release()
	err := s.env.Run(bctx, b)
	if srv.hasExited() {
		return srv.exitError("during the benchmark")
	}
	return err
}

// withParams is vLLM's _update_run_data: run_number, then the serve and
// the bench combination's keys (their _benchmark_name included).
func withParams(d *pyjson.Object, sc, bc Comb, run int) *pyjson.Object {
	d.Set("run_number", run)
	d.Update(sc.o)
	d.Update(bc.o)
	return d
}

// showStdout is where the runs' and commands' standard output goes.
func (s *sweeper) showStdout() io.Writer {
	if s.o.ShowStdout {
		return s.env.Stderr
	}
	return io.Discard
}

// afterBench runs --after-bench-cmd, else resets the started server's
// caches (ServerProcess.after_bench); without --serve-cmd there is nothing
// to reset.
func (s *sweeper) afterBench(ctx context.Context, sess *session) error {
	if len(s.o.AfterBenchCmd) > 0 {
		cmd := exec.CommandContext(ctx, s.o.AfterBenchCmd[0], s.o.AfterBenchCmd[1:]...)
		cmd.Stdout, cmd.Stderr = s.showStdout(), s.env.Stderr
		cmd.Env = append(cmd.Environ(), "VLLM_SERVER_DEV_MODE=1")
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("--after-bench-cmd %q: %w", s.o.AfterBenchCmd[0], err)
		}
		return nil
	}
	if sess == nil || sess.srv == nil {
		return nil
	}
	return sess.srv.resetCaches(ctx)
}

// maxRunBytes bounds a run file read back (a detailed one is large).
const maxRunBytes = 2 << 30

// readRun reads a run file.
func readRun(path string) (*pyjson.Object, error) {
	data, err := readlimit.JSONObject(path, maxRunBytes)
	if err != nil {
		return nil, fmt.Errorf("read the run: %w", err)
	}
	o, err := pyjson.DecodeFileObject(data)
	if err != nil {
		return nil, fmt.Errorf("read the run %s: %w", path, err)
	}
	return o, nil
}

// writeFile replaces path with data atomically.
func writeFile(path string, data []byte) error {
	p, err := atomicfile.Prepare(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		return err
	}
	return p.Replace(path, data)
}
