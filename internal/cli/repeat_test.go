package cli

import (
	"bufio"
	"encoding/json"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/gobench/gobench/internal/golden"
)

// readJSON reads a JSON object file.
func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// repeatArgs are a small run against the simulator.
var repeatArgs = []string{"serve", "--sim", "--sim-ttft", "0.002", "--sim-itl", "0.001", "--disable-tqdm", "--no-server-metrics", "--model", "m",
	"--num-prompts", "12", "--request-rate", "200", "--random-input-len", "8", "--random-output-len", "4", "--seed", "7"}

// TestNumRunsAgainstSim runs `serve --sim --num-runs 3` through cli.Main:
// three run files and the set file, the same prompts in every run, run
// k's arrivals those of a dry run with --seed 7+k-1, and the set's
// statistics computed from the runs' files by hand.
func TestNumRunsAgainstSim(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stdout, stderr, code := runMain(t, append(slices.Clone(repeatArgs), "--num-runs", "3", "--save-detailed",
		"--result-dir", dir, "--result-filename", "base.json")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "Repeated runs: 3 of 3") || !strings.Contains(stdout, "95% CI of the mean") {
		t.Errorf("stdout has no table of the set:\n%s", stdout)
	}
	var runs []map[string]any
	for _, name := range []string{"base-run1.json", "base-run2.json", "base-run3.json"} {
		runs = append(runs, readJSON(t, filepath.Join(dir, name)))
	}
	set := readJSON(t, filepath.Join(dir, "base-set.json"))["gobench_run_set"].(map[string]any)
	if set["num_runs"] != 3.0 || set["completed_runs"] != 3.0 || set["end_reason"] != "completed" || set["same_seed"] != false {
		t.Errorf("set %v", set)
	}
	for k, r := range set["runs"].([]any) {
		r := r.(map[string]any)
		if r["file"] != "base-run"+string(rune('1'+k))+".json" || r["schedule_seed"] != float64(7+k) {
			t.Errorf("run %d: %v", k+1, r)
		}
	}
	for k := 1; k < 3; k++ {
		if !slices.Equal(toFloats(runs[k]["input_lens"]), toFloats(runs[0]["input_lens"])) {
			t.Errorf("run %d's prompts differ from run 1's", k+1)
		}
		if w := runs[k]["gobench_workload"].(map[string]any); w["seed"] != 7.0 || w["schedule_seed"] != float64(7+k) {
			t.Errorf("run %d's workload: seed %v, schedule_seed %v", k+1, w["seed"], w["schedule_seed"])
		}
		want := dryRunOffsets(t, 7+k)
		if got := toFloats(runs[k]["scheduled_offsets"]); !slices.Equal(got, want) {
			t.Errorf("run %d's offsets %v, want --seed %d's %v", k+1, got, 7+k, want)
		}
	}
	if _, ok := runs[0]["gobench_workload"].(map[string]any)["schedule_seed"]; ok {
		t.Error("run 1's workload has a schedule_seed: its arrivals are --seed's")
	}
	var values []float64
	for _, r := range runs {
		values = append(values, r["request_throughput"].(float64))
	}
	mean := (values[0] + values[1] + values[2]) / 3
	ss := 0.0
	for _, v := range values {
		ss += (v - mean) * (v - mean)
	}
	std := math.Sqrt(ss / 2)
	half := 4.302652729911275 * std / math.Sqrt(3) // t(0.975, df 2), scipy.stats.t.ppf(0.975, 2)
	m := set["metrics"].(map[string]any)["request_throughput"].(map[string]any)
	for name, want := range map[string]float64{"mean": mean, "std": std, "ci_low": mean - half, "ci_high": mean + half,
		"min": slices.Min(values), "max": slices.Max(values), "cv": std / mean} {
		// Relative to the interval's scale: ci_low near zero (a loaded
		// machine's runs spread widely) is a difference of two larger numbers.
		if got := m[name].(float64); math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(mean)+half) {
			t.Errorf("request_throughput %s = %v, want %v", name, got, want)
		}
	}
}

// TestNumRunsSameSeed: with --same-seed every run has the first run's
// arrivals.
func TestNumRunsSameSeed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stdout, stderr, code := runMain(t, append(slices.Clone(repeatArgs), "--num-runs", "2", "--same-seed", "--save-detailed",
		"--result-dir", dir, "--result-filename", "s.json", "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	a, b := readJSON(t, filepath.Join(dir, "s-run1.json")), readJSON(t, filepath.Join(dir, "s-run2.json"))
	if !slices.Equal(toFloats(a["scheduled_offsets"]), toFloats(b["scheduled_offsets"])) {
		t.Error("--same-seed: the runs' offsets differ")
	}
	// --format json: a line per run, then the set object.
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[2], `{"gobench_run_set": {"num_runs": 2`) {
		t.Errorf("stdout has %d lines, the last %.60s", len(lines), lines[len(lines)-1])
	}
}

func toFloats(v any) []float64 {
	var out []float64
	for _, x := range v.([]any) {
		out = append(out, x.(float64))
	}
	return out
}

// dryRunOffsets are the arrival offsets of a dry run of repeatArgs with
// --seed seed.
func dryRunOffsets(t *testing.T, seed int) []float64 {
	t.Helper()
	args := append(slices.Clone(repeatArgs), "--dry-run", "--seed", string(rune('0'+seed)))
	stdout, stderr, code := runMain(t, args...)
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s", code, stderr)
	}
	var out []float64
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var line struct {
			Offset float64 `json:"offset_s"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		out = append(out, line.Offset)
	}
	return out
}

func TestNumRunsFlagErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--num-runs", "0"}, "--num-runs: must be at least 1"},
		{[]string{"--same-seed"}, "--same-seed needs --num-runs 2 or more"},
		{[]string{"--num-runs", "2", "--dry-run"}, "--num-runs needs a run"},
		{[]string{"--num-runs", "2", "--append-result"}, "leave out --append-result"},
	} {
		_, stderr, code := runMain(t, append(slices.Clone(repeatArgs), c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestCompareSets compares two sets of three runs saved by `serve --sim
// --num-runs 3 --save-detailed` (testdata/sets: ITL 10 ms against 12 ms):
// both verdicts, across runs and within them.
func TestCompareSets(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			stdout, stderr, code := runMain(t, "compare", "testdata/sets/base-set.json", "testdata/sets/new-set.json", "--format", format)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			golden.Check(t, []byte(stdout))
		})
	}
	_, stderr, code := runMain(t, "compare", "testdata/sets/base-set.json", "testdata/sets/new-run1.json")
	if code != 2 || !strings.Contains(stderr, "compares only with other sets") {
		t.Errorf("set against a result: exit %d, %s", code, stderr)
	}
}

// TestNumRunsInterrupt: an interrupt during run 2 of 3 keeps run 1, saves
// what run 2 measured (end_reason interrupted) and writes the set over
// both, its statistics over run 1 alone; the exit status is 130.
func TestNumRunsInterrupt(t *testing.T) {
	t.Parallel()
	h := &hostile{tokens: 4}
	var posts atomic.Int64
	stalled := make(chan struct{})
	var once atomic.Bool
	srv := newHostile(t, h)
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/completions" && posts.Add(1) > 4 { // run 2 (4 prompts a run)
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("data: {\"choices\":[{\"text\":\"t \"}]}\n\n"))
			w.(http.Flusher).Flush()
			if once.CompareAndSwap(false, true) {
				close(stalled)
			}
			<-r.Context().Done()
			return
		}
		h.ServeHTTP(w, r)
	})
	code, stderr, _ := interruptRun(t, srv.URL, []string{"--num-runs", "3", "--interrupt-grace", "0.1", "--result-filename", "set.json"},
		stalled, syscall.SIGINT)
	if code != 130 {
		t.Fatalf("exit %d, want 130\n%s", code, stderr)
	}
	dir := resultDir(t, stderr)
	if r := readJSON(t, filepath.Join(dir, "set-run2.json")); r["end_reason"] != "interrupted" {
		t.Errorf("run 2 end_reason %v", r["end_reason"])
	}
	set := readJSON(t, filepath.Join(dir, "set-set.json"))["gobench_run_set"].(map[string]any)
	if set["end_reason"] != "interrupted" || set["completed_runs"] != 1.0 || len(set["runs"].([]any)) != 2 {
		t.Errorf("set %v", set)
	}
	if m := set["metrics"].(map[string]any)["completed"].(map[string]any); m["n"] != 1.0 || m["mean"] != 4.0 || m["std"] != nil {
		t.Errorf("completed across the set: %v, want run 1's alone", m)
	}
	if _, err := os.Stat(filepath.Join(dir, "set-run3.json")); err == nil {
		t.Error("run 3 ran after the interrupt")
	}
}

// resultDir is the folder of the set file a run announced on stderr.
func resultDir(t *testing.T, stderr string) string {
	t.Helper()
	const marker = "Saved the set of "
	i := strings.Index(stderr, marker)
	if i < 0 {
		t.Fatalf("no set saved:\n%s", stderr)
	}
	line := stderr[i:]
	line = line[:strings.IndexByte(line, '\n')]
	return filepath.Dir(line[strings.LastIndex(line, " ")+1:])
}

// TestNumRunsDefaultNames: without --result-filename, run 1 is saved
// under vLLM's name and that name, less ".json", is the stem of the
// others and of the set.
func TestNumRunsDefaultNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stdout, stderr, code := runMain(t, append(slices.Clone(repeatArgs), "--num-runs", "2", "--result-dir", dir)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	names := strings.Fields(dirNames(t, dir))
	if len(names) != 3 {
		t.Fatalf("files %v, want two runs and the set", names)
	}
	stem := strings.TrimSuffix(names[0], "-run1.json")
	if !strings.HasPrefix(stem, "openai-200.0qps-m-") || names[1] != stem+"-run2.json" || names[2] != stem+"-set.json" {
		t.Errorf("files %v: want %s-run1.json, -run2.json and -set.json", names, stem)
	}
	set := readJSON(t, filepath.Join(dir, stem+"-set.json"))["gobench_run_set"].(map[string]any)
	if f := set["runs"].([]any)[0].(map[string]any)["file"]; f != stem+"-run1.json" {
		t.Errorf("the set names run 1 %v", f)
	}
}

// TestNumRunsServerGone: a run that cannot be carried out (run 2's ready
// check never answered) ends the set with end_reason "failed" and that
// run's exit status; run 1 stays in the set.
func TestNumRunsServerGone(t *testing.T) {
	t.Parallel()
	h := &hostile{tokens: 4}
	var posts atomic.Int64
	srv := newHostile(t, h)
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/completions" && posts.Add(1) > 5 { // run 1: its ready check and 4 prompts
			http.Error(w, "gone", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	})
	now := make(chan struct{})
	close(now) // no signal to send
	code, stderr, _ := interruptRun(t, srv.URL, []string{"--num-runs", "3", "--ready-check-timeout-sec", "1", "--result-filename", "g.json"}, now)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	set := readJSON(t, filepath.Join(resultDir(t, stderr), "g-set.json"))["gobench_run_set"].(map[string]any)
	if set["end_reason"] != "failed" || set["completed_runs"] != 1.0 || len(set["runs"].([]any)) != 1 {
		t.Errorf("set %v", set)
	}
}
