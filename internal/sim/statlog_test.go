package sim

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestStatLoggerLines(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1700000000, 0)
	tests := []struct {
		name     string
		spec     bool
		feed     func(l *statLogger)
		running  int
		waiting  int
		kv       float64
		want     []string
		wantIdle bool
	}{
		{"idle", false, func(*statLogger) {}, 0, 0, 0,
			[]string{"Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, " +
				"Running: 0 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.0%, Prefix cache hit rate: 0.0%"}, true},
		// 10 s interval: 5000 computed prompt tokens, 1800 generated; 3
		// preemptions; lookups of 1000 tokens with 600 hits.
		{"busy", false, func(l *statLogger) {
			l.tokens(5000, 1800)
			l.step(StepStats{Preemptions: 3, PrefixRequests: 2, PrefixQueries: 1000, PrefixHits: 600})
		}, 42, 7, 0.912,
			[]string{"Engine 000: Avg prompt throughput: 500.0 tokens/s, Avg generation throughput: 180.0 tokens/s, " +
				"Running: 42 reqs, Waiting: 7 reqs, Preemptions: 3, GPU KV cache usage: 91.2%, Prefix cache hit rate: 60.0%"}, false},
		{"speculative", true, func(l *statLogger) {
			l.tokens(0, 100)
			l.step(StepStats{Drafts: 10, DraftTokens: 30, AcceptedTokens: 15, AcceptedPerPosition: []int{8, 5, 2}})
		}, 1, 0, 0.01,
			[]string{"Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 10.0 tokens/s, " +
				"Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.0%, Prefix cache hit rate: 0.0%",
				"SpecDecoding metrics: Mean acceptance length: 2.50, Accepted throughput: 1.50 tokens/s, Drafted throughput: 3.00 tokens/s, " +
					"Accepted: 15 tokens, Drafted: 30 tokens, Per-position acceptance rate: 0.800, 0.500, 0.200, Avg Draft acceptance rate: 50.0%"},
			false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := newStatLogger(tt.spec)
			l.last = t0
			tt.feed(l)
			got, idle := l.lines(t0.Add(10*time.Second), tt.running, tt.waiting, tt.kv)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") || idle != tt.wantIdle {
				t.Errorf("got (idle %t)\n%s\nwant (idle %t)\n%s", idle, strings.Join(got, "\n"), tt.wantIdle, strings.Join(tt.want, "\n"))
			}
			// The interval restarts: the next line has no throughput left.
			if again, _ := l.lines(t0.Add(20*time.Second), 0, 0, 0); !strings.Contains(again[0], "Avg prompt throughput: 0.0") {
				t.Errorf("second line %q", again[0])
			}
		})
	}
}

func TestPrefixHitRateWindow(t *testing.T) {
	t.Parallel()
	// vLLM's CachingMetrics keeps the most recent 1000 requests: old
	// lookups fall out of the hit rate.
	l := newStatLogger(false)
	l.step(StepStats{PrefixRequests: 600, PrefixQueries: 600, PrefixHits: 600})
	l.step(StepStats{PrefixRequests: 600, PrefixQueries: 600, PrefixHits: 0})
	lines, _ := l.lines(time.Now(), 0, 0, 0)
	if !strings.HasSuffix(lines[0], "Prefix cache hit rate: 0.0%") {
		t.Errorf("%s: the first 600 requests should have left the window", lines[0])
	}
}

func TestServeLogsStatsLine(t *testing.T) {
	t.Parallel()
	logs := &syncWriter{w: &strings.Builder{}}
	ls := startLive(t, Config{Logger: logs, LogStatsInterval: 50 * time.Millisecond, TTFT: time.Millisecond, ITL: 20 * time.Millisecond})
	resp := post(t.Context(), t, newClient(), ls.url+"/v1/completions", `{"prompt":"a b","max_tokens":10,"ignore_eos":true}`)
	resp.Body.Close()
	line := regexp.MustCompile(`(?m)^INFO \d\d-\d\d \d\d:\d\d:\d\d \[loggers\.py\] Engine 000: Avg prompt throughput: [0-9.]+ tokens/s, ` +
		`Avg generation throughput: [0-9.]+ tokens/s, Running: \d+ reqs, Waiting: 0 reqs, GPU KV cache usage: 0\.0%, Prefix cache hit rate: 0\.0%$`)
	if !waitFor(eventually, func() bool { return line.MatchString(logs.String()) }) {
		t.Errorf("no stats line in the log:\n%s", logs.String())
	}
}
