package run

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/servermetrics"
	"github.com/gobench/gobench/internal/tokenizer"
)

// Tests of what a run does around the measured requests: the ready check
// (whose loop serverapi tests), the server's /metrics scrapes and the
// PyTorch export.

// TestReadyCheckFailureStopsRun: a server that never answers well gives
// vLLM's "Initial test run failed" error before any measured request.
func TestReadyCheckFailureStopsRun(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	o := baseOptions(srv.URL)
	o.Model, o.Tokenizer = "m", tokenizer.BuiltinName
	o.ReadyCheckTimeout = time.Second
	var b buffers
	_, err := Serve(context.Background(), o, b.env())
	if err == nil || !strings.HasPrefix(err.Error(), "Initial test run failed - Please make sure benchmark arguments are correctly specified. Error: HTTP 503") {
		t.Fatalf("err = %v", err)
	}
}

func TestParseSpecDecode(t *testing.T) {
	t.Parallel()
	// The page's reading is servermetrics' (TestSpecDecode there): here
	// the counters of the first scrape as it reads them.
	before := &servermetrics.SpecDecode{Drafts: 10, DraftTokens: 30, Accepted: 15, PerPosition: map[int]int{0: 8, 1: 7}}
	after, _ := readCounters([]byte(`vllm:spec_decode_num_drafts_total{engine="0"} 50.0
vllm:spec_decode_num_draft_tokens_total{engine="0"} 150.0
vllm:spec_decode_num_accepted_tokens_total{engine="0"} 95.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",position="0"} 40.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",position="1"} 31.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",position="2"} 24.0
`))
	s := specDecodeStats(before, after)
	// Deltas: drafts 40, draft tokens 120, accepted 80 → 66.67 %, length 3.
	// Position 2 is new: its before value is 0 → 24/40.
	if s == nil || s.NumDrafts != 40 || s.DraftTokens != 120 || s.AcceptedTokens != 80 ||
		math.Abs(s.AcceptanceRate-200.0/3) > 1e-12 || s.AcceptanceLength != 3 {
		t.Fatalf("%+v", s)
	}
	if want := []float64{32.0 / 40, 24.0 / 40, 24.0 / 40}; fmt.Sprint(s.PerPositionAcceptanceRates) != fmt.Sprint(want) {
		t.Errorf("per position %v, want %v", s.PerPositionAcceptanceRates, want)
	}
	if spec, _ := readCounters([]byte("vllm:num_requests_running 3\n")); spec != nil {
		t.Error("counters found where there are none")
	}
}

// TestWarmPrefixCache follows test_serve_warm_prefix_cache.py@5634106f.
func TestWarmPrefixCache(t *testing.T) {
	t.Parallel()
	// The page's reading is servermetrics' (TestPrefixCache there: engines
	// summed, the external cache's left out, both counters needed).
	_, c := readCounters([]byte("vllm:prefix_cache_queries_total 150\nvllm:prefix_cache_hits_total 60\n"))
	if c == nil || c.queries != 150 || c.hits != 60 {
		t.Fatalf("%+v", c)
	}
	for _, text := range []string{"# none\n", "vllm:prefix_cache_queries_total 100\n", "vllm:prefix_cache_hits_total 50\n"} {
		if _, c := readCounters([]byte(text)); c != nil {
			t.Errorf("%q parsed as counters", text)
		}
	}
	ds := func(name string, prefix, input int) dataset.Options {
		d := dataset.DefaultOptions()
		d.Name, d.RandomPrefixLen, d.RandomInputLen = name, prefix, input
		return d
	}
	before := &prefixCounters{100, 10}
	if w := warmPrefixCache(ds("random", 0, 1024), before, &prefixCounters{200, 108}); !strings.Contains(w, "98.0% prefix cache hit rate") || !strings.Contains(w, "--reset-prefix-cache") {
		t.Errorf("no warning: %q", w)
	}
	for _, tc := range []struct {
		ds    string
		after *prefixCounters
	}{{"random", &prefixCounters{1100, 19}}, {"sharegpt", &prefixCounters{200, 108}}, {"random", &prefixCounters{50, 5}}} {
		if w := warmPrefixCache(ds(tc.ds, 0, 1024), before, tc.after); w != "" {
			t.Errorf("%s %+v: unexpected warning %q", tc.ds, tc.after, w)
		}
	}
	// A shared --random-prefix-len explains its own hits: 512 of 1024 tokens.
	if w := warmPrefixCache(ds("random", 512, 512), before, &prefixCounters{200, 70}); w != "" {
		t.Errorf("prefix hits warned: %q", w)
	}
}

// TestPyTorchFormat: with SAVE_TO_PYTORCH_BENCHMARK_FORMAT set, a
// {stem}.pytorch.json with one record per metric is written next to the
// result.
func TestPyTorchFormat(t *testing.T) {
	t.Parallel()
	srv := startSim(t, time.Millisecond, time.Millisecond)
	dir := t.TempDir()
	o := baseOptions(srv.URL)
	o.NumPrompts, o.Dataset.NumPrompts = 3, 3
	o.SaveResult, o.ResultDir, o.ResultFilename = true, dir, "r.json"
	var b buffers
	env := b.env()
	env.Getenv = func(k string) string {
		if k == "SAVE_TO_PYTORCH_BENCHMARK_FORMAT" {
			return "1"
		}
		return ""
	}
	if _, err := Serve(context.Background(), o, env); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "r.pytorch.json"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	if err := json.Unmarshal(raw, &recs); err != nil {
		t.Fatal(err)
	}
	// ttft, tpot, itl selected by default: 3 metrics × median/mean/std/p99.
	if len(recs) != 12 {
		t.Errorf("%d records, want 12", len(recs))
	}
}
