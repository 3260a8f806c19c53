package compare

import (
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestServerView: the verdicts of each run and their changes from the
// baseline, the server figures keyed as --threshold names them, n/a for a
// result without server_view, and no server part when no result has one.
func TestServerView(t *testing.T) {
	t.Parallel()
	c, err := Compare(open(t, "server_healthy.json", "server_kv_thrashing.json", "gobench_fast.json", "server_healthy.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := c.Server
	if s == nil {
		t.Fatal("no server part")
	}
	if diff := cmp.Diff([]string{"healthy", "queue/memory-thrashing", "", "healthy"}, s.Verdicts); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	var changes []string
	for j := 1; j < len(s.Verdicts); j++ {
		changes = append(changes, s.VerdictChange(j))
	}
	if diff := cmp.Diff([]string{VerdictWorse, "", VerdictSame}, changes); diff != "" {
		t.Errorf("verdict changes (-want +got):\n%s", diff)
	}
	other := &ServerView{Verdicts: []string{"queue/seq-limit", "healthy", "queue/memory-full", "unknown"}}
	if got := []string{other.VerdictChange(1), other.VerdictChange(2), other.VerdictChange(3)}; !cmp.Equal(got, []string{VerdictBetter, VerdictChanged, VerdictNotComparable}) {
		t.Errorf("from queue/seq-limit: %q", got)
	}
	// A diagnosis that could not ask its questions says nothing of a change,
	// not even from healthy.
	fromHealthy := &ServerView{Verdicts: []string{"healthy", "unknown"}}
	if got := fromHealthy.VerdictChange(1); got != VerdictNotComparable {
		t.Errorf("healthy -> unknown: %q, want %q", got, VerdictNotComparable)
	}
	rows := map[string]Row{}
	var keys []string
	for _, r := range s.Figures {
		rows[r.Key] = r
		keys = append(keys, r.Key)
	}
	for _, k := range []string{"server_view.quantiles.vllm:time_to_first_token_seconds.p99", "server_view.client_vs_server.ttft.gap_mean",
		"server_view.ratios.preemptions", "server_view.gauges.peak.kv_cache_usage_perc_max_engine"} {
		if _, ok := rows[k]; !ok {
			t.Errorf("no row %s among %q", k, keys)
		}
	}
	for _, k := range []string{"server_view.quantiles.vllm:request_prompt_tokens.p50", "server_view.ratios.spec_decode_acceptance_rate"} {
		if slices.Contains(keys, k) {
			t.Errorf("row %s: token histograms and figures no run has are left out", k)
		}
	}
	p := rows["server_view.ratios.preemptions"]
	if p.Better != Lower || p.Values[0] != 0 || p.Values[1] != 82 || !math.IsNaN(p.Values[2]) || p.Text[2] != "n/a" ||
		!p.missing[2] || p.Changes[0].Abs != 82 || p.Changes[2].Abs != 0 {
		t.Errorf("preemptions row: %+v", p)
	}
	if r := rows["server_view.ratios.prefix_cache_hit_rate"]; r.Better != Higher {
		t.Errorf("prefix-cache hit rate: better %v", r.Better)
	}

	c, err = Compare(open(t, "gobench_fast.json", "gobench_slow.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Server != nil {
		t.Errorf("a server part without server_view: %+v", c.Server)
	}
	if _, ok := c.Object().Get("server_view"); ok {
		t.Error("server_view in the JSON of results without one")
	}
}

func TestVerdictCell(t *testing.T) {
	t.Parallel()
	tests := []struct {
		change     string
		text, mark string
	}{
		{"", "n/a", "n/a"},
		{VerdictSame, "same", "same"},
		{VerdictChanged, "CHANGED", "⚠️ changed"},
		{VerdictWorse, "CHANGED, worse", "🔴 changed, worse"},
		{VerdictBetter, "CHANGED, better", "🟢 changed, better"},
		{VerdictNotComparable, "not comparable", "not comparable"},
	}
	for _, tt := range tests {
		if got := verdictCell(tt.change, false); got != tt.text {
			t.Errorf("verdictCell(%q, text) = %q, want %q", tt.change, got, tt.text)
		}
		if got := verdictCell(tt.change, true); got != tt.mark {
			t.Errorf("verdictCell(%q, markdown) = %q, want %q", tt.change, got, tt.mark)
		}
	}
}
