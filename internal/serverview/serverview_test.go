package serverview

import (
	"io"
	"math"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/diagnose"
	"github.com/gobench/gobench/internal/golden"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyjson"
)

// page is a server's /metrics at the end of a run whose four requests
// each took TTFT in [0.05, 0.1) s except two; at the start every count is
// zero.
const page = `# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{le="0.05"} 2
vllm:time_to_first_token_seconds_bucket{le="0.1"} 4
vllm:time_to_first_token_seconds_bucket{le="+Inf"} 4
vllm:time_to_first_token_seconds_sum 0.2
vllm:time_to_first_token_seconds_count 4
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running 0
`

var startPage = strings.NewReplacer(` 2
`, ` 0
`, ` 4
`, ` 0
`, `_sum 0.2`, `_sum 0`).Replace(page)

// client is four successful requests with TTFTs 52, 54, 56 and 58 ms and
// one token each (so no ITL and no TPOT).
func client() Client {
	r := &metrics.Result{ActualOutputLens: []int{1, 1, 1, 1}}
	for _, ttft := range []float64{0.052, 0.054, 0.056, 0.058} {
		r.Outputs = append(r.Outputs, metrics.Output{Success: true, TTFT: ttft, Latency: ttft})
	}
	return Client{Result: r}
}

func report(t *testing.T) *diagnose.Report {
	t.Helper()
	rep, err := diagnose.FromScrapes(diagnose.Input{Sources: []string{"http://127.0.0.1:8000/metrics"},
		Start: [][]byte{[]byte(startPage)}, End: [][]byte{[]byte(page)}, Seconds: 2,
		States: []diagnose.State{{At: 1, Running: 3, Waiting: 1, KVMean: 0.25, KVMax: 0.25}}}, diagnose.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestCompare checks the TTFT row by hand: client mean (52+54+56+58)/4 =
// 55 ms, p50 55 ms, p99 NumPy's linear 56 + 0.97*2 = 57.94 ms; server
// mean 0.2/4 = 50 ms, p50 at rank 2 = the 0.05 bound, p99 at rank 3.96
// = 0.05 + 0.05*(3.96-2)/(4-2) = 99 ms; gap 5 ms.
func TestCompare(t *testing.T) {
	t.Parallel()
	rows := Compare(report(t), client())
	if len(rows) == 0 || rows[0].Metric != "ttft" {
		t.Fatalf("rows %+v", rows)
	}
	r := rows[0]
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %.15g, want %.15g", what, got, want)
		}
	}
	near("client mean", r.Client.Mean, 0.055)
	near("client p50", r.Client.P50, 0.055)
	near("client p99", r.Client.P99, 0.05794)
	near("server mean", r.Server.Mean, 0.05)
	near("server p50", r.Server.P50, 0.05)
	near("server p99", r.Server.P99, 0.099)
	if r.Gap == nil {
		t.Fatal("no gap")
	}
	near("gap", *r.Gap, 0.005)
	for _, r := range rows[1:] {
		if r.Metric == "queue" && r.Gap != nil {
			t.Error("a gap between the client's and the server's queue, which are different waits")
		}
	}
}

// TestRenderFromSavedObject: the section drawn from the object as a file
// holds it (written and read back) is the one drawn at the run, in text
// and in markdown.
func TestRenderFromSavedObject(t *testing.T) {
	t.Parallel()
	o := Build(report(t), client(), []Sample{{At: 1, Running: 3, Waiting: 1, KVMean: 0.25, KVMax: 0.25}})
	b, err := pyjson.AppendPython(nil, o)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := pyjson.DecodeObject(b)
	if err != nil {
		t.Fatal(err)
	}
	renders := map[string]func(io.Writer, *pyjson.Object, string) error{"text": Render, "markdown": Render, "details": RenderDetails}
	for _, name := range []string{"text", "markdown", "details"} {
		format := strings.Replace(name, "details", "text", 1)
		var live, again strings.Builder
		if err := renders[name](&live, o, format); err != nil {
			t.Fatal(err)
		}
		if err := renders[name](&again, saved, format); err != nil {
			t.Fatal(err)
		}
		if live.String() != again.String() {
			t.Errorf("%s: the saved object draws\n%s\nthe run drew\n%s", name, &again, &live)
		}
		t.Run(name, func(t *testing.T) { golden.Check(t, []byte(live.String())) })
	}
	tl, _ := saved.Get("timeline")
	if got, _ := pyjson.AppendCompact(nil, tl); string(got) != `{"t":[1.0],"running":[3.0],"waiting":[1.0],"kv_cache_usage_perc":[0.25],"preemptions":[0.0]}` {
		t.Errorf("timeline %s", got)
	}
}

// TestOtherTraffic: a server that finished more requests in the window
// than the run sent is shared, and the view says so.
func TestOtherTraffic(t *testing.T) {
	t.Parallel()
	rep := report(t)
	for _, tc := range []struct {
		finished float64
		note     bool
	}{{4, false}, {3, false}, {5, true}, {math.NaN(), false}} {
		rep.Ratios.Finished = tc.finished
		notes, _ := Build(rep, client(), nil).Get("notes")
		got := strings.Contains(strings.Join(notes.([]string), "\n"), "other traffic shares the server")
		if got != tc.note {
			t.Errorf("finished %v of 4 sent: note %v, want %v (%q)", tc.finished, got, tc.note, notes)
		}
	}
}

// TestTimelinePreemptions: the preemption column counts from the first
// sample that has the counter; a sample without it is null.
func TestTimelinePreemptions(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	samples := []Sample{
		{At: 0, Running: 1, Waiting: 0, KVMax: 0.1, Preemptions: nan},
		{At: 1, Running: 1, Waiting: 0, KVMax: 0.1, Preemptions: 5},
		{At: 2, Running: 1, Waiting: 0, KVMax: 0.1, Preemptions: nan},
		{At: 3, Running: 1, Waiting: 0, KVMax: 0.1, Preemptions: 9},
	}
	got, _ := pyjson.AppendCompact(nil, timeline(samples))
	if want := `{"t":[0.0,1.0,2.0,3.0],"running":[1.0,1.0,1.0,1.0],"waiting":[0.0,0.0,0.0,0.0],"kv_cache_usage_perc":[0.1,0.1,0.1,0.1],"preemptions":[null,0.0,null,4.0]}`; string(got) != want {
		t.Errorf("timeline\n%s\nwant\n%s", got, want)
	}
}

// TestVerdictHeadline: a verdict whose cause is not confirmed says so in
// its headline, the advice on a line of its own; a confirmed one does not
// hedge.
func TestVerdictHeadline(t *testing.T) {
	t.Parallel()
	for _, unconfirmed := range []any{nil, "max_num_seqs not known, give --server-max-num-seqs"} {
		o := Build(report(t), client(), nil)
		o.Set("verdict", "queue/seq-limit")
		o.Set("verdict_unconfirmed", unconfirmed)
		var b strings.Builder
		if err := Render(&b, o, "text"); err != nil {
			t.Fatal(err)
		}
		want := "\nVerdict: queue/seq-limit\n"
		if unconfirmed != nil {
			want = "\nVerdict: queue/seq-limit (unconfirmed: max_num_seqs not known, give --server-max-num-seqs)\n"
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("no headline %q in\n%s", want, b.String())
		}
	}
}
