package servermetrics

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSpecDecode reads the counters as vLLM's benchmark client does:
// summed over engines, each sample truncated, a timestamped sample left
// out, accepted tokens by position, nothing for a page without them.
func TestSpecDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, page string
		want       *SpecDecode
	}{
		{"engines summed, timestamped sample left out", `# HELP x
vllm:spec_decode_num_drafts_total{engine="0"} 10.0
vllm:spec_decode_num_draft_tokens_total{engine="0"} 30.0
vllm:spec_decode_num_accepted_tokens_total{engine="0"} 15.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",position="0"} 8.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",position="1"} 7.0
vllm:spec_decode_num_drafts_total{engine="1"} 10.0 1700000000
`, &SpecDecode{Drafts: 10, DraftTokens: 30, Accepted: 15, PerPosition: map[int]int{0: 8, 1: 7}}},
		{"typed, two engines, values truncated", `# TYPE vllm:spec_decode_num_drafts_total counter
vllm:spec_decode_num_drafts_total{engine="0"} 4.9
vllm:spec_decode_num_drafts_total{engine="1"} 5.9
# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",position="2"} 3
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",position="2"} 4
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",position="x"} 100
`, &SpecDecode{Drafts: 9, PerPosition: map[int]int{2: 7}}},
		{"no counters", "vllm:num_requests_running 3\n", nil},
		{"only a timestamped sample", "vllm:spec_decode_num_drafts_total 3 1700000000\n", nil},
		{"empty page", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := mustParse(t, tt.page).SpecDecode()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SpecDecode (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPrefixCache sums the engines' lookups and hits, leaves the
// external cache's out, and needs both counters.
func TestPrefixCache(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, page    string
		queries, hits float64
		ok            bool
	}{
		{"two engines", `# HELP vllm:prefix_cache_queries_total Prefix cache queries
vllm:prefix_cache_queries_total{engine="0"} 100
vllm:prefix_cache_queries_total{engine="1"} 50
vllm:prefix_cache_hits_total{engine="0"} 40
vllm:prefix_cache_hits_total{engine="1"} 20
vllm:external_prefix_cache_hits_total{engine="0"} 1000
`, 150, 60, true},
		{"V0 names", "vllm:gpu_prefix_cache_queries_total 10\nvllm:gpu_prefix_cache_hits_total 4\n", 10, 4, true},
		{"no counters", "# none\n", 0, 0, false},
		{"queries only", "vllm:prefix_cache_queries_total 100\n", 0, 0, false},
		{"hits only", "vllm:prefix_cache_hits_total 50\n", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q, h, ok := mustParse(t, tt.page).PrefixCache()
			if ok != tt.ok || (ok && (q != tt.queries || h != tt.hits)) {
				t.Errorf("PrefixCache = %v, %v, %v; want %v, %v, %v", q, h, ok, tt.queries, tt.hits, tt.ok)
			}
		})
	}
}
