package diagnose

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/golden"
	sm "github.com/gobench/gobench/internal/servermetrics"
	"github.com/google/go-cmp/cmp"
)

func seedReport(t *testing.T, format string) (*Report, []byte) {
	t.Helper()
	data, err := os.ReadFile("testdata/seed-sample.prom")
	if err != nil {
		t.Fatal(err)
	}
	r, err := FromScrapes(Input{Sources: []string{"seed-sample.prom"}, End: [][]byte{data}}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := r.Render(&b, format); err != nil {
		t.Fatal(err)
	}
	return r, []byte(b.String())
}

// TestSeedSample reads the design notes' sample scrape and prints
// gobench's figures in the formats of the notes' worked program: they must
// equal, line for line, what that program printed on the same scrape
// (testdata/seed-program-output.txt, its output verbatim). The notes'
// reading of the sample — a small median queue, but p95 and p99 a large
// share of TTFT's, KV usage 94 % and preemptions — is memory pressure:
// queue/memory-thrashing.
func TestSeedSample(t *testing.T) {
	t.Parallel()
	r, _ := seedReport(t, "text")
	var got []string
	for _, name := range []string{sm.Queue, sm.TTFT} {
		row := r.row(name)
		got = append(got, fmt.Sprintf("%-36s p50 %.3f s   p95 %.3f s   p99 %.3f s", name,
			row.P[p50].Value, row.P[p95].Value, row.P[p99].Value))
	}
	rt, g := r.Ratios, r.Gauges
	got = append(got, "",
		fmt.Sprintf("prefix cache hit rate      %.1f%% of prompt tokens", 100*rt.PrefixCacheHitRate),
		fmt.Sprintf("prompt : generation ratio  %.1f : 1", rt.PromptToGeneration),
		fmt.Sprintf("finished by length         %.1f%%", 100*rt.FinishedShare["length"]),
		fmt.Sprintf("aborted by client          %.1f%%", 100*rt.FinishedShare["abort"]),
		"",
		fmt.Sprintf("running %v, waiting %v, KV usage %.0f%%, preemptions %v",
			g.End.Running, g.End.Waiting, 100*g.End.KVMax, rt.Preemptions))
	out, err := os.ReadFile("testdata/seed-program-output.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(string(out), "\n")[:len(got)]
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("figures differ from the worked program's (-program +gobench):\n%s", diff)
	}
	if r.Verdict != QueueMemoryThrashing {
		t.Errorf("verdict %s, want %s\n%s", r.Verdict, QueueMemoryThrashing, findingsText(r))
	}
	if f := r.Findings[0]; f.Status != Located || !strings.Contains(f.Conclusion, "p95 and p99") {
		t.Errorf("question 1: %s %q (the tails, not the median, locate the queue)", f.Status, f.Conclusion)
	}
}

// TestSeedSampleRender is the seed sample's report in each format.
func TestSeedSampleRender(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "markdown", "json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			_, out := seedReport(t, format)
			golden.Check(t, out)
		})
	}
}
