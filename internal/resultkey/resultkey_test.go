package resultkey

import (
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPercentileLabel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p    float64
		want string
	}{
		{99, "99"},                  // integral: int text
		{50, "50"},                  // integral
		{0, "0"},                    // zero
		{100, "100"},                // maximum
		{99.9, "99.9"},              // Python float text
		{12.5, "12.5"},              // Python float text
		{1e-5, "1e-05"},             // Python's scientific repr
		{math.Copysign(0, -1), "0"}, // int(-0.0) == -0.0
	}
	for _, tt := range tests {
		if got := PercentileLabel(tt.p); got != tt.want {
			t.Errorf("PercentileLabel(%v) = %q, want %q", tt.p, got, tt.want)
		}
	}
}

func TestParseStatKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key    string
		metric string
		st     Stat
		ok     bool
	}{
		{"mean_ttft_ms", "ttft", Stat{Kind: Mean}, true},
		{"median_itl_ms", "itl", Stat{Kind: Median}, true},
		{"std_ttft_ms", "ttft", Stat{Kind: Std}, true},
		{"p99_tpot_ms", "tpot", Stat{Kind: Percentile, P: 99}, true},
		{"p99.9_e2el_ms", "e2el", Stat{Kind: Percentile, P: 99.9}, true},
		{"p1e-05_e2el_ms", "e2el", Stat{Kind: Percentile, P: 1e-05}, true},
		{"p50_e2el_including_client_queue_ms", "e2el_including_client_queue", Stat{Kind: Percentile, P: 50}, true},
		{"mean_client_queue_time_ms", "client_queue_time", Stat{Kind: Mean}, true},
		{"p101_ttft_ms", "", Stat{}, false},
		{"pnan_ttft_ms", "", Stat{}, false},
		{"mean_foo_ms", "", Stat{}, false},
		{"max_ttft_ms", "", Stat{}, false},
		{"percentiles_ttft_ms", "", Stat{}, false}, // older vLLM's list of pairs
		{"ttfts", "", Stat{}, false},
	}
	for _, tt := range tests {
		m, st, ok := ParseStatKey(tt.key)
		if m != tt.metric || st != tt.st || ok != tt.ok {
			t.Errorf("ParseStatKey(%q) = %q %+v %v, want %q %+v %v", tt.key, m, st, ok, tt.metric, tt.st, tt.ok)
		}
	}
}

// TestStatKeyRoundTrip: ParseStatKey inverts StatKey for every metric and
// statistic, percentiles that need Python's float text included.
func TestStatKeyRoundTrip(t *testing.T) {
	t.Parallel()
	for _, m := range Metrics() {
		for _, st := range SectionStats([]float64{0, 1e-05, 0.1, 12.5, 50, 99, 99.9, 99.99, 100}) {
			key := StatKey(m.Key, st)
			gotM, gotSt, ok := ParseStatKey(key)
			if !ok || gotM != m.Key || gotSt != st {
				t.Errorf("ParseStatKey(%q) = %q %+v %v, want %q %+v", key, gotM, gotSt, ok, m.Key, st)
			}
			if !WellFormed(key) {
				t.Errorf("StatKey %q is not WellFormed", key)
			}
		}
	}
}

func TestDirection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key  string
		want Better
	}{
		{"p99_ttft_ms", Lower}, {"std_itl_ms", Lower}, {"failed", Lower}, {"failed_ratio", Lower}, {"duration", Lower},
		{"request_throughput", Higher}, {"request_goodput", Higher}, {"output_throughput", Higher}, {"completed", Higher},
		{"total_input_tokens", Neither}, {"max_concurrent_requests", Neither}, {"num_prompts", Neither},
		{"", Neither}, {"my_metadata", Neither},
	}
	for _, tt := range tests {
		if got := Direction(tt.key); got != tt.want {
			t.Errorf("Direction(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}

func TestIsSetting(t *testing.T) {
	t.Parallel()
	var settings []string
	for _, k := range full().Keys() {
		if IsSetting(k.Name) {
			settings = append(settings, k.Name)
		}
	}
	want := []string{"date", "endpoint_type", "backend", "label", "model_id", "tokenizer_id", "num_prompts",
		"request_rate", "burstiness", "max_concurrency", "ramp_up_strategy", "ramp_up_start_rps", "ramp_up_end_rps",
		"num_warmups", "end_reason"}
	if diff := cmp.Diff(want, settings); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
	for _, k := range []string{"", "failed_ratio", "mean_ttft_ms", "tp"} {
		if IsSetting(k) {
			t.Errorf("IsSetting(%q) = true", k)
		}
	}
}

// full selects everything.
func full() Selection {
	return Selection{
		PercentileMetrics: []string{"ttft", "tpot", "itl", "e2el"}, Percentiles: []float64{50, 99.9},
		Tokenizer: true, ClientQueue: true, RampUp: true, Detailed: true, ReportCachedTokens: true,
	}
}

func TestKeys(t *testing.T) {
	t.Parallel()
	var names, server []string
	seen := map[string]bool{}
	for _, k := range full().Keys() {
		names = append(names, k.Name)
		if k.Server {
			server = append(server, k.Name)
		}
		if seen[k.Name] {
			t.Errorf("key %q twice", k.Name)
		}
		seen[k.Name] = true
		if !WellFormed(k.Name) {
			t.Errorf("key %q is not WellFormed", k.Name)
		}
	}
	wantServer := []string{"server_queue_times", "server_ttfts", "server_prompt_times", "server_decode_times", "total_cached_tokens",
		"spec_decode_acceptance_rate", "spec_decode_acceptance_length", "spec_decode_num_drafts",
		"spec_decode_draft_tokens", "spec_decode_accepted_tokens", "spec_decode_per_position_acceptance_rates", "server_view"}
	if diff := cmp.Diff(wantServer, server); diff != "" {
		t.Errorf("server keys (-want +got):\n%s", diff)
	}
	if len(names) != 50+6*5 {
		t.Errorf("%d keys, want %d: %q", len(names), 50+6*5, names)
	}
	// The bare minimum: no sections, nothing optional.
	minimal := Selection{PercentileMetrics: []string{"ttft"}, Percentiles: []float64{99}}
	var got []string
	for _, k := range minimal.Keys() {
		if !k.Server {
			got = append(got, k.Name)
		}
	}
	want := []string{"date", "endpoint_type", "backend", "label", "model_id", "tokenizer_id", "num_prompts",
		"request_rate", "burstiness", "max_concurrency", "duration", "completed", "failed",
		"total_input_tokens", "total_output_tokens", "request_throughput", "request_goodput",
		"output_throughput", "total_token_throughput", "max_output_tokens_per_s", "max_concurrent_requests",
		"rtfx", "num_warmups"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("minimal keys (-want +got):\n%s", diff)
	}
	for key, want := range map[string]bool{"failed_ratio": true, "spec_decode_num_drafts": true,
		"total_cached_tokens": false, "mean_ttft_ms": false, "ramp_up_end_rps": false, "ttfts": false, "tp": false} {
		if got := minimal.Has(key); got != want {
			t.Errorf("minimal.Has(%q) = %v, want %v", key, got, want)
		}
	}
}

// TestPoolingKeys: a pooling result has vLLM's pooling keys
// (serve.py@11dfa3169 benchmark, EmbedBenchmarkMetrics) and no
// failed_ratio, which needs failed.
func TestPoolingKeys(t *testing.T) {
	t.Parallel()
	sel := Selection{PercentileMetrics: []string{"e2el"}, Percentiles: []float64{99}, Tokenizer: true, Detailed: true, Pooling: true}
	var got []string
	for _, k := range sel.Keys() {
		if !k.Server {
			got = append(got, k.Name)
		}
	}
	want := []string{"date", "endpoint_type", "backend", "label", "model_id", "tokenizer_id", "num_prompts",
		"request_rate", "burstiness", "max_concurrency", "duration", "completed", "total_input_tokens",
		"request_throughput", "total_token_throughput", "input_lens", "errors",
		"mean_e2el_ms", "median_e2el_ms", "std_e2el_ms", "p99_e2el_ms", "num_warmups", "scheduled_offsets", "end_reason"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pooling keys (-want +got):\n%s", diff)
	}
	if sel.Has(FailedRatio) || sel.Has(Failed) {
		t.Error("a pooling result has failed or failed_ratio")
	}
	if sel.CanCompute("p90_e2el_ms") {
		t.Error("a pooling result has no per-request latencies to compute p90_e2el_ms from")
	}
}

func TestSections(t *testing.T) {
	t.Parallel()
	all := []string{"ttft", "tpot", "itl", "e2el", "client_queue_time", "e2el_including_client_queue"}
	tests := []struct {
		name string
		sel  Selection
		want []string
	}{
		{"default", Selection{PercentileMetrics: []string{"ttft", "tpot", "itl"}, Tokenizer: true}, []string{"ttft", "tpot", "itl"}},
		{"no tokenizer", Selection{PercentileMetrics: all}, []string{"e2el"}},
		{"queue selected, not measured", Selection{PercentileMetrics: all, Tokenizer: true}, []string{"ttft", "tpot", "itl", "e2el"}},
		// test_serve_queue_time.py@0e913f02: the queue sections follow whatever is selected
		{"queue measured", Selection{PercentileMetrics: []string{"ttft", "e2el"}, Tokenizer: true, ClientQueue: true},
			[]string{"ttft", "e2el", "client_queue_time", "e2el_including_client_queue"}},
		{"unknown and untrimmed names", Selection{PercentileMetrics: []string{"ttft", " tpot", "foo"}, Tokenizer: true}, []string{"ttft"}},
		// serve.py@11dfa3169 benchmark: a pooling run reports e2el alone.
		{"pooling", Selection{PercentileMetrics: all, Tokenizer: true, ClientQueue: true, Pooling: true}, []string{"e2el"}},
		{"pooling without e2el", Selection{PercentileMetrics: []string{"ttft"}, Tokenizer: true, Pooling: true}, nil},
	}
	for _, tt := range tests {
		var got []string
		for _, m := range tt.sel.Sections() {
			got = append(got, m.Key)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: sections (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestRequestLists(t *testing.T) {
	t.Parallel()
	want := []string{"input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times", "queue_times",
		"generated_texts", "errors", "server_queue_times", "server_ttfts", "server_prompt_times", "server_decode_times"}
	if diff := cmp.Diff(want, RequestLists()); diff != "" {
		t.Errorf("RequestLists (-want +got):\n%s", diff)
	}
}

func TestPyTorchKeys(t *testing.T) {
	t.Parallel()
	var want []string
	for _, m := range []string{"ttft", "tpot", "itl", "e2el"} {
		want = append(want, "median_"+m+"_ms", "mean_"+m+"_ms", "std_"+m+"_ms", "p99_"+m+"_ms")
	}
	if diff := cmp.Diff(want, PyTorchKeys()); diff != "" {
		t.Errorf("PyTorchKeys (-want +got):\n%s", diff)
	}
}

func TestWellFormed(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]bool{
		"p99_ttft_ms": true, "p99.9_itl_ms": true, "p1e-05_ttft_ms": true, "_x": true, "failed_ratio": true,
		"": false, "9lives": false, ".x": false, "p99 ttft": false, "a=b": false, "ttft€": false,
	} {
		if got := WellFormed(key); got != want {
			t.Errorf("WellFormed(%q) = %v, want %v", key, got, want)
		}
	}
}

// TestWorkloadKey: gobench_workload is a setting, after num_warmups,
// present exactly with Selection.Workload.
func TestWorkloadKey(t *testing.T) {
	t.Parallel()
	sel := full()
	sel.Workload = true
	var names []string
	for _, k := range sel.Keys() {
		names = append(names, k.Name)
	}
	i := slices.Index(names, GobenchWorkload)
	if i < 0 || names[i-1] != NumWarmups || names[i+1] != GobenchVersion || names[i+2] != ResentRequests ||
		names[i+3] != FailureKinds || names[i+4] != ServerView || names[i+5] != ScheduledOffsets || IsSetting(ResentRequests) ||
		!IsSetting(GobenchWorkload) || !IsSetting(GobenchVersion) {
		t.Errorf("gobench_workload at %d of %q", i, names)
	}
	if full().Has(GobenchWorkload) || full().Has(GobenchVersion) || full().Has(ResentRequests) || full().Has(FailureKinds) {
		t.Error("a selection without Workload has gobench_workload or gobench_version")
	}
}

func TestCanCompute(t *testing.T) {
	t.Parallel()
	def := Selection{PercentileMetrics: []string{"ttft", "tpot", "itl"}, Percentiles: []float64{99}, Tokenizer: true}
	noTok := def
	noTok.Tokenizer = false
	queue := def
	queue.ClientQueue = true
	tests := []struct {
		sel  Selection
		key  string
		want bool
	}{
		{def, "p95_ttft_ms", true},               // another percentile
		{def, "p99.9_e2el_ms", true},             // another metric
		{def, "std_e2el_ms", true},               // another metric's std
		{def, "p95.0_ttft_ms", true},             // spelled otherwise, computable
		{def, "p99_ttft_ms", false},              // in the result already
		{def, "p99_client_queue_time_ms", false}, // no --max-concurrency
		{queue, "p50_client_queue_time_ms", true},
		{noTok, "p95_ttft_ms", false}, // TTFT needs a tokenizer
		{noTok, "p95_e2el_ms", true},
		{def, "request_throughput", false}, // not a statistic
		{def, "p101_ttft_ms", false},
	}
	for _, tt := range tests {
		if got := tt.sel.CanCompute(tt.key); got != tt.want {
			t.Errorf("%+v.CanCompute(%q) = %v, want %v", tt.sel, tt.key, got, tt.want)
		}
	}
}

func TestZeroIsMeaningful(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]bool{
		Completed: true, Failed: true, FailedRatio: true,
		RTFx: false, TotalCachedTokens: false, "p99_ttft_ms": false, "my_metadata": false,
	} {
		if got := ZeroIsMeaningful(key); got != want {
			t.Errorf("ZeroIsMeaningful(%q) = %v, want %v", key, got, want)
		}
	}
}

// TestGobenchObjectPaths: a dotted path into gobench's objects takes the
// direction of the key of its name, is in a result when its object is, and
// a comparison shows only the figures whose direction is known.
func TestGobenchObjectPaths(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]Better{
		"gobench_steady_state.request_throughput": Higher,
		"gobench_steady_state.p99_ttft_ms":        Lower,
		"gobench_steady_state.start_s":            Neither,
		"gobench_client.schedule_lag_p99_ms":      Lower,
		"server_view.ratios.preemptions":          Neither, // compare's own rows give it one
	} {
		if got := Direction(key); got != want {
			t.Errorf("Direction(%s) = %v, want %v", key, got, want)
		}
	}
	sel := Selection{SteadyState: true}
	if !sel.Has("gobench_steady_state.p99_ttft_ms") || sel.Has("gobench_client.schedule_lag_p99_ms") || sel.Has("nope.x") {
		t.Error("Has: want the steady state's paths only")
	}
	got := Figures(GobenchClient, []string{ClientLagP99MS, ClientLagWarnMS, ClientBottleneck, ClientCPUShare})
	if diff := cmp.Diff([]string{"gobench_client.schedule_lag_p99_ms"}, got); diff != "" {
		t.Errorf("Figures (-want +got)\n%s", diff)
	}
	if Figures(ServerView, []string{"verdict"}) != nil {
		t.Error("Figures of server_view: compare has its own section for it")
	}
}
