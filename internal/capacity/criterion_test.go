package capacity

import (
	"math"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/compare"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/resultkey"
	"github.com/google/go-cmp/cmp"
)

func TestParseCriterion(t *testing.T) {
	p99 := compare.Statistic{Kind: resultkey.Percentile, P: 99}
	for _, tc := range []struct {
		in      string
		want    Criterion
		wantErr string
	}{
		{in: "p99_ttft_ms<=500", want: Criterion{Text: "p99_ttft_ms<=500", Limits: []Limit{{"ttft", 500}}, Stat: p99}},
		{in: "p99.9_itl_ms<20", want: Criterion{Text: "p99.9_itl_ms<20", Limits: []Limit{{"itl", 20}},
			Stat: compare.Statistic{Kind: resultkey.Percentile, P: 99.9}, Strict: true}},
		{in: "mean_e2el_ms <= 2000", want: Criterion{Text: "mean_e2el_ms <= 2000", Limits: []Limit{{"e2el", 2000}},
			Stat: compare.Statistic{Kind: resultkey.Mean}}},
		{in: "request_throughput>=10", wantErr: "only upper bounds"},
		{in: "p99_ttft_ms=500", wantErr: "expected KEY<=VALUE"},
		{in: "std_ttft_ms<=5", wantErr: "is not a statistic"},
		{in: "p99_client_queue_time_ms<=5", wantErr: "is not a statistic"},
		{in: "p99_ttft_ms<=0", wantErr: "positive number of milliseconds"},
		{in: "p99_ttft_ms<=fast", wantErr: "positive number of milliseconds"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseCriterion(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestGoodputCriterion(t *testing.T) {
	c, err := GoodputCriterion(map[string]float64{"tpot": 50, "ttft": 500}, 0.99)
	if err != nil {
		t.Fatal(err)
	}
	want := Criterion{Text: "99% of requests meet ttft:500 tpot:50", Limits: []Limit{{"ttft", 500}, {"tpot", 50}},
		Stat: compare.Statistic{Kind: resultkey.Percentile, P: 99}}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		slos  map[string]float64
		share float64
		want  string
	}{
		{map[string]float64{"ttft": 500}, 0, "share of good requests"},
		{map[string]float64{"ttft": 500}, 1.5, "share of good requests"},
		{map[string]float64{"ttft": 0}, 0.9, "can never be met"},
		{map[string]float64{}, 0.9, "no objective"},
	} {
		if _, err := GoodputCriterion(tc.slos, tc.share); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: err %v, want %q", tc.slos, tc.share, err, tc.want)
		}
	}
}

// TestScores: a request's score is its worst value over the limits (TPOT
// over the output's tokens after the first, 0 for one token), a failed
// request is far past every limit, and ITL scores stay grouped by request.
func TestScores(t *testing.T) {
	m := &metrics.Result{
		Outputs: []metrics.Output{
			{Success: true, TTFT: 0.25, Latency: 0.45, ITL: []float64{0.1, 0.1}},
			{Success: true, TTFT: 0.1, Latency: 0.1},
			{Success: false, Error: "reset"},
		},
		ActualOutputLens: []int{3, 1, 0},
	}
	good, err := GoodputCriterion(map[string]float64{"ttft": 500, "tpot": 50}, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	// Request 0: ttft 0.25/0.5, tpot 0.1/0.05 = 2; request 1: 0.1/0.5.
	if diff := cmp.Diff([][]float64{{2}, {0.2}, {failedScore}}, good.scores(m), cmpApprox); diff != "" {
		t.Errorf("goodput scores (-want +got):\n%s", diff)
	}
	itl, err := ParseCriterion("p99_itl_ms<=200")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]float64{{0.5, 0.5}, {}, {failedScore}}, itl.scores(m), cmpApprox); diff != "" {
		t.Errorf("itl scores (-want +got):\n%s", diff)
	}
	if got := goodShare(m, []Criterion{good}); math.Abs(got-1.0/3) > 1e-12 {
		t.Errorf("good share %v, want 1/3", got)
	}
}

var cmpApprox = cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })

// TestJudge: the verdict follows the interval of the statistic, and the
// strict form refuses a statistic equal to the limit.
func TestJudge(t *testing.T) {
	run := func(ttfts ...float64) *metrics.Result {
		m := &metrics.Result{}
		for _, v := range ttfts {
			m.Outputs = append(m.Outputs, metrics.Output{Success: true, TTFT: v, Latency: v})
			m.ActualOutputLens = append(m.ActualOutputLens, 1)
		}
		return m
	}
	repeat := func(v float64, n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	o := compare.Options{Resamples: 300, Confidence: 0.95, Seed: 3}
	le, err := ParseCriterion("median_ttft_ms<=100")
	if err != nil {
		t.Fatal(err)
	}
	lt, err := ParseCriterion("median_ttft_ms<100")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		c    Criterion
		m    *metrics.Result
		want Verdict
	}{
		{"well under", le, run(repeat(0.05, 40)...), Pass},
		{"well over", le, run(repeat(0.2, 40)...), Fail},
		{"at the limit", le, run(repeat(0.1, 40)...), Pass},
		{"at the strict limit", lt, run(repeat(0.1, 40)...), Fail},
		{"straddles", le, run(append(repeat(0.09, 20), repeat(0.11, 20)...)...), Unsure},
		{"too few", le, run(repeat(0.05, 10)...), Unsure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if j := judge(tc.m, tc.c, o); j.Verdict != tc.want {
				t.Errorf("verdict %v (%v [%v, %v], %s), want %v", j.Verdict, j.Estimate, j.Low, j.High, j.Why, tc.want)
			}
		})
	}
}
