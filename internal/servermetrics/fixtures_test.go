package servermetrics

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func parseFile(t *testing.T, name string) *Scrape {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "real", name))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// quantiles is p50, p90, p95, p99 of h.
func quantiles(h *Histogram) []float64 {
	var out []float64
	for _, q := range []float64{0.5, 0.9, 0.95, 0.99} {
		out = append(out, h.Quantile(q).Value)
	}
	return out
}

func checkQuantiles(t *testing.T, what string, h *Histogram, want ...float64) {
	t.Helper()
	got := quantiles(h)
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b float64) bool {
		return (math.IsNaN(a) && math.IsNaN(b)) || math.Abs(a-b) <= 1e-12
	})); diff != "" {
		t.Errorf("%s p50/p90/p95/p99 (-want +got):\n%s", what, diff)
	}
}

// TestRealFixtures reads the published /metrics excerpts (testdata/real,
// SOURCES.md says where each comes from) and checks what gobench reads
// from each, worked out by hand.
func TestRealFixtures(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	t.Run("v0.5.1 TTFT cut before +Inf", func(t *testing.T) {
		// 208 observations in le=0.001, but no +Inf bucket: Prometheus
		// has no quantile then.
		ttft, ok := parseFile(t, "v0.5.1-issue6337-ttft.prom").Histogram(TTFT)
		if !ok || len(ttft.Buckets) != 6 {
			t.Fatalf("TTFT %+v", ttft)
		}
		checkQuantiles(t, "TTFT", ttft, nan, nan, nan, nan)
		if ttft.Total() != 0 {
			t.Errorf("total %v: without +Inf nor _count there is no total", ttft.Total())
		}
	})
	t.Run("untyped TTFT of one request", func(t *testing.T) {
		// One observation in (0.01, 0.02]: rank q x 1 from 0.01 over a
		// bucket of 1 observation: 0.01 + 0.01 x q.
		ttft, ok := parseFile(t, "issue8819-opt125m-ttft.prom").Histogram(TTFT)
		if !ok {
			t.Fatal("no TTFT")
		}
		checkQuantiles(t, "TTFT", ttft, 0.01+0.01*0.5, 0.01+0.01*0.9, 0.01+0.01*0.95, 0.01+0.01*0.99)
		if e := ttft.Quantile(0.99); e.Lower != 0.01 || e.Upper != 0.02 {
			t.Errorf("p99 bucket (%v, %v]", e.Lower, e.Upper)
		}
	})
	t.Run("two models", func(t *testing.T) {
		s := parseFile(t, "pr11117-lora-ttft.prom")
		if diff := cmp.Diff([]string{"meta-llama/Llama-2-7b-hf", "sql-lora"}, s.Models()); diff != "" {
			t.Errorf("models (-want +got):\n%s", diff)
		}
		// sql-lora: its excerpt starts at le=2.5 with its 1 observation:
		// the lowest bucket, from 0: 2.5 x q.
		lora, _ := s.ForModel("sql-lora").Histogram(TTFT)
		checkQuantiles(t, "sql-lora TTFT", lora, 2.5*0.5, 2.5*0.9, 2.5*0.95, 2.5*0.99)
		// The base model's excerpt is cut before +Inf: no quantile.
		base, _ := s.ForModel("meta-llama/Llama-2-7b-hf").Histogram(TTFT)
		checkQuantiles(t, "base TTFT", base, nan, nan, nan, nan)
	})
	t.Run("iteration tokens histogram named _total", func(t *testing.T) {
		// 8 steps, all in the excerpt's lowest bucket le=136: 136 x q.
		it, ok := parseFile(t, "pr11117-lora-iteration-tokens.prom").Histogram(IterationTokens)
		if !ok || it.Count != 8 {
			t.Fatalf("iteration tokens %+v", it)
		}
		checkQuantiles(t, "tokens per step", it, 136*0.5, 136*0.9, 136*0.95, 136*0.99)
	})
}

// TestRealFixturesLater: the gauges, counters and histograms of the later
// excerpts, like TestRealFixtures.
func TestRealFixturesLater(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	t.Run("V1 gauges under V0 names", func(t *testing.T) {
		s := parseFile(t, "ps318-gauges.prom")
		for _, name := range []string{Running, Waiting, KVUsage} {
			if g, ok := s.Gauge(name); !ok || g.Sum != 0 {
				t.Errorf("%s %+v %v", name, g, ok)
			}
		}
		if s.Exposed(KVUsage) != "vllm:gpu_cache_usage_perc" {
			t.Errorf("KV usage read from %q", s.Exposed(KVUsage))
		}
		if g, _ := s.Gauge(ProcessStart); g.Max != 1.74262400557e+09 {
			t.Errorf("process start %v", g.Max)
		}
		if _, ok := s.Counter(PrefixQueries); ok {
			t.Error("a # TYPE line without samples made a counter")
		}
	})
	t.Run("max_tokens cut before +Inf", func(t *testing.T) {
		mt, _ := parseFile(t, "ps318-max-tokens.prom").Histogram(MaxTokensParam)
		checkQuantiles(t, "max_tokens", mt, nan, nan, nan, nan)
	})
	t.Run("v0.10.0 prefix counters and _created", func(t *testing.T) {
		s := parseFile(t, "v0.10.0-ps617-prefix.prom")
		for _, n := range s.Names() {
			if strings.HasSuffix(n, "_created") {
				t.Errorf("%s read", n)
			}
		}
		// The current hits counter is outside the excerpt: the deprecated
		// gpu_prefix_cache_hits (0) stands in; queries 32.
		hits, okH := s.Counter(PrefixHits)
		queries, okQ := s.Counter(PrefixQueries)
		if !okH || !okQ || hits != 0 || queries != 32 {
			t.Errorf("hits %v %v, queries %v %v", hits, okH, queries, okQ)
		}
		if g, _ := s.Gauge(KVUsage); g.Max != 9.75010481363281e-06 {
			t.Errorf("KV usage %v", g.Max)
		}
	})
	t.Run("v0.10.0 whole histogram", func(t *testing.T) {
		// Four requests, all n=1: all in the lowest bucket le=1, from 0:
		// 1 x q. The exact mean is 4/4 = 1.
		n, _ := parseFile(t, "v0.10.0-ps617-params-n.prom").Histogram(NParam)
		checkQuantiles(t, "n", n, 0.5, 0.9, 0.95, 0.99)
		if m, ok := n.Mean(); !ok || m != 1 {
			t.Errorf("mean %v %v", m, ok)
		}
	})
	t.Run("data parallel, every request in +Inf", func(t *testing.T) {
		// Engine 0's 3 requests all above 20000, engine 1's buckets empty:
		// summed by le, the rank falls in +Inf at every quantile, which
		// gives the highest finite bound, 20000 (a lower bound only).
		mt, _ := parseFile(t, "v0.10-pr22227-dp-max-tokens.prom").Histogram(MaxTokensParam)
		checkQuantiles(t, "max_tokens", mt, 20000, 20000, 20000, 20000)
		if e := mt.Quantile(0.5); !e.InInf() || e.Lower != 20000 {
			t.Errorf("estimate %+v", e)
		}
		if mt.Total() != 3 {
			t.Errorf("total %v", mt.Total())
		}
	})
}
