package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/golden"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
	"github.com/gobench/gobench/internal/run"
	"github.com/google/go-cmp/cmp"
)

// shardWorkload is the workload of the shard tests: the same for the
// shards and the unsharded run.
var shardWorkload = []string{"--tokenizer", "gobench-builtin", "--dataset-name", "random", "--random-input-len", "16",
	"--random-output-len", "8", "--num-prompts", "60", "--request-rate", "40", "--seed", "7", "--max-concurrency", "2",
	"--goodput", "ttft:60", "--disable-tqdm", "--request-id-prefix", "bench-shared-"}

// mainWith runs Main with env as the environment.
func mainWith(env map[string]string, args ...string) (stdout, stderr string, code int) {
	var out, errOut bytes.Buffer
	code = Main(context.Background(), args, Deps{Stdout: &out, Stderr: &errOut, Version: "test",
		Getenv: func(k string) string { return env[k] }})
	return out.String(), errOut.String(), code
}

// runShards runs n shards of the workload against base, each in its own
// goroutine through Main, starting together a moment ahead, and returns
// their result files.
func runShards(t *testing.T, base, dir string, n int) []string {
	t.Helper()
	return runShardsWith(t, base, dir, shardWorkload, make([]func() time.Time, n))
}

// runShardsWith runs a shard of workload per entry of clocks, each with
// that wall clock (nil: time.Now), and returns their result files.
func runShardsWith(t *testing.T, base, dir string, workload []string, clocks []func() time.Time) []string {
	t.Helper()
	n := len(clocks)
	// Two seconds ahead: the shards plan (dataset, tokenizer) before it,
	// and a loaded machine under -race must not make them late.
	at := time.Now().Add(2 * time.Second).UTC().Format(time.RFC3339Nano)
	files := make([]string, n)
	errs := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		files[i] = filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		args := append([]string{"serve", "--base-url", base}, workload...)
		args = append(args, "--num-shards", fmt.Sprint(n), "--shard-index", fmt.Sprint(i), "--start-at", at,
			"--save-result", "--save-detailed", "--result-filename", files[i])
		wg.Go(func() {
			var out, errOut bytes.Buffer
			if code := Main(context.Background(), args, Deps{Stdout: &out, Stderr: &errOut, Version: "test", Now: clocks[i]}); code != 0 {
				errs[i] = fmt.Sprintf("shard %d: exit %d: %s", i, code, errOut.String())
			}
		})
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Fatal(e)
		}
	}
	return files
}

// TestShardsMergeEqualsOneClient: three shards against one simulator,
// started together, merged: the union of their requests is exactly the
// unsharded plan (same seed), the merged lists are an unsharded run's
// (input lengths, output lengths, offsets), and every metric of the merged
// file is metrics.Calculate's over the merged records with the duration
// from the common start to the last end. analyze, compare and check take
// the merged file.
func TestShardsMergeEqualsOneClient(t *testing.T) {
	t.Parallel()
	srv, _ := simServer(t, 20*time.Millisecond, 5*time.Millisecond, 0)
	dir := t.TempDir()

	checkShardPlans(t)

	files := runShards(t, srv.URL, dir, 3)
	merged := filepath.Join(dir, "merged.json")
	out, errOut, code := runMain(t, append(append([]string{"merge"}, files...), "-o", merged)...)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"Merged 3 shards.", "Clock skew: the shards' starts spread over", "Maximum request concurrency:             6"} {
		if !strings.Contains(out, want) {
			t.Errorf("merge output lacks %q:\n%s", want, out)
		}
	}
	m := readOne(t, merged)
	checkMergedMetrics(t, m)
	for i := 1; i < 3; i++ {
		// One machine, one clock: where the server's Date headers bound
		// the offset, the bound holds zero (up to the anchors' read gaps).
		if low, high, _, note := shardBound(t, merged, i); note == nil && !(low-1 < 0 && 0 < high+1) {
			t.Errorf("shard %d − shard 0 bounded in (%.3f, %.3f) ms on one clock", i, low, high)
		}
	}

	single := filepath.Join(dir, "single.json")
	args := append(append([]string{"serve", "--base-url", srv.URL}, shardWorkload...), "--max-concurrency", "6",
		"--save-result", "--save-detailed", "--result-filename", single)
	if _, errOut, code := runMain(t, args...); code != 0 {
		t.Fatalf("unsharded run: exit %d: %s", code, errOut)
	}
	one := readOne(t, single)
	for _, k := range []string{resultkey.InputLens, resultkey.OutputLens, resultkey.ScheduledOffsets, resultkey.Errors,
		resultkey.NumPrompts, resultkey.Completed, resultkey.TotalInputTokens, resultkey.TotalOutputTokens, resultkey.MaxConcurrency} {
		a, _ := one.Raw(k)
		b, _ := m.Raw(k)
		if string(a) != string(b) {
			t.Errorf("%s: unsharded %s, merged %s", k, a, b)
		}
	}
	if !slices.Equal(keysOf(one), keysOf(m)) {
		t.Errorf("merged keys differ from an unsharded run's:\n%s", cmp.Diff(keysOf(one), keysOf(m)))
	}

	for _, args := range [][]string{
		{"analyze", merged},
		{"check", merged, "--threshold", "completed==60"},
		{"compare", single, merged},
	} {
		if _, errOut, code := runMain(t, args...); code != 0 {
			t.Errorf("gobench %s: exit %d: %s", strings.Join(args, " "), code, errOut)
		}
	}
	t.Run("mismatch", func(t *testing.T) { checkMergeRefusals(t, dir, files, single) })
}

// checkShardPlans: the union of three shards' dry runs is the unsharded
// plan, request for request.
func checkShardPlans(t *testing.T) {
	t.Helper()
	plan, errOut, code := runMain(t, append([]string{"serve", "--dry-run"}, shardWorkload...)...)
	if code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, errOut)
	}
	var union []string
	for i := range 3 {
		out, errOut, code := runMain(t, append([]string{"serve", "--dry-run", "--num-shards", "3", "--shard-index", fmt.Sprint(i)}, shardWorkload...)...)
		if code != 0 {
			t.Fatalf("shard %d dry run: exit %d: %s", i, code, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 20 || !strings.HasPrefix(lines[0], fmt.Sprintf(`{"index": %d,`, i)) {
			t.Fatalf("shard %d plans %d requests, first %s", i, len(lines), lines[0])
		}
		union = append(union, lines...)
	}
	index := func(line string) int {
		var j int
		fmt.Sscanf(line, `{"index": %d,`, &j)
		return j
	}
	slices.SortFunc(union, func(a, b string) int { return index(a) - index(b) })
	if diff := cmp.Diff(strings.Split(strings.TrimSpace(plan), "\n"), union); diff != "" {
		t.Fatalf("union of the shards' plans differs from the unsharded plan (-one +shards):\n%s", diff)
	}
}

// keysOf is run's keys without the gobench-only objects a merged or a
// sharded result adds.
func keysOf(r *resultfile.Run) []string {
	return slices.DeleteFunc(r.Keys(), func(k string) bool { return k == resultkey.GobenchMerge || k == resultkey.ServerView })
}

// readOne reads a result file holding one run.
func readOne(t *testing.T, path string) *resultfile.Run {
	t.Helper()
	r, err := resultfile.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// checkMergedMetrics: every figure of the merged file equals
// metrics.Calculate's over its records and its duration, written by the
// same writer, and the duration runs from the common start to the last
// end.
func checkMergedMetrics(t *testing.T, m *resultfile.Run) {
	t.Helper()
	d, err := m.Detailed()
	if err != nil {
		t.Fatal(err)
	}
	duration, _ := m.Number(resultkey.Duration)
	var lastEnd float64
	for _, o := range d.Outputs {
		lastEnd = max(lastEnd, o.StartTime+o.Latency)
		if o.StartTime < 0 {
			t.Errorf("a request starts at %v, before the merged start", o.StartTime)
		}
	}
	if duration < lastEnd {
		t.Errorf("duration %v ends before the last request (%v)", duration, lastEnd)
	}
	opts := run.DefaultOptions()
	cfg := metrics.Config{Goodput: map[string]float64{"ttft": 60}, PercentileMetrics: opts.PercentileMetricsOrDefault(),
		Percentiles: opts.Percentiles, MaxConcurrency: 6, RequestRate: 40, CountTokens: func(string) int { return 0 }}
	want := metrics.Calculate(d.Outputs, duration, cfg)
	if want.MaxConcurrentRequests < 2 {
		t.Errorf("peak concurrency %d: the shards' requests do not overlap on the merged timeline", want.MaxConcurrentRequests)
	}
	obj := report.ResultObject(&want, &report.Run{SaveDetailed: true})
	// The settings are the run's, not measured: an empty report.Run has
	// none of them.
	settings := []string{resultkey.Date, resultkey.EndpointType, resultkey.Backend, resultkey.ModelID, resultkey.TokenizerID,
		resultkey.NumPrompts, resultkey.Burstiness, resultkey.NumWarmups, resultkey.ScheduledOffsets, resultkey.EndReason}
	for _, k := range obj.Keys() {
		v, _ := obj.Get(k)
		if slices.Contains(settings, k) {
			continue
		}
		wantRaw, err := pyjson.AppendPython(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := m.Raw(k)
		if !bytes.Equal(bytes.TrimSpace(got), wantRaw) {
			t.Errorf("%s: merged %.80s, metrics.Calculate %.80s", k, got, wantRaw)
		}
	}
}

// checkMergeRefusals: shards that do not belong together are refused,
// naming what differs.
func checkMergeRefusals(t *testing.T, dir string, files []string, single string) {
	edit := func(name string, change func(o *pyjson.Object)) string {
		data, err := os.ReadFile(files[1])
		if err != nil {
			t.Fatal(err)
		}
		o, err := pyjson.DecodeObject(data)
		if err != nil {
			t.Fatal(err)
		}
		change(o)
		path := filepath.Join(dir, name)
		b, _ := pyjson.AppendPython(nil, o)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	otherSeed := edit("seed.json", func(o *pyjson.Object) {
		w, _ := o.Get(resultkey.GobenchWorkload)
		w.(*pyjson.Object).Set(resultkey.WorkloadSeed, 8)
	})
	noLists := edit("summary.json", func(o *pyjson.Object) {
		s, _ := o.Get(resultkey.GobenchShard)
		s.(*pyjson.Object).Delete(resultkey.ShardRequestIndices)
	})
	otherStart := edit("start.json", func(o *pyjson.Object) {
		s, _ := o.Get(resultkey.GobenchShard)
		s.(*pyjson.Object).Set(resultkey.ShardStartAt, "2026-01-01T00:00:00Z")
	})
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"missing", files[:2], "shards [2] of 3 are missing"},
		{"twice", []string{files[0], files[1], files[1]}, "are both shard 1"},
		{"seed", []string{files[0], otherSeed, files[2]}, "different gobench_workload"},
		{"start", []string{files[0], otherStart, files[2]}, "start_at"},
		{"not detailed", []string{files[0], noLists, files[2]}, "--save-detailed"},
		{"not a shard", []string{files[0], single, files[2]}, "not a shard's result"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runMain(t, append([]string{"merge"}, tc.files...)...)
			if code != int(exitcode.BadUsage) || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, want %d and %q in:\n%s", code, int(exitcode.BadUsage), tc.want, errOut)
			}
		})
	}
}

// TestStartAtRefused: a --start-at in the past, too far ahead or not an
// instant is a command-line error naming the flag, before anything is
// planned.
func TestStartAtRefused(t *testing.T) {
	t.Parallel()
	base := []string{"serve", "--base-url", "http://127.0.0.1:1", "--model", "m", "--tokenizer", "gobench-builtin", "--num-shards", "2", "--start-at"}
	for _, tc := range []struct{ at, want string }{
		{time.Now().Add(-time.Minute).UTC().Format(time.RFC3339), "in the past"},
		{fmt.Sprint(time.Now().Add(-time.Hour).Unix()), "in the past"},
		{time.Now().Add(25 * time.Hour).UTC().Format(time.RFC3339), "more than the 24h0m0s a run waits"},
		{"tomorrow", "neither an RFC 3339 instant"},
	} {
		_, errOut, code := runMain(t, append(base, tc.at)...)
		if code != int(exitcode.BadUsage) || !strings.Contains(errOut, "argument --start-at:") || !strings.Contains(errOut, tc.want) {
			t.Errorf("--start-at %s: exit %d, want %d and %q in:\n%s", tc.at, code, int(exitcode.BadUsage), tc.want, errOut)
		}
	}
	if _, errOut, code := runMain(t, "serve", "--base-url", "http://127.0.0.1:1", "--model", "m", "--num-shards", "2"); code != int(exitcode.BadUsage) || !strings.Contains(errOut, "needs a common start instant") {
		t.Errorf("--num-shards without --start-at: exit %d: %s", code, errOut)
	}
}

// TestShardIndexFromJobIndex: without --shard-index, a Kubernetes Indexed
// Job's JOB_COMPLETION_INDEX names the shard; the flag wins over it, and
// a value that is not an index is refused.
func TestShardIndexFromJobIndex(t *testing.T) {
	t.Parallel()
	args := []string{"serve", "--dry-run", "--model", "m", "--tokenizer", "gobench-builtin", "--num-prompts", "9", "--num-shards", "3"}
	first := func(out string) string { return strings.SplitN(out, ",", 2)[0] }
	for _, tc := range []struct {
		env   string
		extra []string
		want  string
	}{
		{"2", nil, `{"index": 2`},
		{"2", []string{"--shard-index", "1"}, `{"index": 1`},
		{"", nil, `{"index": 0`},
	} {
		out, errOut, code := mainWith(map[string]string{"JOB_COMPLETION_INDEX": tc.env}, append(args, tc.extra...)...)
		if code != 0 || first(out) != tc.want || strings.Count(out, "\n") != 3 {
			t.Errorf("JOB_COMPLETION_INDEX=%q %v: exit %d, %q (want %s, 3 lines): %s", tc.env, tc.extra, code, first(out), tc.want, errOut)
		}
	}
	_, errOut, code := mainWith(map[string]string{"JOB_COMPLETION_INDEX": "x"}, args...)
	if code != int(exitcode.BadUsage) || !strings.Contains(errOut, "$JOB_COMPLETION_INDEX") {
		t.Errorf("JOB_COMPLETION_INDEX=x: exit %d: %s", code, errOut)
	}
	if _, errOut, code := mainWith(map[string]string{"JOB_COMPLETION_INDEX": "5"}, args[:len(args)-2]...); code != 0 {
		t.Errorf("JOB_COMPLETION_INDEX=5 without --num-shards: exit %d: %s", code, errOut)
	}
	_, errOut, code = mainWith(map[string]string{"JOB_COMPLETION_INDEX": "3"}, args...)
	if code != int(exitcode.BadUsage) || !strings.Contains(errOut, "argument --shard-index: 3 is not in [0, 3)") {
		t.Errorf("JOB_COMPLETION_INDEX=3: exit %d: %s", code, errOut)
	}
}

// TestMergeHelpGolden: merge's help, as testdata holds it.
func TestMergeHelpGolden(t *testing.T) {
	t.Parallel()
	out, errOut, code := runMain(t, "merge", "--help")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden.Check(t, []byte(out))
}

// TestKubernetesJobArgs: the arguments of deploy/kubernetes/job.yaml are a
// command line serve accepts (as a dry run, its variables filled in, the
// shard index from JOB_COMPLETION_INDEX as in the pod).
func TestKubernetesJobArgs(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "deploy", "kubernetes", "job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	in := false
	for line := range strings.Lines(string(data)) {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "args:":
			in = true
		case in && strings.HasPrefix(trimmed, "- "):
			args = append(args, strings.TrimPrefix(trimmed, "- "))
		case in:
			in = false
		}
	}
	if len(args) < 5 || args[0] != "serve" {
		t.Fatalf("no serve arguments in job.yaml: %v", args)
	}
	vars := strings.NewReplacer("$(START_AT)", time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
		"$(BASE_URL)", "http://127.0.0.1:1", "$(SHARD)", "2")
	for i, a := range args {
		args[i] = vars.Replace(a)
	}
	args = append(args, "--dry-run", "--model", "m", "--tokenizer", "gobench-builtin", "--num-prompts", "9")
	out, errOut, code := mainWith(map[string]string{"JOB_COMPLETION_INDEX": "2"}, args...)
	if code != 0 || !strings.HasPrefix(out, `{"index": 2,`) {
		t.Errorf("gobench %s: exit %d: %.200s %s", strings.Join(args, " "), code, out, errOut)
	}
}
