package diagnose

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sm "github.com/gobench/gobench/internal/servermetrics"
)

// realPage reads one of servermetrics' recorded pages.
func realPage(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "servermetrics", "testdata", "real", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// llamaWindow diagnoses llama-server 0.7.0's pages around a run of 48
// requests (servermetrics' testdata/real/SOURCES.md), 15 s apart, with
// the state gauges sampled during it.
func llamaWindow(t *testing.T, states ...State) *Report {
	t.Helper()
	r, err := FromScrapes(Input{Sources: []string{"llama-server"}, Start: [][]byte{realPage(t, "llamacpp-b11669-start.prom")},
		End: [][]byte{realPage(t, "llamacpp-b11669-end.prom")}, Seconds: 15, States: states}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestLlamaCppQueue: 16 requests on llama-server's 8 slots. The sample
// taken during the run (its page: llamacpp-b11669-busy.prom) has 8
// processing and 8 deferred; llama-server defers a request only when no
// slot is free, so the verdict names the queue and the slots, whose
// number /metrics does not give.
func TestLlamaCppQueue(t *testing.T) {
	t.Parallel()
	busy, err := StateOf([][]byte{realPage(t, "llamacpp-b11669-busy.prom")}, "", 5)
	if err != nil {
		t.Fatal(err)
	}
	r := llamaWindow(t, busy)
	if r.Engine.ID != "llama.cpp" || r.Verdict != QueueSeqLimit {
		t.Fatalf("engine %s verdict %s\n%s", r.Engine.ID, r.Verdict, findingsText(r))
	}
	text := findingsText(r)
	text += r.Findings[1].Advice
	for _, want := range []string{"llamacpp:requests_deferred peaked at 8", "slots unknown", "llamacpp:requests_processing peaked at 8",
		"Raise --parallel (-np"} {
		if !strings.Contains(text, want) {
			t.Errorf("findings lack %q:\n%s", want, text)
		}
	}
	// The window's counters (the pages' differences): 84 prompt tokens
	// computed in 0.988187 - 0.747834 s, 6060 from the cache, 3072
	// generated in 171.998 - 99.8451 s of the requests' generation time.
	rt := r.Ratios
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"hit rate", rt.PrefixCacheHitRate, 6060.0 / (6060 + 84)},
		{"prompt tokens", rt.PromptTokens, 6144},
		{"prompt : generation", rt.PromptToGeneration, 2},
		{"prompt processing", rt.PromptProcessingPerS, 84 / (0.988187 - 0.747834)},
		{"decode per token", rt.DecodeSPerToken, (171.998 - 99.8451) / 3072},
		{"generation tokens/s", rt.GenerationTokensPerS, 3072.0 / 15},
	} {
		if math.Abs(c.got-c.want) > 1e-9*math.Max(1, c.want) {
			t.Errorf("%s %v, want %v", c.what, c.got, c.want)
		}
	}
	var b strings.Builder
	if err := r.Render(&b, "text"); err != nil || !strings.Contains(b.String(), "Server: llama.cpp (llamacpp:* metrics)") {
		t.Errorf("render %v:\n%s", err, b.String())
	}
}

// TestLlamaCppVerdicts: the same server's other windows. Requests ran and
// none waited: question 1 rules the queue out, the rest cannot be
// answered, and healthy says so. Every sample idle: nothing is known.
func TestLlamaCppVerdicts(t *testing.T) {
	t.Parallel()
	ran := llamaWindow(t, State{At: 5, Running: 4, Waiting: 0, KVMean: math.NaN(), KVMax: math.NaN(), Preemptions: math.NaN()})
	if ran.Verdict != Healthy || ran.Findings[0].Status != RuledOut ||
		ran.VerdictReason != "question 1 ruled its layer out; questions 4 and 5 could not be answered" {
		t.Errorf("verdict %s (%q)\n%s", ran.Verdict, ran.VerdictReason, findingsText(ran))
	}
	idle := llamaWindow(t)
	if idle.Verdict != Unknown || !strings.Contains(idle.VerdictReason, "no question could be answered") {
		t.Errorf("idle: verdict %s (%q)\n%s", idle.Verdict, idle.VerdictReason, findingsText(idle))
	}
}

// sglangScenario is a server publishing SGLang's names
// (python/sglang/srt/metrics/collector.py@00ae9c159), with the page helper's
// model_name and engine labels.
func sglangScenario(ttft, queue float64, usage float64, retracted float64) *page {
	return newPage().
		hist("sglang:time_to_first_token_seconds", ttftBuckets, obs(ttft, 100)...).
		hist("sglang:queue_time_seconds", latencyBuckets, obs(queue, 100)...).
		hist("sglang:inter_token_latency_seconds", itlBuckets, smoothITL()...).
		hist("sglang:e2e_request_latency_seconds", latencyBuckets, obs(ttft+1, 100)...).
		counter("sglang:prompt_tokens", 90000).counter("sglang:cached_tokens", 45000).counter("sglang:generation_tokens", 10000).
		counter("sglang:num_requests", 100).counter("sglang:num_retracted_requests", retracted).
		gauge("sglang:num_running_reqs", 48).gauge("sglang:num_queue_reqs", 30).gauge("sglang:token_usage", usage)
}

// tgiScenario is a server publishing TGI's names (docs/source/reference/
// metrics.md, router/src/server.rs): per-request validation, queue and
// whole-request durations, the batch and queue gauges, and the batch's
// token budget in use against its total.
func tgiScenario(validation, queue, request, used float64) *page {
	return newPage().
		hist("tgi_request_validation_duration", latencyBuckets, obs(validation, 100)...).
		hist("tgi_request_queue_duration", latencyBuckets, obs(queue, 100)...).
		hist("tgi_request_duration", latencyBuckets, obs(request, 100)...).
		hist("tgi_request_mean_time_per_token_duration", itlBuckets, obs(0.02, 100)...).
		counter("tgi_request_success", 100).
		gauge("tgi_batch_current_size", 32).gauge("tgi_queue_size", 20).
		gauge("tgi_batch_current_max_tokens", used).gauge("tgi_batch_max_total_tokens", 1000)
}

// TestOtherEngines reaches verdicts from SGLang's and TGI's names, each
// finding naming the metric it used.
func TestOtherEngines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, engine string
		page         *page
		want         Verdict
		evidence     string
	}{
		// Queue 1 s of TTFT 1.2 s, token usage 95 %, 12 retractions.
		{"SGLang thrashing", "sglang", sglangScenario(1.2, 1.0, 0.95, 12), QueueMemoryThrashing, "12 retractions"},
		{"SGLang memory", "sglang", sglangScenario(1.2, 1.0, 0.95, 0), QueueMemoryFull, "KV-cache usage (sglang:token_usage) peaked at 95.0 %"},
		// TTFT 50 ms, queue 1 ms: ruled out; ITL even: healthy.
		{"SGLang healthy", "sglang", sglangScenario(0.05, 0.001, 0.3, 0), Healthy, "prefix-cache hit rate 50.0 % of prompt tokens (sglang:cached_tokens / sglang:prompt_tokens)"},
		// Queue 1 s of a 1.5 s request: at least 67 % of TTFT; the batch's
		// budget 950 of 1000 tokens in use, no preemption counter.
		{"TGI memory", "tgi", tgiScenario(0.01, 1.0, 1.5, 950), QueueMemoryFull, "tgi_batch_current_max_tokens / tgi_batch_max_total_tokens"},
		// Budget half used: most likely the batch size binds.
		{"TGI batch limit", "tgi", tgiScenario(0.01, 1.0, 1.5, 500), QueueSeqLimit, "mean queue 1.000 s (tgi_request_queue_duration) is 66.7 % of the mean request 1.500 s"},
		// Validation 0.9 s of a 1.2 s request: the frontend.
		{"TGI frontend", "tgi", tgiScenario(0.9, 0.01, 1.2, 100), PrefillFrontend, "tgi_request_validation_duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := FromScrapes(Input{Sources: []string{"p"}, End: [][]byte{tt.page.bytes()}}, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if r.Engine.ID != tt.engine || r.Verdict != tt.want {
				t.Fatalf("engine %s verdict %s, want %s %s\n%s", r.Engine.ID, r.Verdict, tt.engine, tt.want, findingsText(r))
			}
			if text := findingsText(r); !strings.Contains(text, tt.evidence) {
				t.Errorf("findings lack %q:\n%s", tt.evidence, text)
			}
		})
	}
}

// TestUnknownEngine: a page without any known engine's metrics asks no
// question and says so; the verdict is unknown, never healthy.
func TestUnknownEngine(t *testing.T) {
	t.Parallel()
	page := []byte("process_start_time_seconds 1.7e9\npython_gc_objects_collected_total{generation=\"0\"} 12\nhttp_requests_total 5\n")
	r, err := FromScrapes(Input{Sources: []string{"p"}, End: [][]byte{page}}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != Unknown || r.Engine.Known() || !strings.Contains(r.VerdictReason, "no metrics of a known engine") {
		t.Errorf("verdict %s (%q)", r.Verdict, r.VerdictReason)
	}
	for _, f := range r.Findings {
		if f.Status != Unanswered {
			t.Errorf("question %d: %s", f.Step, f.Status)
		}
	}
	server, _ := r.Object().Get("server")
	if e, _ := server.(interface{ Get(string) (any, bool) }).Get("engine"); e != sm.UnknownID {
		t.Errorf("server.engine %v", e)
	}
}
