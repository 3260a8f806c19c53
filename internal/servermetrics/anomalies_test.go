package servermetrics

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// seedTTFTPage is the TTFT histogram of the design notes' sample scrape
// (internal/diagnose/testdata/seed-sample.prom), 3000 requests.
const seedTTFTPage = `vllm:time_to_first_token_seconds_bucket{le="0.05"} 120
vllm:time_to_first_token_seconds_bucket{le="0.1"} 480
vllm:time_to_first_token_seconds_bucket{le="0.25"} 1630
vllm:time_to_first_token_seconds_bucket{le="0.5"} 2410
vllm:time_to_first_token_seconds_bucket{le="1.0"} 2790
vllm:time_to_first_token_seconds_bucket{le="2.5"} 2950
vllm:time_to_first_token_seconds_bucket{le="5.0"} 2990
vllm:time_to_first_token_seconds_bucket{le="+Inf"} 3000
`

// seedTTFTP99 is the seed's TTFT p99 by Prometheus' histogram_quantile
// (promql/quantile.go, bucketQuantile), worked by hand: rank 0.99 x 3000
// = 2970 falls in (2.5, 5.0], which holds 2990 - 2950 = 40 observations
// from 2950: 2.5 + (5.0 - 2.5) x (2970 - 2950) / 40 = 3.75.
const seedTTFTP99 = 3.75

// TestBucketAnomalies reads histograms a server wrote wrongly, each with
// the figure Prometheus' rules give (worked out in each case's comment)
// and a note that says what was wrong.
func TestBucketAnomalies(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	tests := []struct {
		name, page string
		p99        float64
		note       string
	}{
		// le="0.5" written again as le="0.50" with the same count: one
		// bucket. Adding the two (Prometheus' rule for two series with
		// the same bound) would make 4820 of 3000 observations and put
		// the p99 at 0.25 + 0.25 x (4771.8 - 1630) / 3190 = 0.496.
		{"duplicate bound", seedTTFTPage + `vllm:time_to_first_token_seconds_bucket{le="0.50"} 2410` + "\n", seedTTFTP99,
			"vllm:time_to_first_token_seconds: bucket le=0.5 appears twice (counts 2410 and 2410): read once, with the larger count"},
		// The duplicate with another count: the larger, 2500, is kept;
		// the p99's bucket (2.5, 5] is unchanged: 3.75.
		{"duplicate bound, two counts", seedTTFTPage + `vllm:time_to_first_token_seconds_bucket{le="0.50"} 2500` + "\n", seedTTFTP99,
			"vllm:time_to_first_token_seconds: bucket le=0.5 appears twice (counts 2410 and 2500): read once, with the larger count"},
		// le=1.0 holds 2300, fewer than le=0.5's 2410: raised to 2410
		// (Prometheus' ensureMonotonic); the p99 is still 3.75.
		{"counts going down", strings.Replace(seedTTFTPage, `{le="1.0"} 2790`, `{le="1.0"} 2300`, 1), seedTTFTP99,
			"vllm:time_to_first_token_seconds: cumulative bucket counts go down (le=1: 2300 after le=0.5: 2410): read as Prometheus does, each raised to the largest before it"},
		// Bounds out of order on the page: sorted, the same histogram.
		{"bounds out of order", reverseLines(seedTTFTPage), seedTTFTP99, ""},
		// No +Inf bucket: histogram_quantile has no total to rank
		// against, so no quantile.
		{"no +Inf", strings.Replace(seedTTFTPage, `vllm:time_to_first_token_seconds_bucket{le="+Inf"} 3000`+"\n", "", 1), nan,
			"vllm:time_to_first_token_seconds: no +Inf bucket: its quantiles are not known (histogram_quantile needs the total it holds)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := mustParse(t, tt.page)
			h, ok := s.Histogram(TTFT)
			if !ok {
				t.Fatal("no TTFT")
			}
			if got := h.Quantile(0.99).Value; !(got == tt.p99 || math.IsNaN(got) && math.IsNaN(tt.p99)) && math.Abs(got-tt.p99) > 1e-12 {
				t.Errorf("p99 %v, want %v", got, tt.p99)
			}
			if tt.note == "" && len(s.Notes) > 0 || tt.note != "" && strings.Join(s.Notes, "\n") != tt.note {
				t.Errorf("notes %q, want %q", s.Notes, tt.note)
			}
		})
	}
}

// TestDuplicateBoundsWindow: a bound written twice with two counts, in
// both scrapes of a window (the counters grow as on a live server), is
// neither a restart nor double counted: the window's p99 is the seed's
// 3.75 (the end's counts are twice the start's, so the window's are the
// seed's). Before bounds were made unique, one end's 0.5 bucket could be
// compared with the other's duplicate (the order of equal bounds is the
// sort's), read as a count going down, and the window called a restart
// whose totals added both duplicates.
func TestDuplicateBoundsWindow(t *testing.T) {
	t.Parallel()
	page := seedTTFTPage + `vllm:time_to_first_token_seconds_bucket{le="0.50"} 2500` + "\n"
	start, end := mustParse(t, page), mustParse(t, scaleCounts(page, 2))
	inc, reset := Increase(start, end)
	if reset != "" {
		t.Fatalf("read as a restart: %s", reset)
	}
	h, _ := inc.Histogram(TTFT)
	if got := h.Quantile(0.99).Value; math.Abs(got-seedTTFTP99) > 1e-12 || h.Total() != 3000 {
		t.Errorf("p99 %v of %v, want %v of 3000", got, h.Total(), seedTTFTP99)
	}
}

// TestKindConflicts: a family declared the other scalar kind than the one
// gobench reads it as is read as gobench's, with a note; a summary where a
// histogram is read is said to be one; a second sample with the same
// labels is dropped (it would be added twice).
func TestKindConflicts(t *testing.T) {
	t.Parallel()
	s := mustParse(t, `# TYPE vllm:num_preemptions_total gauge
vllm:num_preemptions_total 14
# TYPE vllm:num_requests_running counter
vllm:num_requests_running 3
# TYPE vllm:e2e_request_latency_seconds summary
vllm:e2e_request_latency_seconds{quantile="0.5"} 1
vllm:e2e_request_latency_seconds_sum 4
vllm:e2e_request_latency_seconds_count 2
vllm:num_requests_waiting 2
vllm:num_requests_waiting 5
`)
	if v, ok := s.Counter(Preemptions); !ok || v != 14 {
		t.Errorf("preemptions %v %v, want the gauge-typed counter's 14", v, ok)
	}
	if g, ok := s.Gauge(Running); !ok || g.Sum != 3 {
		t.Errorf("running %+v %v", g, ok)
	}
	if g, _ := s.Gauge(Waiting); g.Sum != 2 {
		t.Errorf("waiting %v, want the first sample's 2", g.Sum)
	}
	want := []string{
		"vllm:e2e_request_latency_seconds is a summary, not a histogram: not read (gobench reads its buckets)",
		"vllm:num_preemptions_total: declared gauge, read as a counter (gobench knows it as one)",
		"vllm:num_requests_running: declared counter, read as a gauge (gobench knows it as one)",
		"vllm:num_requests_waiting: a second sample with the same labels: the first is read",
	}
	if strings.Join(s.Notes, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes\n%s\nwant\n%s", strings.Join(s.Notes, "\n"), strings.Join(want, "\n"))
	}
}

// reverseLines is text's lines in the opposite order.
func reverseLines(text string) string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, j := 0, len(lines)-1; i < j; i, j = i+1, j-1 {
		lines[i], lines[j] = lines[j], lines[i]
	}
	return strings.Join(lines, "\n") + "\n"
}

// scaleCounts multiplies every sample's value by k.
func scaleCounts(text string, k float64) string {
	var out []string
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		i := strings.LastIndexByte(line, ' ')
		v := mustFloat(line[i+1:])
		out = append(out, line[:i+1]+num(v*k))
	}
	return strings.Join(out, "\n") + "\n"
}

// mustFloat reads a sample value.
func mustFloat(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic(err)
	}
	return v
}
