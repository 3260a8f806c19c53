package capacity

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/google/go-cmp/cmp"
)

// TestReport: the table has a row per point with its statistic, interval
// and verdict (and why a point did not pass), then the answer with its
// interval; the JSON holds the same.
func TestReport(t *testing.T) {
	cfg := testConfig(t, RequestRate, 100)
	srv := fakeServer{capacity: 1000, throughput: 40, keepUpTo: 37}
	res, err := Search(context.Background(), cfg, srv.run)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, res); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if f := strings.Fields(lines[0]); !cmp.Equal(f, strings.Fields("# request_rate requests duration s req/s good % kept up % median_ttft_ms<=500 verdict")) {
		t.Errorf("header %q", lines[0])
	}
	want := map[int]string{1: "fail: did not keep up", 2: "pass"}
	for row, verdict := range want {
		if !strings.HasSuffix(lines[row], verdict) || !strings.Contains(lines[row], "median 0.10x [0.10x, 0.10x]") {
			t.Errorf("row %d: %q, want verdict %q", row, lines[row], verdict)
		}
	}
	if got, want := lines[len(lines)-1], "Largest request_rate meeting the objectives: 40 (the limit lies in [40, 41.2): each verdict at 95.0% confidence; converged)."; got != want {
		t.Errorf("answer line\n got %q\nwant %q", got, want)
	}
	o := Object(res)
	if got, _ := o.Get("answer_interval"); !cmp.Equal(got, []any{40.0, 41.2}) {
		t.Errorf("answer_interval %v", got)
	}
	if _, err := pyjson.AppendPython(nil, o); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		res  Result
		want string
	}{
		{Result{Config: cfg, Answer: math.NaN(), Above: 1, Stop: StopMinimum}, "No request_rate meets the objectives: they fail at the minimum 1 (fails at the minimum)."},
		{Result{Config: cfg, Answer: math.NaN(), Above: math.NaN(), Stop: StopBudget}, "No request_rate was shown to meet the objectives before the search ended (time budget)."},
		{Result{Config: cfg, Answer: 100, Above: math.NaN(), Stop: StopMaximum}, "Largest request_rate meeting the objectives: 100, the maximum searched (holds at the maximum)."},
	} {
		if got := answerLine(&tc.res); got != tc.want {
			t.Errorf("got %q\nwant %q", got, tc.want)
		}
	}
}
