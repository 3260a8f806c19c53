package serverview

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/diagnose"
	"github.com/gobench/gobench/internal/metrics"
)

// llamaPage reads one of llama-server 0.7.0's recorded pages
// (servermetrics' testdata/real).
func llamaPage(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "servermetrics", "testdata", "real", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// timed is a successful record with llama.cpp's per-request timings.
func timed(ttft, latency, prompt, decode float64) metrics.Output {
	return metrics.Output{Success: true, TTFT: ttft, Latency: latency, ServerPromptTime: &prompt, ServerDecodeTime: &decode}
}

// TestTimingRows puts the server's own per-request times beside the
// client's figures of the same requests. Two requests: TTFTs 1.0 and
// 2.0 s with prompt times 0.1 and 0.3 s, E2E 3.0 and 5.0 s with
// generation times 1.9 and 2.9 s. Prefill: client mean 1.5, server 0.2,
// gap 1.3; p50 by NumPy's linear rule 1.5 and 0.2, p99 1.0 + 0.99 x 1.0
// = 1.99 and 0.1 + 0.99 x 0.2 = 0.298. Decode: client E2E - TTFT 2.0 and
// 3.0 (mean 2.5), server 1.9 and 2.9 (mean 2.4), gap 0.1. A record
// without timings (a third, failed one) is left out.
func TestTimingRows(t *testing.T) {
	t.Parallel()
	r := &metrics.Result{ActualOutputLens: []int{10, 10, 0}, Outputs: []metrics.Output{
		timed(1.0, 3.0, 0.1, 1.9), timed(2.0, 5.0, 0.3, 2.9), {Success: false}}}
	rows := timingRows(Client{Result: r})
	if len(rows) != 2 || rows[0].Metric != "prefill" || rows[1].Metric != "decode" {
		t.Fatalf("rows %+v", rows)
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %.15g, want %.15g", what, got, want)
		}
	}
	p, d := rows[0], rows[1]
	near("prefill client mean", p.Client.Mean, 1.5)
	near("prefill server mean", p.Server.Mean, 0.2)
	near("prefill server p50", p.Server.P50, 0.2)
	near("prefill client p99", p.Client.P99, 1.99)
	near("prefill server p99", p.Server.P99, 0.298)
	near("prefill gap", *p.Gap, 1.3)
	near("decode client mean", d.Client.Mean, 2.5)
	near("decode server mean", d.Server.Mean, 2.4)
	near("decode gap", *d.Gap, 0.1)
	if p.ServerSource != SourceTimings || p.ServerMetric != "timings.prompt_ms" || !strings.Contains(p.Why, "wait for a free slot") {
		t.Errorf("prefill row %+v", p)
	}
	if rows := timingRows(client()); len(rows) != 0 {
		t.Errorf("rows without timings: %+v", rows)
	}
}

// TestLlamaCppView: a run of 16 requests on llama-server's 8 slots
// (recorded pages, the gauges sampled in the middle of it). The section
// names the engine, puts the per-request timings beside the client's
// figures, says in one line which histograms llama.cpp lacks, and names
// the queue with the deferred requests as evidence.
func TestLlamaCppView(t *testing.T) {
	t.Parallel()
	busy, err := diagnose.StateOf([][]byte{llamaPage(t, "llamacpp-b11669-busy.prom")}, "", 5)
	if err != nil {
		t.Fatal(err)
	}
	r := &metrics.Result{ActualOutputLens: []int{64, 64}, Outputs: []metrics.Output{
		timed(1.5, 3.0, 0.06, 1.5), timed(0.1, 1.6, 0.05, 1.5)}}
	o, text := serveView(t, "llama.cpp", llamaPage(t, "llamacpp-b11669-start.prom"), llamaPage(t, "llamacpp-b11669-end.prom"),
		Client{Result: r, MaxConcurrency: 16}, []Sample{busy})
	if v, _ := o.Get("verdict"); v != string(diagnose.QueueSeqLimit) {
		t.Errorf("verdict %v", v)
	}
	for _, want := range []string{
		"Server: llama.cpp (llamacpp:* metrics)",
		"TTFT, TPOT, E2EL: llama.cpp publishes no such histogram: client only.",
		"PREFILL (llama.cpp timings, per request: timings.prompt_ms)",
		"llamacpp:requests_deferred peaked at 8",
		"Verdict: queue/seq-limit",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the section lacks %q:\n%s", want, text)
		}
	}
}
