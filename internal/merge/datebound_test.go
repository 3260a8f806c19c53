package merge

import (
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// obs is one shard's Date observations for the tests: per value, the
// latest send answered with it and the earliest arrival of such an
// answer, on the shard's timeline (seconds).
type obs struct {
	values        []int64
	send, arrival []float64
}

func (o obs) dates() dates { return newDates(o.values, o.send, o.arrival, 0) }

// TestOffsetBound bounds shard b's timeline minus shard a's from the Date
// changes both saw, with the bounds computed by hand in each case.
func TestOffsetBound(t *testing.T) {
	t.Parallel()
	for _, tc := range offsetCases {
		t.Run(tc.name, func(t *testing.T) {
			low, high, n, err := offsetBound(tc.b.dates(), tc.a.dates())
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) || n != tc.n {
					t.Fatalf("bound (%v, %v) from %d changes, error %v; want %q from %d", low, high, n, err, tc.want, tc.n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			approx := cmpopts.EquateApprox(0, 1e-9)
			if !cmp.Equal([]float64{low, high}, []float64{tc.low, tc.high}, approx) || n != tc.n {
				t.Errorf("bound (%.6f, %.6f) from %d changes, want (%.6f, %.6f) from %d", low, high, n, tc.low, tc.high, tc.n)
			}
		})
	}
}

// offsetCases are TestOffsetBound's cases: a and b saw the Date changes
// as given; low and high bound b − a (seconds), n changes made it; want
// is the error's text when there is no bound.
var offsetCases = []struct {
	name      string
	a, b      obs
	low, high float64
	n         int
	want      string
}{{
	// Go's net/http formats the server's time per answer: the value
	// changes at 101.000 and 102.000. Shard b's clock reads 0.100 s
	// ahead: it sent its last answer dated 100 at 100.985 (reading
	// 101.085), its first dated 101 arrived at 101.012 (101.112); its
	// last dated 101 was sent at 101.993 (102.093), its first dated
	// 102 arrived at 102.020 (102.120). Shard a: (100.990, 101.004]
	// and (101.996, 102.001]. Change 101: b − a in (101.085 −
	// 101.004, 101.112 − 100.990) = (0.081, 0.122); change 102:
	// (102.093 − 102.001, 102.120 − 101.996) = (0.092, 0.124);
	// together (0.092, 0.122), which holds 0.100.
	name: "per-answer date (Go's net/http), b 100 ms ahead",
	a:    obs{[]int64{100, 101, 102}, []float64{100.990, 101.996, 102.5}, []float64{100.2, 101.004, 102.001}},
	b:    obs{[]int64{100, 101, 102}, []float64{101.085, 102.093, 102.5}, []float64{100.4, 101.112, 102.120}},
	low:  0.092, high: 0.122, n: 2,
}, {
	// uvicorn (vLLM) caches the value and refreshes it every 1.01 s
	// or so, not at second boundaries: at 100.37 (value 100), 101.38
	// (101) and 102.39 (102). Shard b's clock reads 0.250 s behind:
	// it sent its last answer dated 100 at 101.370 (101.120), its
	// first dated 101 arrived at 101.385 (101.135), its last dated
	// 101 was sent at 102.380 (102.130), its first dated 102 arrived
	// at 102.400 (102.150). Shard a: (101.375, 101.390] and
	// (102.370, 102.395]. Change 101: (101.120 − 101.390, 101.135 −
	// 101.375) = (−0.270, −0.240); change 102: (102.130 − 102.395,
	// 102.150 − 102.370) = (−0.265, −0.220); together (−0.265,
	// −0.240), which holds −0.250. A value taken to change at the
	// second boundary (101.000) would have been 0.38 s off.
	name: "cached date (uvicorn), b 250 ms behind",
	a:    obs{[]int64{100, 101, 102}, []float64{101.375, 102.370, 102.6}, []float64{100.5, 101.390, 102.395}},
	b:    obs{[]int64{100, 101, 102}, []float64{101.120, 102.130, 102.45}, []float64{100.35, 101.135, 102.150}},
	low:  -0.265, high: -0.240, n: 2,
}, {
	// A cached value refreshed at 101.98 (101), then at 103.01
	// (103): 102 is never sent, and the change to "at least 102" is
	// the change to 103. Shard b's clock reads 0.005 s ahead: its last
	// answer dated 101 was sent at 103.005 (103.010), its first dated
	// 103 arrived at 103.015 (103.020). Shard a: (103.000, 103.020].
	// b − a in (103.010 − 103.020, 103.020 − 103.000) = (−0.010,
	// 0.020), one change, which holds 0.005.
	name: "a value skipped",
	a:    obs{[]int64{101, 103}, []float64{103.000, 103.5}, []float64{101.99, 103.020}},
	b:    obs{[]int64{101, 103}, []float64{103.010, 103.6}, []float64{102.1, 103.020}},
	low:  -0.010, high: 0.020, n: 1,
}, {
	// Shard b's clock runs fast (10 % here, to show it): 0.005 s
	// ahead at the change to 101, 0.105 s at 102. Shard a: (100.99,
	// 101.01] and (101.99, 102.01]; shard b (100.995, 101.015] and
	// (102.095, 102.115]. Change 101: (−0.015, 0.025); change 102:
	// (0.085, 0.125): no offset satisfies both. So would two server
	// processes whose cached dates drift apart, each answering one
	// shard.
	name: "changes that disagree",
	a:    obs{[]int64{100, 101, 102}, []float64{100.99, 101.99, 102.5}, []float64{100.2, 101.01, 102.01}},
	b:    obs{[]int64{100, 101, 102}, []float64{100.995, 102.095, 102.6}, []float64{100.3, 101.015, 102.115}},
	n:    2, want: "exclude each other",
}, {
	name: "no change seen by both",
	a:    obs{[]int64{100}, []float64{100.5}, []float64{100.2}},
	b:    obs{[]int64{100, 101}, []float64{100.9, 101.2}, []float64{100.3, 101.1}},
	want: "no change of the Date value was seen by both",
}}

// TestDatesCheck: answers from two server processes with their own cached
// date (one changes to 101 at 101.38, the other at 101.80) contradict one
// clock within a shard: an answer dated 101 arrived at 101.45, then a
// request sent at 101.50 was answered with 100.
func TestDatesCheck(t *testing.T) {
	t.Parallel()
	d := obs{[]int64{100, 101}, []float64{101.50, 102.0}, []float64{100.5, 101.45}}.dates()
	if _, err := d.check(); err == nil || !strings.Contains(err.Error(), "sent at 101.500 s was answered with Date Thu, 01 Jan 1970 00:01:40 GMT after an answer dated Thu, 01 Jan 1970 00:01:41 GMT had arrived at 101.450 s") {
		t.Errorf("check: %v", err)
	}
	ok := obs{[]int64{100, 101, 102}, []float64{100.99, 101.99, 102.5}, []float64{100.2, 101.01, 102.01}}.dates()
	if n, err := ok.check(); n != 2 || err != nil {
		t.Errorf("check: %d changes, %v; want 2, nil", n, err)
	}
}

// serverDates is a server_dates object of o, n answers, none undated.
func serverDates(o obs, n int) *pyjson.Object {
	d := pyjson.NewObject()
	d.Set(resultkey.DatesResponses, n)
	d.Set(resultkey.DatesUndated, 0)
	values := make([]any, len(o.values))
	for i, v := range o.values {
		values[i] = v
	}
	d.Set(resultkey.DatesValues, values)
	d.Set(resultkey.DatesLastSend, o.send)
	d.Set(resultkey.DatesFirstArrival, o.arrival)
	d.Set(resultkey.DatesCounts, make([]int, len(o.values)))
	return d
}

// TestMergeSkewBound: the merge bounds shard 1's timeline against shard
// 0's from their Date observations (TestOffsetBound's first case, each
// shard's clock reading 0 at its start: (92, 122) ms), says so in
// gobench_merge and on the printed lines, and with CorrectSkew moves shard
// 1 back by the middle, 107 ms: its anchor becomes the earliest, so shard
// 0's requests (0.5 and 2 s after its anchor) land 0.107 s later on the
// merged timeline, shard 1's (0.6, 2.2) where they were. Without it the
// merged file is the same as without any Date observations.
func TestMergeSkewBound(t *testing.T) {
	t.Parallel()
	first := offsetCases[0]
	runs := func(dated bool) []*resultfile.Run {
		var d0, d1 *pyjson.Object
		if dated {
			d0, d1 = serverDates(first.a, 9), serverDates(first.b, 9)
		}
		return []*resultfile.Run{datedShardRun(t, 0, 0, 0, []float64{0.5, 2}, []int{0, 2}, d0),
			datedShardRun(t, 1, 0, 0, []float64{0.6, 2.2}, []int{1, 3}, d1)}
	}
	plain, err := Merge(runs(false), Options{})
	if err != nil {
		t.Fatal(err)
	}
	asRead, err := Merge(runs(true), Options{})
	if err != nil {
		t.Fatal(err)
	}
	corrected, err := Merge(runs(true), Options{CorrectSkew: true})
	if err != nil {
		t.Fatal(err)
	}
	without := func(o *pyjson.Object) *pyjson.Object { c := o.Clone(); c.Delete(resultkey.GobenchMerge); return c }
	if a, b := compact(t, without(plain.Object)), compact(t, without(asRead.Object)); a != b {
		t.Errorf("the Date observations changed the merged result without --correct-skew:\n%s\n%s", a, b)
	}
	if got := startTimes(t, corrected); !cmp.Equal(got, []float64{0.607, 0.6, 2.107, 2.2}, cmpopts.EquateApprox(0, 1e-9)) {
		t.Errorf("corrected start_times %v, want [0.607 0.6 2.107 2.2]", got)
	}
	want := `{"skew_bound_ms": 122.0, "skew_corrected": true, "shard 1": {"date_changes": 2, "offset_vs_shard0_ms": [92.0, 122.0], "offset_date_changes": 2, "offset_note": null, "correction_ms": 107.0}}`
	if got := skewSummary(t, corrected.Object); got != want {
		t.Errorf("gobench_merge:\n got %s\nwant %s", got, want)
	}
	var text strings.Builder
	if err := asRead.Skew.Write(&text); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"  shard 1 − shard 0: between +92.000 and +122.000 ms (2 Date changes both saw)\n",
		"Every shard's timeline is within 122.000 ms of shard 0's.\n", "The bound of shard 1 excludes zero"} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("skew lines lack %q:\n%s", line, text.String())
		}
	}
	text.Reset()
	if err := plain.Skew.Write(&text); err != nil || !strings.Contains(text.String(), "shard 1 − shard 0: no bound: shard 1's result has no server_dates") {
		t.Errorf("without Date observations (%v):\n%s", err, text.String())
	}
}

// compact is o in compact JSON.
func compact(t *testing.T, o *pyjson.Object) string {
	t.Helper()
	b, err := pyjson.AppendCompact(nil, o)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// startTimes reads the merged result's start_times.
func startTimes(t *testing.T, res *Result) []float64 {
	t.Helper()
	run, err := resultfile.FromObject("merged", res.Object)
	if err != nil {
		t.Fatal(err)
	}
	d, err := run.Detailed()
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	for _, o := range d.Outputs {
		out = append(out, o.StartTime)
	}
	return out
}

// skewSummary is the merged result's gobench_merge skew keys and shard
// 1's bound, in Python's JSON.
func skewSummary(t *testing.T, merged *pyjson.Object) string {
	t.Helper()
	v, _ := merged.Get(resultkey.GobenchMerge)
	m := v.(*pyjson.Object)
	out := pyjson.NewObject()
	for _, k := range []string{resultkey.MergeSkewBoundMS, resultkey.MergeSkewCorrected} {
		x, _ := m.Get(k)
		out.Set(k, x)
	}
	per, _ := m.Get(resultkey.MergePerShard)
	s1 := per.([]*pyjson.Object)[1]
	one := pyjson.NewObject()
	for _, k := range []string{resultkey.MergeShardDateChanges, resultkey.MergeShardOffsetMS, resultkey.MergeShardOffsetChanges,
		resultkey.MergeShardOffsetNote, resultkey.MergeShardCorrectionMS} {
		x, _ := s1.Get(k)
		one.Set(k, x)
	}
	out.Set("shard 1", one)
	b, err := pyjson.AppendPython(nil, out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBoundReasons: a shard without a bound says why, and a reference
// without usable observations leaves every other shard unbounded.
func TestBoundReasons(t *testing.T) {
	t.Parallel()
	good := func(o obs) *savedDates {
		return &savedDates{Responses: 9, Values: o.values, LastSend: o.send, FirstArrival: o.arrival}
	}
	a, b := offsetCases[0].a, offsetCases[0].b
	contradicting := obs{[]int64{100, 101}, []float64{101.50, 102.0}, []float64{100.5, 101.45}}
	tests := []struct {
		name       string
		d0, d1     *savedDates
		why0, why1 string
	}{
		{"bounded", good(a), good(b), "", ""},
		{"older gobench", good(a), nil, "", "shard 1's result has no server_dates"},
		{"no Date header", good(a), &savedDates{Responses: 3, Undated: 3}, "", "the server sent shard 1 no Date header"},
		{"no answer", good(a), &savedDates{}, "", "shard 1 got no answer"},
		{"lists that do not match", good(a), &savedDates{Responses: 2, Values: []int64{101, 100}, LastSend: []float64{1, 2}, FirstArrival: []float64{1, 2}}, "",
			"shard 1's server_dates lists do not match"},
		{"answers that contradict one clock", good(a), good(contradicting), "", "shard 1: a request sent at 101.500 s"},
		{"the reference's", good(contradicting), good(b), "shard 0: a request sent at 101.500 s", "shard 0, the reference, has no usable Date observations"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			shards := []*shard{{index: 0, startWall: startAt, dates: tc.d0}, {index: 1, startWall: startAt, dates: tc.d1}}
			bounds := boundOffsets(shards)
			for i, want := range []string{tc.why0, tc.why1} {
				got := bounds[i]
				if got.OK != (want == "") || !strings.HasPrefix(got.Why, want) {
					t.Errorf("shard %d: %+v, want %q", i, got, want)
				}
			}
		})
	}
}
