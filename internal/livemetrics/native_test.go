package livemetrics

import (
	"testing"

	"github.com/prometheus/common/expfmt"

	"github.com/gobench/gobench/internal/live"
	"github.com/gobench/gobench/internal/metrics"
)

// feed tells a run of one success and one failure.
func feed(r live.Run) {
	r.Released(0.002)
	r.Sent()
	r.Finished(&metrics.Output{Success: true, TTFT: 0.1, Latency: 0.5, OutputTokens: 3, PromptLen: 7, ITL: []float64{0.2, 0.2}}, "")
	r.Released(0)
	r.Sent()
	r.Finished(&metrics.Output{Error: "HTTP 503 Service Unavailable"}, "HTTP 503")
}

// TestNativeHistogramsWhenAsked: a protobuf scrape (what Prometheus asks
// for with native histograms on) gets native histograms, a text scrape the
// classic buckets.
func TestNativeHistogramsWhenAsked(t *testing.T) {
	e := New()
	feed(e.Watch(live.Info{Label: "a", Model: "m", Backend: "openai"}))
	s, err := Listen("127.0.0.1:0", e)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	proto := scrape(t, s.URL(), expfmt.NewFormat(expfmt.TypeProtoDelim))
	h := proto["gobench_itl_seconds"].GetMetric()[0].GetHistogram()
	if h.Schema == nil || h.GetSampleCount() != 2 {
		t.Errorf("protobuf scrape: ITL histogram schema %v, count %d; want a native histogram of 2", h.Schema, h.GetSampleCount())
	}
	text := scrape(t, s.URL(), expfmt.NewFormat(expfmt.TypeTextPlain))
	th := text["gobench_itl_seconds"].GetMetric()[0].GetHistogram()
	if th.Schema != nil || len(th.GetBucket()) != len(classicBuckets)+1 {
		t.Errorf("text scrape: schema %v, %d buckets; want the classic buckets and +Inf only", th.Schema, len(th.GetBucket()))
	}
	if got := sum(text, "gobench_requests_failed_total"); got != 1 {
		t.Errorf("failed = %g, want 1", got)
	}
	if got := sum(text, "gobench_tpot_seconds"); got != 1 {
		t.Errorf("TPOT observations = %g, want 1", got)
	}
}

// TestFeedingSuccessAllocatesNothing: a request that succeeds adds to
// the metrics without allocating.
func TestFeedingSuccessAllocatesNothing(t *testing.T) {
	r := New().Watch(live.Info{Label: "a", Model: "m", Backend: "openai"})
	out := &metrics.Output{Success: true, TTFT: 0.1, Latency: 0.5, OutputTokens: 3, PromptLen: 7, ITL: []float64{0.2, 0.2}}
	r.Finished(out, "") // the native buckets of these values exist from here
	allocs := testing.AllocsPerRun(100, func() {
		r.Released(0.001)
		r.Sent()
		r.Finished(out, "")
	})
	if allocs != 0 {
		t.Errorf("a successful request allocates %g times, want 0", allocs)
	}
}
