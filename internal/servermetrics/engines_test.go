package servermetrics

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDetect names the engine by its metric names; a page with none of a
// known engine's is unknown, and so is an empty one.
func TestDetect(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, page, want string }{
		{"vLLM", windowEnd, "vllm"},
		{"llama.cpp", string(readReal(t, "llamacpp-b11669-end.prom")), "llama.cpp"},
		{"SGLang", "sglang:num_running_reqs{model_name=\"m\"} 3\nsglang:num_queue_reqs{model_name=\"m\"} 0\n", "sglang"},
		{"TGI", "# TYPE tgi_queue_size gauge\ntgi_queue_size 2\n# TYPE tgi_request_count counter\ntgi_request_count 9\n", "tgi"},
		{"process metrics only", "process_start_time_seconds 5\npython_info{version=\"3.12\"} 1\n", UnknownID},
		{"empty", "", UnknownID},
	}
	for _, tt := range tests {
		if got := Detect(mustParse(t, tt.page)); got.ID != tt.want {
			t.Errorf("%s: engine %q, want %q", tt.name, got.ID, tt.want)
		}
	}
	if got := Unknown().Describe(); !strings.Contains(got, "llama.cpp llamacpp:*") || !strings.Contains(got, "TGI tgi_*") {
		t.Errorf("unknown engine: %q", got)
	}
}

// TestEngineTables: every engine names its families with its own prefix,
// no name is both a counter and a gauge, and each role appears once.
func TestEngineTables(t *testing.T) {
	t.Parallel()
	for _, e := range Engines() {
		roles := map[Role]bool{}
		for _, h := range e.Histograms {
			if roles[h.Role] {
				t.Errorf("%s: role %s twice", e.ID, h.Role)
			}
			roles[h.Role] = true
		}
		names := append(append(e.counters(), e.gauges()...), e.histogramNames()...)
		for _, n := range names {
			if !strings.HasPrefix(n, e.Prefix) {
				t.Errorf("%s: %s lacks the prefix %s", e.ID, n, e.Prefix)
			}
		}
		for _, c := range e.counters() {
			if expectedKind(c) != KindCounter {
				t.Errorf("%s: counter %s read as %v", e.ID, c, expectedKind(c))
			}
		}
		if e.Source == "" || e.Running == "" || e.LimitFlag == "" {
			t.Errorf("%s: source %q, running %q, limit %q", e.ID, e.Source, e.Running, e.LimitFlag)
		}
	}
}

// TestLlamaCppPages reads llama-server 0.7.0 (b11669)'s pages (testdata/
// real) by the table's names: two scrapes around a run of 48 requests of
// 128 prompt tokens (cached from an earlier identical run) and 64 output
// tokens, and a scrape in the middle of it with 16 requests on 8 slots.
func TestLlamaCppPages(t *testing.T) {
	t.Parallel()
	start, busy, end := mustParse(t, string(readReal(t, "llamacpp-b11669-start.prom"))),
		mustParse(t, string(readReal(t, "llamacpp-b11669-busy.prom"))), mustParse(t, string(readReal(t, "llamacpp-b11669-end.prom")))
	e := Detect(end)
	inc, reset := Increase(start, end)
	if reset != "" {
		t.Fatalf("reset %q", reset)
	}
	// The pages' differences: 8276 - 8192 prompt tokens computed, 6060 -
	// 0 cached, 7168 - 4096 = 3072 = 48 x 64 generated, 171.998 - 99.8451
	// seconds generating.
	for _, c := range []struct {
		name string
		want float64
	}{{e.PromptTokens, 84}, {e.CachedPromptTokens, 6060}, {e.GenerationTokens, 3072}, {e.DecodeSeconds, 171.998 - 99.8451}} {
		if v, ok := inc.Counter(c.name); !ok || math.Abs(v-c.want) > 1e-9 {
			t.Errorf("%s: %v %v, want %v", c.name, v, ok, c.want)
		}
	}
	for _, g := range []struct {
		name string
		want float64
	}{{e.Running, 8}, {e.Waiting, 8}} {
		if v, ok := busy.Gauge(g.name); !ok || v.Sum != g.want {
			t.Errorf("busy %s: %+v %v, want %v", g.name, v, ok, g.want)
		}
	}
}

func readReal(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "real", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
