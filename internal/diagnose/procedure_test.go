package diagnose

import (
	"math"
	"strings"
	"testing"

	sm "github.com/gobench/gobench/internal/servermetrics"
)

// scenario builds one scrape (totals since start) of a server whose
// requests spent ttft seconds to the first token, queue of it waiting and
// prefill of it in prefill, with inter-token latencies itl.
func scenario(ttft, queue, prefill float64, itl []float64) *page {
	return newPage().
		hist(sm.TTFT, ttftBuckets, obs(ttft, 100)...).
		hist(sm.Queue, latencyBuckets, obs(queue, 100)...).
		hist(sm.Prefill, latencyBuckets, obs(prefill, 100)...).
		hist(sm.ITL, itlBuckets, itl...).
		hist(sm.PromptTokensHist, tokenBuckets, obs(900, 100)...).
		counter(sm.PrefixQueries, 1000).counter(sm.PrefixHits, 600).
		counter(sm.Preemptions, 0).
		counter(sm.RequestSuccess, 100).
		gauge(sm.Running, 10).gauge(sm.Waiting, 0).gauge(sm.KVUsage, 0.3)
}

// smoothITL is 1000 inter-token latencies of 20 ms.
func smoothITL() []float64 { return obs(0.02, 1000) }

// TestVerdicts reaches every verdict from a page built for it, and checks
// the finding that gives it.
func TestVerdicts(t *testing.T) {
	t.Parallel()
	for _, tt := range verdictCases() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.want == "" { // the deferred case: a labelled gauge the page helper cannot write
				tt.page.extra = append(tt.page.extra, `vllm:num_requests_waiting_by_reason{engine="0",model_name="m",reason="deferred"} 5`)
				tt.want = QueueHeadOfLine
			}
			o := DefaultOptions()
			o.MaxNumSeqs, o.Thresholds.ExpectedPrefixHitRate = tt.maxNumSeqs, tt.expectHit
			r, err := FromScrapes(Input{Sources: []string{"p"}, End: [][]byte{tt.page.bytes()}}, o)
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != tt.want {
				t.Fatalf("verdict %s, want %s\n%s", r.Verdict, tt.want, findingsText(r))
			}
			if tt.step > 0 && r.Findings[tt.step-1].Verdict != tt.want {
				t.Errorf("question %d does not give the verdict\n%s", tt.step, findingsText(r))
			}
		})
	}
}

// verdictCase is a page built for a verdict, and the question that gives it.
type verdictCase struct {
	name       string
	page       *page
	maxNumSeqs int
	want       Verdict
	step       int
	expectHit  float64 // --expected-prefix-hit-rate; 0, the default, is not known
}

// verdictCases are TestVerdicts' pages, one or more a verdict.
func verdictCases() []verdictCase {
	queued := func() *page { return scenario(1.2, 1.0, 0.1, smoothITL()).gauge(sm.Waiting, 40) }
	return []verdictCase{
		// TTFT 50 ms of which the queue is 1 ms (inside the lowest bucket),
		// prefill 30 ms; ITL even at 20 ms.
		{"healthy", scenario(0.05, 0.001, 0.03, smoothITL()), 0, Healthy, 0, 0},
		// Queue 1 s of TTFT 1.2 s; 256 running of --max-num-seqs 256, KV 50 %.
		{"seq limit", queued().gauge(sm.Running, 256).gauge(sm.KVUsage, 0.5), 256, QueueSeqLimit, 2, 0},
		// The same without --max-num-seqs: most likely the sequence limit.
		{"seq limit, max_num_seqs unknown", queued().gauge(sm.KVUsage, 0.5), 0, QueueSeqLimit, 2, 0},
		// KV 95 % and 12 preemptions.
		{"memory thrashing", queued().gauge(sm.KVUsage, 0.95).counter(sm.Preemptions, 12), 0, QueueMemoryThrashing, 3, 0},
		// KV 95 % and none.
		{"memory full", queued().gauge(sm.KVUsage, 0.95), 0, QueueMemoryFull, 3, 0},
		// KV 50 % in every sample, 10 running of 256, but 12 preemptions:
		// the samples missed the full cache (vLLM preempts only then).
		{"memory thrashing between samples", queued().gauge(sm.KVUsage, 0.5).counter(sm.Preemptions, 12), 256, QueueMemoryThrashing, 3, 0},
		// 10 running of 256 with KV 50 %: neither binds.
		{"head of line", queued().gauge(sm.KVUsage, 0.5), 256, QueueHeadOfLine, 2, 0},
		// max_num_seqs 64 from an info metric's label: 10 running is below
		// it (without it, the sequence limit would be the guess).
		{"max_num_seqs from an info metric", func() *page {
			p := queued().gauge(sm.KVUsage, 0.5)
			p.extra = append(p.extra, `vllm:scheduler_config_info{max_num_seqs="64"} 1`)
			return p
		}(), 0, QueueHeadOfLine, 2, 0},
		// Deferred requests, max_num_seqs unknown.
		{"head of line, deferred", queued().gauge(sm.KVUsage, 0.5).gauge(sm.WaitingByReason, 0), 0, Verdict(""), 2, 0},
		// TTFT 0.5 s, prefill 0.45 s of it, the cache hits 2 % where the
		// workload should give 30 %.
		{"prefix cache", scenario(0.5, 0.001, 0.45, smoothITL()).counter(sm.PrefixHits, 20), 0, PrefillPrefixCache, 4, 0.3},
		// The same with no expectation given: prompts that share nothing (a
		// benchmark's random prompts) are simply long.
		{"long prompts, no expected hit rate", scenario(0.5, 0.001, 0.45, smoothITL()).counter(sm.PrefixHits, 20), 0, Healthy, 0, 0},
		// Prefill 0.45 s of TTFT 0.5 s with prefix caching off (the
		// counters stay at zero): the cache is the problem, whatever the
		// expectation.
		{"prefix caching off", func() *page {
			p := scenario(0.5, 0.001, 0.45, smoothITL()).counter(sm.PrefixQueries, 0).counter(sm.PrefixHits, 0)
			p.extra = append(p.extra, `vllm:cache_config_info{block_size="16",enable_prefix_caching="False",engine="0"} 1`)
			return p
		}(), 0, PrefillPrefixCache, 4, 0},
		// TTFT 0.5 s, prefill 0.05 s: 0.45 s in the API server.
		{"frontend", scenario(0.5, 0.001, 0.05, smoothITL()), 0, PrefillFrontend, 4, 0},
		// 95 % of ITLs at 20 ms, 5 % at 450 ms.
		{"prefill interference", scenario(0.05, 0.001, 0.03, append(obs(0.02, 950), obs(0.45, 50)...)), 0, StreamPrefillInterference, 5, 0},
		// Every ITL 180 ms.
		{"batch or CPU", scenario(0.05, 0.001, 0.03, obs(0.18, 1000)), 0, StreamBatchOrCPU, 5, 0},
		// Queue 0.2 s of TTFT 0.25 s: every quantile lies in the queue
		// histogram's lowest bucket (0-0.3 s) and does not count, but the
		// exact mean does.
		{"queue below the lowest bucket, on average", onAverage(), 10, QueueSeqLimit, 2, 0},
		// A step of 150 ms with a third of TTFT queued behind the step in
		// progress: the tails of the queue lie in its lowest bucket, the
		// mean is below half, so the queue is not the problem; ITL is.
		{"batch or CPU, a third of TTFT queued", func() *page {
			p := scenario(0.21, 0.07, 0.14, obs(0.15, 1000))
			p.hists[sm.Queue] = append(obs(0.01, 50), obs(0.13, 50)...)
			return p
		}(), 0, StreamBatchOrCPU, 5, 0},
	}
}

// onAverage is a server whose requests wait 0.2 s of a TTFT of 0.25 s,
// with 10 running of --max-num-seqs 10.
func onAverage() *page {
	return scenario(0.25, 0.2, 0.03, smoothITL()).gauge(sm.Waiting, 40).gauge(sm.Running, 10)
}

// TestQueueOnAverage: a queue whose every quantile lies in the queue
// histogram's lowest bucket is located by its exact mean alone, and the
// finding says so; without sums and counts (the seed's sample) only the
// quantiles can locate it.
func TestQueueOnAverage(t *testing.T) {
	t.Parallel()
	r, err := FromScrapes(Input{End: [][]byte{onAverage().bytes()}}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	f := r.Findings[0]
	if f.Status != Located || !strings.Contains(f.Conclusion, "dominates TTFT on average:") {
		t.Fatalf("question 1: %s %q\n%s", f.Status, f.Conclusion, findingsText(r))
	}
	mean := f.Evidence[len(f.Evidence)-1]
	if mean.Name != "queue_share_mean" || math.Abs(mean.Value-0.8) > 1e-9 || mean.Threshold != 0.5 {
		t.Errorf("evidence %+v, want the mean's share 0.8 against 0.5", mean)
	}
	for _, e := range f.Evidence[:3] {
		if !strings.Contains(e.Text, "inside the lowest bucket") {
			t.Errorf("%s counted: %s", e.Name, e.Text)
		}
	}
}

func findingsText(r *Report) string {
	var b strings.Builder
	for _, f := range r.Findings {
		b.WriteString(f.Question + " " + string(f.Status) + ": " + f.Conclusion + "\n")
		for _, e := range f.Evidence {
			b.WriteString("  " + e.Text + "\n")
		}
	}
	return b.String()
}

// TestVerdictsList checks that the list is the documented one.
func TestVerdictsList(t *testing.T) {
	t.Parallel()
	var got []string
	for _, v := range Verdicts() {
		got = append(got, string(v))
	}
	want := "healthy unknown queue/seq-limit queue/memory-thrashing queue/memory-full queue/head-of-line prefill/prefix-cache prefill/frontend stream/prefill-interference stream/batch-or-cpu"
	if strings.Join(got, " ") != want {
		t.Errorf("verdicts %v", got)
	}
}

// TestUnanswered says why a question cannot be answered when the page
// lacks what it needs, and gives no verdict from it: with none answered,
// the verdict is unknown.
func TestUnanswered(t *testing.T) {
	t.Parallel()
	r, err := FromScrapes(Input{End: [][]byte{newPage().gauge(sm.Running, 0).bytes()}}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 3, 4} {
		if f := r.Findings[i]; f.Status != Unanswered || !strings.HasPrefix(f.Conclusion, "Cannot be answered: ") {
			t.Errorf("question %d: %s %q", i+1, f.Status, f.Conclusion)
		}
	}
	// No question answered: the verdict is unknown, never healthy, and
	// says why.
	if r.Findings[1].Status != NotAsked || r.Verdict != Unknown || !strings.Contains(r.VerdictReason, "no question could be answered") {
		t.Errorf("question 2 %s, verdict %s (%q)", r.Findings[1].Status, r.Verdict, r.VerdictReason)
	}
	// An empty TTFT histogram (no request in the window) has no row, and a
	// NaN KV usage is dropped with a note: question 1 says why it cannot
	// be answered, and the state prints n/a.
	empty := newPage().hist(sm.TTFT, ttftBuckets).hist(sm.Queue, latencyBuckets)
	empty.extra = append(empty.extra, "vllm:kv_cache_usage_perc NaN")
	r, err = FromScrapes(Input{End: [][]byte{empty.bytes()}}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 0 || !strings.Contains(r.Findings[0].Conclusion, "is empty or absent") {
		t.Errorf("rows %d, question 1 %q", len(r.Rows), r.Findings[0].Conclusion)
	}
	var text strings.Builder
	if err := r.Render(&text, "text"); err != nil || !strings.Contains(text.String(), "vllm:kv_cache_usage_perc: a NaN sample ignored") ||
		!strings.Contains(text.String(), "KV-cache usage  n/a") {
		t.Errorf("render %v:\n%s", err, text.String())
	}
}

// TestThresholds moves each threshold across a scenario's number and
// checks the verdict follows.
func TestThresholds(t *testing.T) {
	t.Parallel()
	thrash := scenario(1.2, 1.0, 0.1, smoothITL()).gauge(sm.Waiting, 40).gauge(sm.KVUsage, 0.95).counter(sm.Preemptions, 12).bytes()
	full := scenario(1.2, 1.0, 0.1, smoothITL()).gauge(sm.Waiting, 40).gauge(sm.KVUsage, 0.95).bytes()
	tests := []struct {
		name string
		page []byte
		set  func(*Thresholds)
		want Verdict
	}{
		// Without preemptions (which show a full cache whatever the
		// samples say).
		{"kv-high above the usage", full, func(t *Thresholds) { t.KVHigh = 0.96 }, QueueSeqLimit},
		{"min-preemptions above the count", thrash, func(t *Thresholds) { t.MinPreemptions = 13 }, QueueMemoryFull},
		{"dominant-share above the queue's", thrash, func(t *Thresholds) { t.DominantShare = 0.9 }, Healthy},
		{"noise-floor above the queue", thrash, func(t *Thresholds) { t.NoiseFloor = 1.5 }, Healthy},
	}
	for _, tt := range tests {
		o := DefaultOptions()
		tt.set(&o.Thresholds)
		r, err := FromScrapes(Input{End: [][]byte{tt.page}}, o)
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict != tt.want {
			t.Errorf("%s: verdict %s, want %s\n%s", tt.name, r.Verdict, tt.want, findingsText(r))
		}
	}
	o := DefaultOptions()
	o.Thresholds.KVHigh = math.NaN()
	if _, err := FromScrapes(Input{End: [][]byte{thrash}}, o); err == nil || !strings.Contains(err.Error(), "--kv-high") {
		t.Errorf("NaN --kv-high: %v", err)
	}
}
