package gate

import "testing"

// TestSuggest: the nearest key for typos, swapped words and fragments;
// none for a key that is there or nothing like any.
func TestSuggest(t *testing.T) {
	t.Parallel()
	keys := []string{"mean_ttft_ms", "median_ttft_ms", "p90_ttft_ms", "p99_ttft_ms", "p99_itl_ms", "p99_tpot_ms",
		"request_throughput", "output_throughput", "rtfx", "failed_ratio"}
	tests := []struct{ key, want string }{
		{"p99_ttf_ms", "p99_ttft_ms"},
		{"p99_tfft_ms", "p99_ttft_ms"},
		{"P99_TTFT_MS", "p99_ttft_ms"},
		{"ttft_p99_ms", "p99_ttft_ms"},
		{"p99_ttft", "p99_ttft_ms"},
		{"request_throughput", ""},
		{"failed_ration", "failed_ratio"},
		{"zzzzzz", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Suggest(tt.key, keys); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}
