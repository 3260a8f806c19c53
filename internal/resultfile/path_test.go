package resultfile

import (
	"math"
	"testing"

	"github.com/gobench/gobench/internal/pyjson"
)

// TestLookup: dotted paths into server_view name its numbers and its
// text; top-level keys with dots keep their meaning; a path that leads
// nowhere, or to an object, is no number.
func TestLookup(t *testing.T) {
	t.Parallel()
	r := fixture(t, "server_kv_thrashing.json")[0]
	numbers := []struct {
		key  string
		want float64
	}{
		{"completed", 150},
		{"server_view.ratios.preemptions", 82},
		{"server_view.gauges.peak.kv_cache_usage_perc_max_engine", 1},
		{"server_view.gauges.engines", 1}, // an int in the file
		{"server_view.quantiles.vllm:time_to_first_token_seconds.p99", 0.96875},
		{"server_view.client_vs_server.ttft.gap_mean", 0.0007919411066665827},
		{"server_view.client_vs_server.ttft.client.p99", 0.8127762997399999},
		{"server_view.quantile_buckets.vllm:time_to_first_token_seconds.p99.1", 0}, // lists are not indexed
	}
	for _, tt := range numbers {
		got, ok := r.Number(tt.key)
		if tt.want == 0 {
			if ok {
				t.Errorf("Number(%q) = %v, want none", tt.key, got)
			}
			continue
		}
		if !ok || got != tt.want {
			t.Errorf("Number(%q) = %v, %v; want %v", tt.key, got, ok, tt.want)
		}
	}
	texts := []struct{ key, want string }{
		{"server_view.verdict", "queue/memory-thrashing"},
		{"server_view.client_vs_server.queue.server_metric", "vllm:request_queue_time_seconds"},
		{"server_view.gauges.cache_config.block_size", "16"},
		{"label", "kv-thrashing"},
	}
	for _, tt := range texts {
		if got, ok := r.String(tt.key); !ok || got != tt.want {
			t.Errorf("String(%q) = %q, %v; want %q", tt.key, got, ok, tt.want)
		}
	}
	for _, key := range []string{"server_view", "server_view.ratios", "server_view.nothing", "server_view.ratios.preemptions.x",
		"server_view.verdict", "nothing.at.all", "server_view.client_vs_server.ttfb.gap_mean", "server_view.ratios.spec_decode_acceptance_rate"} {
		if v, ok := r.Number(key); ok {
			t.Errorf("Number(%q) = %v, want none", key, v)
		}
	}
	if v, ok := r.Lookup("server_view.ratios"); !ok {
		t.Error("server_view.ratios: not found")
	} else if _, isObj := v.(*pyjson.Object); !isObj {
		t.Errorf("server_view.ratios = %T", v)
	}
	if v, ok := r.Lookup("server_view.ratios.spec_decode_acceptance_rate"); !ok || v != nil {
		t.Errorf("a null figure: %v, %v", v, ok)
	}
}

// TestLookupDottedNames: a name holding dots is found before a split at
// its dots, at the top level ("p99.9_itl_ms") and inside objects.
func TestLookupDottedNames(t *testing.T) {
	t.Parallel()
	runs, err := Parse("x.json", []byte(`{"duration": 1.0, "p99.9_itl_ms": 5.5, "o": {"a.b": 1, "a": {"b": 2, "c": "NaN"}}, `+
		`"rows": {"list": [{"metric": "ttft", "gap": 0.5}, 3]}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	for key, want := range map[string]float64{"p99.9_itl_ms": 5.5, "o.a.b": 1, "rows.list.ttft.gap": 0.5} {
		if got, ok := r.Number(key); !ok || got != want {
			t.Errorf("Number(%q) = %v, %v; want %v", key, got, ok, want)
		}
	}
	if got, ok := r.Number("o.a.c"); !ok || !math.IsNaN(got) {
		t.Errorf("a non-finite spelling: %v, %v", got, ok)
	}
	if _, ok := r.Number("p99.9_itl_ms.x"); ok {
		t.Error("a path through a number")
	}
}
