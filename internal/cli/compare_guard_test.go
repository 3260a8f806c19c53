package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gobench/gobench/internal/exitcode"
)

// TestCompareFailOn: --fail-on regression exits 4 naming the real
// regressions, passes a comparison without one, refuses to judge results
// that give no test, and judges sets by the test across runs.
func TestCompareFailOn(t *testing.T) {
	t.Parallel()
	fast, slow := fixture("gobench_fast.json"), fixture("gobench_slow.json")
	sets := []string{"testdata/sets/base-set.json", "testdata/sets/new-set.json"}
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"regression", []string{fast, slow}, int(exitcode.ThresholdFailed), "real regression: B vs A: mean_ttft_ms, median_ttft_ms,"},
		{"improvement only", []string{slow, fast}, 0, ""},
		{"itself", []string{fast, fast}, 0, ""},
		{"never", []string{fast, slow, "--fail-on", "never"}, 0, ""},
		{"nothing tested", []string{fixture("gobench_workload_a.json"), fixture("gobench_workload_b.json")},
			int(exitcode.BadUsage), "argument --fail-on: no change could be judged real or noise"},
		{"sets", sets, int(exitcode.ThresholdFailed), "real regression: B vs A: duration, request_throughput,"},
		{"sets judged", sets, int(exitcode.ThresholdFailed), "median_itl_ms (9 of the 23 metrics judged)"},
		{"bad value", []string{fast, slow, "--fail-on", "worse"}, int(exitcode.BadUsage), "invalid choice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"compare", "--resamples", "500"}, tt.args...)
			if !strings.HasPrefix(tt.name, "never") && tt.name != "bad value" {
				args = append(args, "--fail-on", "regression")
			}
			_, stderr, code := runMain(t, args...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) || tt.stderr == "" && stderr != "" {
				t.Errorf("exit %d (want %d), stderr:\n%s", code, tt.code, stderr)
			}
		})
	}
}

// TestCompareFitsWidth: every line compare prints as text fits 100
// columns, short and with --all, for two results, three, results with a
// server view, and sets of runs; the headline leads, after a workload
// that differs.
func TestCompareFitsWidth(t *testing.T) {
	t.Parallel()
	cases := [][]string{
		{fixture("gobench_fast.json"), fixture("gobench_slow.json")},
		{fixture("gobench_workload_a.json"), fixture("gobench_workload_b.json"), fixture("gobench_fast.json")},
		{fixture("server_healthy.json"), fixture("server_seq_limit.json"), fixture("server_kv_thrashing.json")},
		{"testdata/sets/base-set.json", "testdata/sets/new-set.json"},
	}
	for _, files := range cases {
		for _, extra := range [][]string{nil, {"--all"}} {
			out, stderr, code := runMain(t, append(append([]string{"compare", "--resamples", "200"}, extra...), files...)...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", files, code, stderr)
			}
			for i, l := range strings.Split(out, "\n") {
				if n := utf8.RuneCountInString(l); n > 100 {
					t.Errorf("%v %v: line %d is %d columns: %s", files, extra, i+1, n, l)
				}
			}
			first, _, _ := strings.Cut(out, "\n")
			if !strings.HasPrefix(first, "B vs A: ") && !strings.HasPrefix(first, "workload differs, A → B: ") {
				t.Errorf("%v %v: first line %q", files, extra, first)
			}
		}
	}
}

// TestCompareSetsAll: the sets' --all table, every metric with its
// spread and both intervals, in panels within 100 columns.
func TestCompareSetsAll(t *testing.T) {
	t.Parallel()
	out, stderr, code := runMain(t, "compare", "--all", "testdata/sets/base-set.json", "testdata/sets/new-set.json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"std_itl_ms", "A std", "across runs", "within runs (pooled requests)", "real, worse [+1.86, +2.09]"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// TestCheckGuardRails: check (and analyze) says when the baseline's
// workload differs (text and json), reads a number too large for a float64 as infinite
// and fails an upper bound on it, suggests the nearest key for a typo.
func TestCheckGuardRails(t *testing.T) {
	t.Parallel()
	a, b := fixture("gobench_workload_a.json"), fixture("gobench_workload_b.json")
	out, _, code := runMain(t, "check", a, "--baseline", b, "--threshold", "p99_ttft_ms<=baseline*1.1")
	warning := "Warning: workload differs, baseline → result: random_input_len 32 → 16; random_range_ratio 0.25 → 0.0; " +
		"seed 7 → 0; sampling_params.temperature 0.7 → unset\n"
	if code != 0 || !strings.Contains(out, "=\n"+warning+"PASS ") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	out, _, _ = runMain(t, "analyze", fixture("gobench_fast.json"), "--baseline", fixture("server_healthy.json"),
		"--threshold", "p99_ttft_ms<=baseline*1.1")
	if !strings.Contains(out, "=\nWarning: workload differs, baseline → result: num_prompts 60 → 24; request_rate 30.0 → 40.0; "+
		"max_concurrency null → 8\nPASS ") {
		t.Errorf("analyze:\n%s", out)
	}
	out, _, _ = runMain(t, "check", a, "--baseline", b, "--threshold", "p99_ttft_ms<=baseline*1.1", "--format", "json")
	var v struct{ Warnings []string }
	if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.Warnings) != 1 || !strings.HasPrefix(v.Warnings[0], "workload differs") {
		t.Errorf("json %v: %s", err, out)
	}
	out, _, _ = runMain(t, "check", a, "--baseline", a, "--threshold", "p99_ttft_ms<=baseline")
	if strings.Contains(out, "Warning") {
		t.Errorf("a warning against itself:\n%s", out)
	}

	raw, err := os.ReadFile(fixture("gobench_workload_a.json"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "huge.json")
	huge := strings.Replace(string(raw), `"p99_ttft_ms": 51.087644920000024`, `"p99_ttft_ms": 1e999`, 1)
	if huge == string(raw) || os.WriteFile(path, []byte(huge), 0o600) != nil {
		t.Fatalf("no p99_ttft_ms to make huge in the fixture")
	}
	tests := []struct {
		threshold, stdout string
		code              int
	}{
		{"p99_ttft_ms<500", "FAIL  p99_ttft_ms<500  inf >= 500 (the file holds 1e999, beyond the largest float64: infinite)", int(exitcode.ThresholdFailed)},
		{"p99_ttft_ms>0", "PASS  p99_ttft_ms>0  inf > 0 (the file holds 1e999, beyond the largest float64: infinite)", 0},
	}
	for _, tt := range tests {
		out, stderr, code := runMain(t, "check", path, "--threshold", tt.threshold)
		if code != tt.code || !strings.Contains(out, tt.stdout) {
			t.Errorf("%s: exit %d\n%s\n%s", tt.threshold, code, out, stderr)
		}
	}
	_, stderr, code := runMain(t, "check", path, "--threshold", "ttft_p99_ms<500")
	if code != int(exitcode.BadUsage) || !strings.Contains(stderr, `no numeric key "ttft_p99_ms": did you mean p99_ttft_ms?`) {
		t.Errorf("words swapped: exit %d: %s", code, stderr)
	}
}
