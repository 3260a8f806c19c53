package compare

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/resultfile"
)

// TestHeadline: the headline's exact wording, singular and plural, with
// and without a test.
func TestHeadline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tally Tally
		want  string
	}{
		{Tally{Regressions: 3, Improvements: 2, Noise: 14, Metrics: 19}, "B vs A: 3 real regressions, 2 real improvements, 14 within noise"},
		{Tally{Regressions: 1, Improvements: 1, Noise: 1, Untested: 4, Metrics: 7},
			"B vs A: 1 real regression, 1 real improvement, 1 within noise, 4 changed without a test"},
		{Tally{Real: 2, Noise: 3, Metrics: 5}, "B vs A: 0 real regressions, 0 real improvements, 3 within noise, 2 real changes without a direction"},
		{Tally{Untested: 15, Metrics: 19}, "B vs A: 15 of 19 metrics changed; no significance test"},
		{Tally{Metrics: 19}, "B vs A: 0 of 19 metrics changed; no significance test"},
	}
	for _, tt := range tests {
		if got := tt.tally.Headline("A", "B"); got != tt.want {
			t.Errorf("%+v:\n got %q\nwant %q", tt.tally, got, tt.want)
		}
	}
}

// TestTallyGobench: the two simulator runs' headline counts what the
// table says, and the short table shows the real changes and the
// untested ones that moved, not the noise.
func TestTallyGobench(t *testing.T) {
	t.Parallel()
	c, err := Compare(open(t, "gobench_fast.json", "gobench_slow.json"), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tally := c.Tally(1)
	if got := tally.Headline("A", "B"); got != "B vs A: 24 real regressions, 0 real improvements, 6 within noise, 4 changed without a test" {
		t.Errorf("headline %q", got)
	}
	var b bytes.Buffer
	if err := c.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.HasPrefix(out, "B vs A: 24 real regressions") {
		t.Errorf("the headline does not lead:\n%s", out)
	}
	for _, want := range []string{"\np99_ttft_ms ", "\nrequest_throughput ", "Not shown: 19 of 47 metrics"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	for _, hidden := range []string{"\np99_itl_ms ", "\nstd_ttft_ms ", "\ncompleted ", "Setting "} {
		if strings.Contains(out, hidden) {
			t.Errorf("%q shown without --all:\n%s", hidden, out)
		}
	}
	if len(tally.Regressed) != 24 || tally.Regressed[0] != "mean_ttft_ms" {
		t.Errorf("regressed %v", tally.Regressed)
	}
}

// TestTextWidth: every line compare prints as text, short or with All,
// fits MaxWidth columns, for results of every kind (command lines, long
// keys, server figures, three runs).
func TestTextWidth(t *testing.T) {
	t.Parallel()
	for _, specs := range [][]string{
		{"gobench_fast.json", "gobench_slow.json"},
		{"gobench_workload_a.json", "gobench_workload_b.json", "gobench_fast.json"},
		{"vllm_runs.jsonl#0", "vllm_runs.jsonl#1", "vllm_runs.jsonl#2", "gobench_fast.json"},
		{"server_healthy.json", "server_seq_limit.json", "server_kv_thrashing.json"},
	} {
		c, err := Compare(open(t, specs...), Options{Resamples: 200})
		if err != nil {
			t.Fatal(err)
		}
		for _, all := range []bool{false, true} {
			c.All = all
			var b bytes.Buffer
			if err := c.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			checkWidth(t, strings.Join(specs, " ")+allSuffix(all), b.String())
		}
	}
}

func allSuffix(all bool) string {
	if all {
		return " --all"
	}
	return ""
}

// checkWidth fails for every line of out wider than MaxWidth.
func checkWidth(t *testing.T, name, out string) {
	t.Helper()
	for i, l := range strings.Split(out, "\n") {
		if textWidth(l) > MaxWidth {
			t.Errorf("%s: line %d is %d columns wide: %s", name, i+1, textWidth(l), l)
		}
	}
}

// TestWorkloadDiff: the workload settings two results do not share, top
// level and inside gobench_workload (a value one run lacks is unset),
// without the settings that only change the report; none against a file
// that records no gobench_workload, and none against itself.
func TestWorkloadDiff(t *testing.T) {
	t.Parallel()
	runs := open(t, "gobench_workload_a.json", "gobench_workload_b.json", "gobench_fast.json", "vllm_runs.jsonl#0", "vllm_runs.jsonl#2")
	tests := []struct {
		a, b int
		want string
	}{
		{0, 1, "workload differs, A → B: random_input_len 16 → 32; random_range_ratio 0.0 → 0.25; seed 0 → 7; " +
			"sampling_params.temperature unset → 0.7"},
		{0, 2, "workload differs, A → B: num_prompts 8 → 24; max_concurrency null → 8"},
		{3, 4, "workload differs, A → B: request_rate 8.0 → 9.0"},
		{1, 1, ""},
		{3, 3, ""},
	}
	for _, tt := range tests {
		if got := FormatWorkloadDiff(WorkloadDiff(runs[tt.a], runs[tt.b]), "A", "B"); got != tt.want {
			t.Errorf("%d against %d:\n got %q\nwant %q", tt.a, tt.b, got, tt.want)
		}
	}
	// What only changes the report, or counts what a warm-up held, is no
	// difference of workload.
	a := parseRun(t, `{"duration": 1.0, "request_rate": 5.0, "gobench_workload": {"seed": 0, "warmup_duration": 2.0, `+
		`"warmup_requests": 9, "goodput": null, "command": "gobench serve --label a"}}`)
	b := parseRun(t, `{"duration": 1.0, "request_rate": 10.0, "gobench_workload": {"seed": 1, "warmup_duration": 2.0, `+
		`"warmup_requests": 11, "goodput": {"ttft": 500.0}, "command": "gobench serve --label b", "prefix_cache": "reset"}}`)
	want := "workload differs, A → B: request_rate 5.0 → 10.0; seed 0 → 1; prefix_cache unset → reset"
	if got := FormatWorkloadDiff(WorkloadDiff(a, b), "A", "B"); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// parseRun reads one result from its JSON text.
func parseRun(t *testing.T, text string) *resultfile.Run {
	t.Helper()
	runs, err := resultfile.Parse("run.json", []byte(text), nil)
	if err != nil || len(runs) != 1 {
		t.Fatalf("%v: %d runs", err, len(runs))
	}
	return runs[0]
}

// TestWrap: text wraps at spaces within MaxWidth, a word longer than a
// line stays whole.
func TestWrap(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", MaxWidth+5)
	tests := []struct{ in, want string }{
		{"short line", "short line\n"},
		{strings.Repeat("word ", 30), strings.TrimSpace(strings.Repeat("word ", 20)) + "\n  " + strings.TrimSpace(strings.Repeat("word ", 10)) + "\n"},
		{long + " end", long + "\n  end\n"},
	}
	for _, tt := range tests {
		if got := wrap(tt.in, "", "  "); got != tt.want {
			t.Errorf("wrap(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestPairTables: three tested runs, too wide for one short table, print
// one per run after the baseline, each within MaxWidth; a run with no real
// change says so.
func TestPairTables(t *testing.T) {
	t.Parallel()
	c, err := Compare(open(t, "gobench_fast.json", "gobench_slow.json", "gobench_fast.json"), Options{Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := c.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	checkWidth(t, "three runs", out)
	for _, want := range []string{"\nMetric  ", "  B−A %  B vs A\n", "\nC vs A: no metric changed for real.\n",
		"C vs A: 0 real regressions, 0 real improvements, 30 within noise\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "C−A %") {
		t.Errorf("one wide table:\n%s", out)
	}
}
