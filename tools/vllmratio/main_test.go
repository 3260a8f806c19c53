package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTable: each run's ratios gobench/vLLM, then their median per
// scenario.
func TestTable(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "summary.jsonl")
	data := `{"scenario": "c64", "vllm": {"cpu_us_per_event": 40, "ttft_err": {"mean": 2}}, "gobench": {"cpu_us_per_event": 10, "ttft_err": {"mean": 1}}}
{"scenario": "c64", "vllm": {"cpu_us_per_event": 40, "ttft_err": {"mean": 2}}, "gobench": {"cpu_us_per_event": 20, "ttft_err": {"mean": 0.5}}}
{"scenario": "c64", "vllm": {"cpu_us_per_event": 40, "ttft_err": {"mean": 4}}, "gobench": {"cpu_us_per_event": 12, "ttft_err": {"mean": 1}}}
`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, err := readSummary(path)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := printTable(&out, lines); err != nil {
		t.Fatal(err)
	}
	last := strings.Fields(strings.TrimSpace(out.String()[strings.LastIndex(out.String(), "c64 median"):]))
	if want := []string{"c64", "median", "of", "3", "0.30", "0.25"}; strings.Join(last, " ") != strings.Join(want, " ") {
		t.Errorf("median row %q, want %q\n%s", last, want, out.String())
	}
}
