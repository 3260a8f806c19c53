package servermetrics

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustParse(t *testing.T, text string) *Scrape {
	t.Helper()
	s, err := Parse([]byte(text))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s
}

// TestParseKinds checks how families are typed and named: counters
// without _total (typed or untyped), _created ignored, untyped histograms
// reassembled with their _sum and _count, vLLM's untyped counters known,
// other untyped samples gauges.
func TestParseKinds(t *testing.T) {
	t.Parallel()
	s := mustParse(t, `# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{model_name="m"} 100
# TYPE vllm:prompt_tokens_created gauge
vllm:prompt_tokens_created{model_name="m"} 1.7e9
vllm:num_preemptions 3
vllm:generation_tokens_total 40
vllm:num_requests_running 2
vllm:e2e_request_latency_seconds_bucket{le="1"} 1
vllm:e2e_request_latency_seconds_bucket{le="+Inf"} 4
vllm:e2e_request_latency_seconds_sum 9.5
vllm:e2e_request_latency_seconds_count 4
# TYPE vllm:iteration_tokens_total histogram
vllm:iteration_tokens_total_bucket{le="8"} 2
vllm:iteration_tokens_total_bucket{le="+Inf"} 3
vllm:iteration_tokens_total_count 3
vllm:iteration_tokens_total_sum 30
`)
	want := map[string]Kind{
		"vllm:prompt_tokens": KindCounter, "vllm:num_preemptions": KindCounter, "vllm:generation_tokens": KindCounter,
		"vllm:num_requests_running": KindGauge, "vllm:e2e_request_latency_seconds": KindHistogram,
		"vllm:iteration_tokens_total": KindHistogram,
	}
	got := map[string]Kind{}
	for _, n := range s.Names() {
		f, _ := s.Family(n)
		got[n] = f.Kind
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("families (-want +got):\n%s", diff)
	}
	if v, _ := s.Counter(PromptTokens); v != 100 {
		t.Errorf("prompt tokens %v", v)
	}
	e2e, _ := s.Histogram(E2E)
	if e2e.Total() != 4 || !e2e.HasSum || e2e.Sum != 9.5 || !e2e.HasCount {
		t.Errorf("e2e %+v", e2e)
	}
	if m, ok := e2e.Mean(); !ok || m != 9.5/4 {
		t.Errorf("mean %v %v", m, ok)
	}
	it, _ := s.Histogram(IterationTokens)
	if it.Total() != 3 || it.Sum != 30 {
		t.Errorf("iteration tokens %+v", it)
	}
}

// TestParseOpenMetrics reads a page in OpenMetrics (it ends with # EOF):
// counters keep their family name without _total, _created is ignored.
func TestParseOpenMetrics(t *testing.T) {
	t.Parallel()
	s := mustParse(t, `# TYPE vllm:num_preemptions counter
vllm:num_preemptions_total{model_name="m"} 3
vllm:num_preemptions_created{model_name="m"} 1.7e9
# TYPE vllm:request_queue_time_seconds histogram
vllm:request_queue_time_seconds_bucket{le="0.3",model_name="m"} 2
vllm:request_queue_time_seconds_bucket{le="+Inf",model_name="m"} 5
vllm:request_queue_time_seconds_count{model_name="m"} 5
vllm:request_queue_time_seconds_sum{model_name="m"} 4.5
# EOF
`)
	if v, ok := s.Counter(Preemptions); !ok || v != 3 {
		t.Errorf("preemptions %v %v", v, ok)
	}
	if q, ok := s.Histogram(Queue); !ok || q.Total() != 5 {
		t.Errorf("queue %+v", q)
	}
	// What only the OpenMetrics decoder reads: a timestamp in seconds and
	// an exemplar.
	om := mustParse(t, `# TYPE vllm:num_preemptions counter
vllm:num_preemptions_total{model_name="m"} 3 1.7e9
# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_bucket{le="1"} 1 # {trace_id="a"} 0.5
vllm:e2e_request_latency_seconds_bucket{le="+Inf"} 2
vllm:e2e_request_latency_seconds_count 2
vllm:e2e_request_latency_seconds_sum 1.5
# EOF
`)
	if v, _ := om.Counter(Preemptions); v != 3 {
		t.Errorf("preemptions with a timestamp %v", v)
	}
	if e2e, ok := om.Histogram(E2E); !ok || e2e.Total() != 2 {
		t.Errorf("e2e with an exemplar %+v", e2e)
	}
	if !IsOpenMetrics([]byte("a 1\n# EOF\n\n")) || IsOpenMetrics([]byte("a 1\n")) {
		t.Error("IsOpenMetrics")
	}
}

// TestParseAliases reads V0 names under the current ones, preferring the
// current name when a server in transition exposes both.
func TestParseAliases(t *testing.T) {
	t.Parallel()
	s := mustParse(t, `vllm:gpu_cache_usage_perc 0.5
vllm:time_per_output_token_seconds_bucket{le="0.1"} 1
vllm:time_per_output_token_seconds_bucket{le="+Inf"} 1
`)
	if g, ok := s.Gauge(KVUsage); !ok || g.Max != 0.5 || s.Exposed(KVUsage) != "vllm:gpu_cache_usage_perc" {
		t.Errorf("KV usage %+v %v %q", g, ok, s.Exposed(KVUsage))
	}
	if _, ok := s.Histogram(ITL); !ok {
		t.Error("ITL not read from vllm:time_per_output_token_seconds")
	}
	both := mustParse(t, "vllm:gpu_cache_usage_perc 0.5\nvllm:kv_cache_usage_perc 0.7\n")
	if g, _ := both.Gauge(KVUsage); g.Max != 0.7 {
		t.Errorf("both names: read %v, want the current name's 0.7", g.Max)
	}
}

// TestParseNotNumbers drops NaN and infinite samples, and histograms
// with bad counts, with a note each; a NaN sum only loses the mean.
func TestParseNotNumbers(t *testing.T) {
	t.Parallel()
	s := mustParse(t, `vllm:kv_cache_usage_perc NaN
vllm:num_requests_running +Inf
# TYPE vllm:num_preemptions_total counter
vllm:num_preemptions_total{engine="0"} NaN
vllm:num_preemptions_total{engine="1"} 2
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{le="1"} NaN
vllm:time_to_first_token_seconds_bucket{le="+Inf"} 3
# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_bucket{le="1"} 1
vllm:e2e_request_latency_seconds_bucket{le="+Inf"} +Inf
# TYPE vllm:request_queue_time_seconds histogram
vllm:request_queue_time_seconds_bucket{le="1"} 1
vllm:request_queue_time_seconds_bucket{le="+Inf"} 2
vllm:request_queue_time_seconds_sum NaN
vllm:request_queue_time_seconds_count 2
`)
	if _, ok := s.Gauge(KVUsage); ok {
		t.Error("NaN gauge kept")
	}
	if _, ok := s.Gauge(Running); ok {
		t.Error("infinite gauge kept")
	}
	if v, _ := s.Counter(Preemptions); v != 2 {
		t.Errorf("preemptions %v, want the finite series' 2", v)
	}
	for _, name := range []string{TTFT, E2E} {
		if _, ok := s.Histogram(name); ok {
			t.Errorf("%s kept", name)
		}
	}
	q, _ := s.Histogram(Queue)
	if q.HasSum || q.Total() != 2 {
		t.Errorf("queue %+v", q)
	}
	if _, ok := q.Mean(); ok {
		t.Error("mean of a NaN sum")
	}
	if len(s.Notes) != 6 {
		t.Errorf("notes %q", s.Notes)
	}
}

// TestParseErrors names the line of a malformed page, in both formats;
// an empty page has no families.
func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"vllm:x 1\nvllm:y{a=\"b\" 2\n",
		"# TYPE a counter\na_total 1\na_total{ 2\n# EOF\n",
		"a 1 2 3 4\n",
	} {
		_, err := Parse([]byte(text))
		if err == nil || !strings.Contains(err.Error(), "line") {
			t.Errorf("Parse(%q) = %v, want an error naming the line", text, err)
		}
	}
	s := mustParse(t, "")
	if len(s.Names()) != 0 {
		t.Errorf("empty page: %v", s.Names())
	}
}

// TestModels lists model_name values and narrows to one, keeping series
// without the label.
func TestModels(t *testing.T) {
	t.Parallel()
	s := mustParse(t, `vllm:num_requests_running{model_name="a"} 1
vllm:num_requests_running{model_name="b"} 2
vllm:cache_config_info{block_size="16"} 1
`)
	if diff := cmp.Diff([]string{"a", "b"}, s.Models()); diff != "" {
		t.Errorf("models (-want +got):\n%s", diff)
	}
	b := s.ForModel("b")
	if g, _ := b.Gauge(Running); g.Sum != 2 {
		t.Errorf("running of b %v", g.Sum)
	}
	if infos := b.Infos(CacheConfigInfo); len(infos) != 1 || infos[0]["block_size"] != "16" {
		t.Errorf("cache config %v", infos)
	}
}

// TestGaugeAndBy sums, averages and maxes a gauge over engines, and splits
// counters and gauges by a label.
func TestGaugeAndBy(t *testing.T) {
	t.Parallel()
	s := mustParse(t, `vllm:kv_cache_usage_perc{engine="0"} 0.2
vllm:kv_cache_usage_perc{engine="1"} 0.6
vllm:num_requests_waiting_by_reason{reason="capacity"} 3
vllm:num_requests_waiting_by_reason{reason="deferred"} 1
vllm:request_success_total{finished_reason="stop",engine="0"} 5
vllm:request_success_total{finished_reason="stop",engine="1"} 2
vllm:request_success_total{finished_reason="length",engine="1"} 1
`)
	g, _ := s.Gauge(KVUsage)
	if g.N != 2 || math.Abs(g.Mean-0.4) > 1e-12 || g.Max != 0.6 || math.Abs(g.Sum-0.8) > 1e-12 {
		t.Errorf("gauge %+v", g)
	}
	if diff := cmp.Diff(map[string]float64{"capacity": 3, "deferred": 1}, s.GaugeBy(WaitingByReason, "reason")); diff != "" {
		t.Errorf("waiting by reason (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]float64{"stop": 7, "length": 1}, s.CounterBy(RequestSuccess, "finished_reason")); diff != "" {
		t.Errorf("finished by reason (-want +got):\n%s", diff)
	}
}
