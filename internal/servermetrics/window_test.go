package servermetrics

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const windowStart = `process_start_time_seconds 1000
# TYPE vllm:num_preemptions_total counter
vllm:num_preemptions_total{engine="0"} 4
vllm:num_preemptions_total{engine="1"} 1
vllm:num_requests_running 3
# TYPE vllm:request_queue_time_seconds histogram
vllm:request_queue_time_seconds_bucket{le="0.3"} 10
vllm:request_queue_time_seconds_bucket{le="1"} 12
vllm:request_queue_time_seconds_bucket{le="+Inf"} 12
vllm:request_queue_time_seconds_sum 2
vllm:request_queue_time_seconds_count 12
`

const windowEnd = `process_start_time_seconds 1000
# TYPE vllm:num_preemptions_total counter
vllm:num_preemptions_total{engine="0"} 6
vllm:num_preemptions_total{engine="1"} 1
vllm:num_preemptions_total{engine="2"} 5
vllm:num_requests_running 7
# TYPE vllm:request_queue_time_seconds histogram
vllm:request_queue_time_seconds_bucket{le="0.3"} 15
vllm:request_queue_time_seconds_bucket{le="1"} 20
vllm:request_queue_time_seconds_bucket{le="+Inf"} 21
vllm:request_queue_time_seconds_sum 9
vllm:request_queue_time_seconds_count 21
`

// TestIncrease subtracts series by series: engine 0 went 4 -> 6 (2),
// engine 1 stayed (0), engine 2 is new (5 from 0): 7 preemptions; the
// queue histogram's buckets 15-10, 20-12, 21-12, sum 9-2, count 21-12;
// gauges are the end's.
func TestIncrease(t *testing.T) {
	t.Parallel()
	inc, reset := Increase(mustParse(t, windowStart), mustParse(t, windowEnd))
	if reset != "" {
		t.Fatalf("reset %q", reset)
	}
	if v, _ := inc.Counter(Preemptions); v != 7 {
		t.Errorf("preemptions %v, want 7", v)
	}
	q, _ := inc.Histogram(Queue)
	want := &Histogram{Buckets: []Bucket{{0.3, 5}, {1, 8}, {inf, 9}}, Count: 9, HasCount: true, Sum: 7, HasSum: true}
	if diff := cmp.Diff(want, q); diff != "" {
		t.Errorf("queue (-want +got):\n%s", diff)
	}
	if g, _ := inc.Gauge(Running); g.Sum != 7 {
		t.Errorf("running %v, want the end's 7", g.Sum)
	}
}

// TestIncreaseReset detects a restart from any count going down, or from
// the process start time, and then returns the end's totals.
func TestIncreaseReset(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, old, new, want string }{
		{"counter", `vllm:num_preemptions_total{engine="0"} 4`, `vllm:num_preemptions_total{engine="0"} 1`,
			"vllm:num_preemptions_total went down from 4 to 1"},
		{"bucket", `vllm:request_queue_time_seconds_bucket{le="1"} 12`, `vllm:request_queue_time_seconds_bucket{le="1"} 11`,
			"vllm:request_queue_time_seconds bucket le=1 went down from 12 to 11"},
		{"count", `vllm:request_queue_time_seconds_count 12`, `vllm:request_queue_time_seconds_count 11`,
			"vllm:request_queue_time_seconds count went down from 12 to 11"},
		{"process start", `process_start_time_seconds 1000`, `process_start_time_seconds 2000`,
			"process_start_time_seconds changed from 1000 to 2000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			end := mustParse(t, strings.Replace(windowStart, tt.old, tt.new, 1))
			inc, reset := Increase(mustParse(t, windowStart), end)
			if reset != tt.want {
				t.Errorf("reset %q, want %q", reset, tt.want)
			}
			if inc != end {
				t.Error("a restart must give the end's totals")
			}
		})
	}
}

// TestNewWindow sums two sources, one of which restarted (its totals
// count), and keeps the states of both ends.
func TestNewWindow(t *testing.T) {
	t.Parallel()
	a1, b1 := mustParse(t, windowStart), mustParse(t, windowEnd)
	a2 := mustParse(t, "process_start_time_seconds 5\nvllm:num_preemptions_total 9\nvllm:num_requests_running 1\n")
	b2 := mustParse(t, "process_start_time_seconds 6\nvllm:num_preemptions_total 2\nvllm:num_requests_running 4\n")
	w, err := NewWindow([]*Scrape{a1, a2}, []*Scrape{b1, b2}, []string{"one", "two"}, 60)
	if err != nil {
		t.Fatal(err)
	}
	// 7 from source one, and source two's 2 since its restart.
	if v, _ := w.Delta.Counter(Preemptions); v != 9 {
		t.Errorf("preemptions %v, want 9", v)
	}
	if diff := cmp.Diff([]string{"two: process_start_time_seconds changed from 5 to 6"}, w.Restarted); diff != "" {
		t.Errorf("restarted (-want +got):\n%s", diff)
	}
	if g, _ := w.End.Gauge(Running); g.Sum != 11 {
		t.Errorf("running at the end %v, want 7+4", g.Sum)
	}
	if g, _ := w.Start.Gauge(Running); g.Sum != 4 {
		t.Errorf("running at the start %v, want 3+1", g.Sum)
	}
	if w.Seconds != 60 || w.SinceStart {
		t.Errorf("window %+v", w)
	}
	one, _ := NewWindow(nil, []*Scrape{b1}, nil, 60)
	if !one.SinceStart || one.Seconds != 0 || one.Start != nil {
		t.Errorf("one scrape %+v", one)
	}
	if _, err := NewWindow([]*Scrape{a1}, []*Scrape{b1, b2}, nil, 1); err == nil {
		t.Error("sources 1 and 2: no error")
	}
}

// TestSumAcrossVersions sums a V0 page and a V1 page: the older name is
// read as the current one in each.
func TestSumAcrossVersions(t *testing.T) {
	t.Parallel()
	v0 := mustParse(t, "vllm:gpu_cache_usage_perc 0.2\n")
	v1 := mustParse(t, "vllm:kv_cache_usage_perc 0.8\n")
	g, _ := Sum(v0, v1).Gauge(KVUsage)
	if g.N != 2 || g.Max != 0.8 || g.Mean != 0.5 {
		t.Errorf("KV usage over both pages %+v", g)
	}
}
