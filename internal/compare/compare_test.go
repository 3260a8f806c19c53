package compare

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/golden"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultfile"
)

// fixtures are package resultfile's (gobench and vLLM result files).
func open(t *testing.T, specs ...string) []*resultfile.Run {
	t.Helper()
	var runs []*resultfile.Run
	for _, s := range specs {
		r, err := resultfile.Open(filepath.Join("..", "resultfile", "testdata", s), nil)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	return runs
}

func TestParseStatKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key    string
		metric string
		st     Statistic
		ok     bool
	}{
		{"mean_ttft_ms", "ttft", Statistic{Kind: Mean}, true},
		{"median_itl_ms", "itl", Statistic{Kind: Median}, true},
		{"p99_tpot_ms", "tpot", Statistic{Kind: Percentile, P: 99}, true},
		{"p99.9_e2el_ms", "e2el", Statistic{Kind: Percentile, P: 99.9}, true},
		{"p1e-05_e2el_ms", "e2el", Statistic{Kind: Percentile, P: 1e-05}, true},
		{"p50_e2el_including_client_queue_ms", "e2el_including_client_queue", Statistic{Kind: Percentile, P: 50}, true},
		{"mean_client_queue_time_ms", "client_queue_time", Statistic{Kind: Mean}, true},
		{"std_ttft_ms", "", Statistic{}, false},
		{"p101_ttft_ms", "", Statistic{}, false},
		{"mean_foo_ms", "", Statistic{}, false},
		{"request_throughput", "", Statistic{}, false},
	}
	for _, tt := range tests {
		m, st, ok := ParseStatKey(tt.key)
		if m != tt.metric || st != tt.st || ok != tt.ok {
			t.Errorf("ParseStatKey(%q) = %q %+v %v", tt.key, m, st, ok)
		}
	}
}

// TestCompareGobench compares the two simulator runs (slow: TTFT 24 ms and
// ITL 4.6 ms against 20 and 4): every TTFT, TPOT and E2EL statistic is a
// real change for the worse; the client queue times are not.
func TestCompareGobench(t *testing.T) {
	t.Parallel()
	c, err := Compare(open(t, "gobench_fast.json", "gobench_slow.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range c.Metrics {
		seen[r.Key] = true
		sig := r.Changes[0].Sig
		metric, _, isStat := ParseStatKey(r.Key)
		if isStat != (sig != nil) {
			t.Errorf("%s: significance %v", r.Key, sig)
		}
		switch metric {
		case "ttft", "tpot", "e2el":
			if sig.Verdict != Real || !(sig.Interval.Low > 0) || sig.RequestsA != 24 {
				t.Errorf("%s: %+v, want a real increase over 24 requests", r.Key, sig)
			}
			if !(r.Changes[0].Abs > 0) {
				t.Errorf("%s: change %v", r.Key, r.Changes[0].Abs)
			}
		}
	}
	for _, k := range []string{"duration", "failed_ratio", "p99_ttft_ms", "mean_itl_ms", "p90_e2el_including_client_queue_ms"} {
		if !seen[k] {
			t.Errorf("no row %s", k)
		}
	}
	if len(c.Settings) == 0 || c.Settings[0].Key != "date" {
		t.Errorf("settings %v", c.Settings)
	}
}

func TestCompareErrors(t *testing.T) {
	t.Parallel()
	if _, err := Compare(open(t, "gobench_fast.json"), Options{}); err == nil {
		t.Error("one run compared")
	}
	runs, err := resultfile.Parse("bad.json", []byte(`{"duration": 1.0, "ttfts": [0.1], "itls": [[]], "output_lens": [1], "errors": []}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Compare(append(open(t, "gobench_fast.json"), runs[0]), Options{}); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("corrupt per-request lists: %v", err)
	}
}

// TestRender prints golden comparisons: two gobench runs with
// significance; three runs of a vLLM --append-result file (no per-request
// data); a vLLM detailed file against itself (every change 0 and noise);
// and results with and without gobench_workload, whose values fill the
// settings (nested objects by their dotted paths) and whose command lines
// follow them. Text comes short and with All (every metric).
func TestRender(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		specs []string
	}{
		{"gobench", []string{"gobench_fast.json", "gobench_slow.json"}},
		{"vllm_runs", []string{"vllm_runs.jsonl#base", "vllm_runs.jsonl#1", "vllm_runs.jsonl#-1"}},
		{"vllm_self", []string{"vllm_detailed.json", "vllm_detailed.json"}},
		// Two results that record their workload (different lengths,
		// seed, sampling and SLOs) and an older one that does not.
		{"workload", []string{"gobench_workload_a.json", "gobench_workload_b.json", "gobench_fast.json"}},
	}
	for _, cs := range cases {
		c, err := Compare(open(t, cs.specs...), Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, format := range []string{"text", "text_all", "markdown", "json"} {
			t.Run(cs.name+"/"+format, func(t *testing.T) {
				var b bytes.Buffer
				all := *c
				all.All = true
				switch format {
				case "text":
					err = c.WriteText(&b)
				case "text_all":
					err = all.WriteText(&b)
				case "markdown":
					err = c.WriteMarkdown(&b)
				default:
					err = pyjson.WritePython(&b, c.Object())
				}
				if err != nil {
					t.Fatal(err)
				}
				golden.Check(t, b.Bytes())
			})
		}
	}
}

// TestSelfCompareIsNoise: a file compared with itself changes by exactly 0,
// and the interval, which then contains 0, says noise.
func TestSelfCompareIsNoise(t *testing.T) {
	t.Parallel()
	c, err := Compare(open(t, "gobench_fast.json", "gobench_fast.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range c.Metrics {
		ch := r.Changes[0]
		if ch.Abs != 0 && !math.IsNaN(ch.Abs) {
			t.Errorf("%s: change %v", r.Key, ch.Abs)
		}
		if ch.Sig != nil && ch.Sig.Verdict != Noise {
			t.Errorf("%s: %+v", r.Key, ch.Sig)
		}
	}
}
