package resultfile

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/resultkey"
	"github.com/google/go-cmp/cmp"
)

// Fixtures (see testdata/gen_vllm_fixtures.py for the vLLM ones):
//
//	gobench_fast.json, gobench_slow.json  gobench serve --sim --save-detailed, 24 requests
//	gobench_workload_a.json, _b.json      gobench serve --sim --save-result, 8 requests, with
//	                                      gobench_workload
//	vllm_detailed.json                    vLLM --save-detailed without latencies, bare Infinity
//	vllm_runs.jsonl                       vLLM --append-result, three runs (labels base, tuned, tuned)
//	server_*.json                         gobench serve --sim --sim-preset ... with server_view
//	                                      (testdata/gen_server_view_fixtures.sh)
func fixture(t *testing.T, name string) []*Run {
	t.Helper()
	runs, err := ReadFile(filepath.Join("testdata", name), nil)
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

func TestParseFixtures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		runs      int
		key       string
		want      float64
		firstKeys []string
	}{
		{"gobench_fast.json", 1, "p99_ttft_ms", 0, []string{"date", "endpoint_type", "backend", "label"}},
		{"vllm_detailed.json", 1, "p99_tpot_ms", 54.099999999999994, []string{"date", "endpoint_type", "backend", "label"}},
		{"vllm_runs.jsonl", 3, "mean_ttft_ms", 120.5, []string{"date", "endpoint_type", "backend", "label"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			runs := fixture(t, tt.name)
			if len(runs) != tt.runs {
				t.Fatalf("%d runs, want %d", len(runs), tt.runs)
			}
			if diff := cmp.Diff(tt.firstKeys, runs[0].Keys()[:4]); diff != "" {
				t.Errorf("key order (-want +got):\n%s", diff)
			}
			v, ok := runs[0].Number(tt.key)
			if !ok || tt.want != 0 && v != tt.want {
				t.Errorf("%s = %v (%v), want %v", tt.key, v, ok, tt.want)
			}
			for i, r := range runs {
				if r.Index != i || r.Count != tt.runs {
					t.Errorf("run %d: index %d count %d", i, r.Index, r.Count)
				}
			}
		})
	}
}

func TestParseVariants(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data string
		key  string
		want float64 // NaN: expect NaN
		ok   bool
	}{
		// gobench writes non-finite floats as strings
		{"gobench inf", `{"duration": 1.0, "request_rate": "inf"}`, "request_rate", math.Inf(1), true},
		// Python's json.dump writes them bare
		{"bare Infinity", `{"duration": 1.0, "burstiness": Infinity}`, "burstiness", math.Inf(1), true},
		{"bare -Infinity", `{"duration": 1.0, "x": -Infinity}`, "x", math.Inf(-1), true},
		{"bare NaN", `{"duration": 1.0, "x": NaN}`, "x", math.NaN(), true},
		{"NaN inside a string stays a string", `{"duration": 1.0, "label": "NaN Infinity", "x": 2}`, "label", 0, false},
		{"escaped quote before a token", `{"duration": 1.0, "label": "a\"b", "x": NaN}`, "x", math.NaN(), true},
		{"pretty printed", "{\n  \"duration\": 2.5,\n  \"completed\": 3\n}\n", "duration", 2.5, true},
		{"integer", `{"completed": 7}`, "completed", 7, true},
		{"exponent", `{"duration": 1e-05}`, "duration", 1e-05, true},
		{"null is no number", `{"duration": 1.0, "request_goodput": null}`, "request_goodput", 0, false},
		{"bool is no number", `{"duration": 1.0, "x": true}`, "x", 0, false},
		{"list is no number", `{"duration": 1.0, "ttfts": [1.0]}`, "ttfts", 0, false},
		{"repeated key keeps the last value", `{"duration": 1.0, "x": 1, "x": 2}`, "x", 2, true},
		{"failed_ratio derived", `{"duration": 1.0, "completed": 3, "failed": 1}`, resultkey.FailedRatio, 0.25, true},
		{"failed_ratio of nothing", `{"duration": 1.0, "completed": 0, "failed": 0}`, resultkey.FailedRatio, math.NaN(), true},
		{"failed_ratio needs failed", `{"duration": 1.0, "completed": 3}`, resultkey.FailedRatio, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			runs, err := Parse("x.json", []byte(tt.data), nil)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := runs[0].Number(tt.key)
			if ok != tt.ok || ok && !(got == tt.want || math.IsNaN(got) && math.IsNaN(tt.want)) {
				t.Errorf("Number(%q) = %v, %v; want %v, %v", tt.key, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, data, want string
		notResult        bool
	}{
		{"empty", "", "holds no JSON object", true},
		{"array (a PyTorch-format file)", `[{"a": 1}]`, `found "[" where a JSON object should start`, true},
		{"object without result keys", `{"a": 1}`, `neither "duration" nor "completed"`, true},
		{"broken JSON", `{"duration": 1.0,`, "run 0", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse("bad.json", []byte(tt.data), nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "bad.json") {
				t.Fatalf("error %v, want one naming bad.json and containing %q", err, tt.want)
			}
			if errors.Is(err, ErrNotResult) != tt.notResult {
				t.Errorf("errors.Is(ErrNotResult) = %v", !tt.notResult)
			}
		})
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "missing.json"), nil); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	runs := fixture(t, "vllm_runs.jsonl")
	tests := []struct {
		sel     string
		index   int    // wanted run, or -1 for an error
		wantErr string // part of the error
	}{
		{"0", 0, ""},
		{"2", 2, ""},
		{"-1", 2, ""},
		{"-3", 0, ""},
		{"base", 0, ""},
		{"3", -1, "holds 3 run(s)"},
		{"-4", -1, "holds 3 run(s)"},
		{"tuned", -1, "runs 1, 2 all have the label"},
		{"nightly", -1, `no run has the label "nightly"`},
		{"", -1, "holds 3 runs (--append-result); choose one"},
	}
	for _, tt := range tests {
		got, err := Select(runs, tt.sel)
		if tt.index >= 0 {
			if err != nil || got.Index != tt.index {
				t.Errorf("Select(%q) = %v, %v; want run %d", tt.sel, got, err, tt.index)
			}
			continue
		}
		if err == nil || !errors.Is(err, ErrSelector) || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("Select(%q) error %v, want ErrSelector with %q", tt.sel, err, tt.wantErr)
		}
	}
	one := fixture(t, "gobench_fast.json")
	if r, err := Select(one, ""); err != nil || r != one[0] {
		t.Errorf("single run without selector: %v", err)
	}
}

func TestOpenSpecs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", "vllm_runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	odd := filepath.Join(dir, "run#1.jsonl") // a '#' in the file name itself
	if err := os.WriteFile(odd, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(odd, nil); !errors.Is(err, ErrSelector) {
		t.Errorf("Open(%q) = %v, want the several-runs selector error (the name is a file)", odd, err)
	}
	r, err := Open(odd+"#tuned#", nil)
	if err == nil {
		t.Errorf("Open with an empty selector after '#' found run %d", r.Index)
	}
	if r, err := Open(odd+"#-1", nil); err != nil || r.Index != 2 || r.Name() != odd+"#2" {
		t.Errorf("Open(%q#-1) = %v, %v", odd, r, err)
	}
	if r, err := Open(filepath.Join("testdata", "vllm_runs.jsonl#base"), nil); err != nil || r.Label() != "base" {
		t.Errorf("Open(#base) = %v, %v", r, err)
	}
}

func TestDetailedGobench(t *testing.T) {
	t.Parallel()
	run := fixture(t, "gobench_fast.json")[0]
	d, err := run.Detailed()
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Outputs) != 24 || !d.HasLatencies || !d.HasStartTimes || !d.HasQueueTimes {
		t.Fatalf("%d outputs, latencies %v start %v queue %v", len(d.Outputs), d.HasLatencies, d.HasStartTimes, d.HasQueueTimes)
	}
	for i, o := range d.Outputs {
		if !o.Success || o.OutputTokens != 6 || o.PromptLen != 16 || len(o.ITL) != 5 || o.Latency <= o.TTFT || o.GeneratedText == "" {
			t.Errorf("output %d: %+v", i, o)
		}
	}
}

func TestDetailedVLLM(t *testing.T) {
	t.Parallel()
	run := fixture(t, "vllm_detailed.json")[0]
	d, err := run.Detailed()
	if err != nil {
		t.Fatal(err)
	}
	if d.HasLatencies || !d.HasStartTimes || d.HasQueueTimes || len(d.Outputs) != 6 {
		t.Fatalf("latencies %v start %v queue %v, %d outputs", d.HasLatencies, d.HasStartTimes, d.HasQueueTimes, len(d.Outputs))
	}
	// Without latencies, E2EL is the TTFT plus the ITLs.
	a := d.Outputs[0]
	want := a.TTFT
	for _, x := range a.ITL {
		want += x
	}
	if a.Latency != want || math.Abs(a.Latency-2.2) > 1e-12 {
		t.Errorf("latency %v, want %v (about 2.2)", a.Latency, want)
	}
	f := d.Outputs[5]
	if f.Success || f.Error != "Bad Request" || f.OutputTokens != 0 || f.PromptLen != 1000 {
		t.Errorf("failed output %+v", f)
	}
	if d.Outputs[4].OutputTokens != 1 || len(d.Outputs[4].ITL) != 0 {
		t.Errorf("single-token output %+v", d.Outputs[4])
	}
}

func TestDetailedErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, data, want string }{
		{"not detailed", `{"duration": 1.0, "completed": 1}`, "--save-detailed"},
		{"missing errors", `{"duration": 1.0, "ttfts": [0.1], "itls": [[]], "output_lens": [1]}`, `"errors" is missing`},
		{"length mismatch", `{"duration": 1.0, "ttfts": [0.1, 0.2], "itls": [[]], "output_lens": [1, 1], "errors": ["", ""]}`, `"itls" has 1 entries`},
		{"bad value", `{"duration": 1.0, "ttfts": ["x"], "itls": [[]], "output_lens": [1], "errors": [""]}`, `"ttfts"`},
	}
	for _, tt := range tests {
		runs, err := Parse("d.json", []byte(tt.data), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := runs[0].Detailed(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
	// vLLM keeps the HTTP reason as the error; an empty one with no token
	// at all is still a failure.
	runs, _ := Parse("d.json", []byte(`{"duration": 1.0, "ttfts": [0.0, 0.1], "itls": [[], []], "output_lens": [0, 1], "errors": ["", ""]}`), nil)
	if d, err := runs[0].Detailed(); err != nil || d.Outputs[0].Success || !d.Outputs[1].Success {
		t.Errorf("empty error without a token: %+v, %v", d, err)
	}
	runs, _ = Parse("d.json", []byte(`{"duration": 1.0, "completed": 1}`), nil)
	if _, err := runs[0].Detailed(); !errors.Is(err, ErrNotDetailed) {
		t.Errorf("not detailed: %v", err)
	}
}

// TestFromObject: a result built in memory reads back bit for bit.
func TestFromObject(t *testing.T) {
	t.Parallel()
	outs := []metrics.Output{{Success: true, TTFT: 0.1 + 0.2, Latency: 1.0 / 3, OutputTokens: 3, ITL: []float64{0.1, 0.2}, PromptLen: 5}}
	m := metrics.Calculate(outs, 0.7, metrics.Config{CountTokens: func(string) int { return 0 },
		PercentileMetrics: metrics.ParsePercentileMetrics("ttft,tpot,itl,e2el"), Percentiles: []float64{99.9}, RequestRate: math.Inf(1)})
	obj := report.ResultObject(&m, &report.Run{Burstiness: math.Inf(1), SaveDetailed: true})
	run, err := FromObject("mem", obj)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range obj.Keys() {
		v, _ := obj.Get(k)
		f, isFloat := v.(float64)
		if !isFloat {
			continue
		}
		got, ok := run.Number(k)
		if !ok || math.Float64bits(got) != math.Float64bits(f) {
			t.Errorf("%s = %v, want %v", k, got, f)
		}
	}
	d, err := run.Detailed()
	if err != nil || d.Outputs[0].TTFT != 0.1+0.2 || d.Outputs[0].Latency != 1.0/3 {
		t.Errorf("detailed %+v, %v", d, err)
	}
}

func TestFormatValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v         float64
		want, flt string
	}{
		{500, "500", "500.00"},
		{52.3125, "52.31", "52.31"},
		{0.0025, "0.0025", "0.0025"},
		{0.123456, "0.1235", "0.1235"},
		{-3.5, "-3.50", "-3.50"},
		{0, "0", "0"},
		{math.Inf(1), "inf", "inf"},
		{math.Inf(-1), "-inf", "-inf"},
		{math.NaN(), "nan", "nan"},
		{1e308, "1e+308", "1e+308"},
		{2.5e15, "2.5e+15", "2.5e+15"},
	}
	for _, tt := range tests {
		if got := FormatValue(tt.v); got != tt.want {
			t.Errorf("FormatValue(%v) = %q, want %q", tt.v, got, tt.want)
		}
		if got := FormatFloat(tt.v); got != tt.flt {
			t.Errorf("FormatFloat(%v) = %q, want %q", tt.v, got, tt.flt)
		}
	}
}

func TestSanitize(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"a": NaN}`, `{"a": "NaN"}`},
		{`[Infinity, -Infinity, 1]`, `["Infinity", "-Infinity", 1]`},
		{`{"NaN": "Infinity"}`, `{"NaN": "Infinity"}`},
		{`{"a": "x\\", "b": NaN}`, `{"a": "x\\", "b": "NaN"}`},
		{`{"a": -1.5}`, `{"a": -1.5}`},
	}
	for _, tt := range tests {
		if got := string(sanitize([]byte(tt.in))); got != tt.want {
			t.Errorf("sanitize(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// FuzzParse: no input makes the reader panic, and whatever it accepts can
// be asked for every key, number and per-request record.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"gobench_fast.json", "vllm_detailed.json", "vllm_runs.jsonl"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"duration": NaN, "ttfts": [Infinity], "itls": [[-Infinity]], "output_lens": [1], "errors": [null]}`))
	f.Add([]byte(`{"completed": 0, "failed": 0}{"completed": 1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		runs, err := Parse("fuzz.json", data, nil)
		if err != nil {
			return
		}
		for _, r := range runs {
			for _, k := range r.Keys() {
				r.Number(k)
				r.Display(k)
				r.String(k)
			}
			r.Number(resultkey.FailedRatio)
			_, _ = r.Detailed()
			_, _ = Select(runs, r.Label())
		}
	})
}

// TestDamagedLines: a damaged line of a JSON Lines file
// (a record cut short, garbage) is skipped with a warning naming the file
// and the line; the intact runs are numbered among themselves.
func TestDamagedLines(t *testing.T) {
	t.Parallel()
	run := func(label string) string { return `{"duration": 1.0, "label": "` + label + `"}` }
	tests := []struct {
		name, data string
		labels     []string
		warnLines  []int
	}{
		{"intact", run("a") + "\n" + run("b") + "\n", []string{"a", "b"}, nil},
		{"cut last line", run("a") + "\n" + run("b") + "\n" + `{"duration": 1.0, "la`, []string{"a", "b"}, []int{3}},
		{"garbage in the middle", run("a") + "\ngarbage\n\n" + run("b"), []string{"a", "b"}, []int{2}},
		{"a run after a cut line", run("a") + "\n{\"dur\n" + run("b"), []string{"a", "b"}, []int{2}},
		{"trailing text after an object", run("a") + " x\n" + run("b"), []string{"b"}, []int{1}},
		{"pretty-printed is not damaged", "{\n  \"duration\": 1.0,\n  \"label\": \"p\"\n}\n", []string{"p"}, nil},
		{"two objects on one line", run("a") + run("b"), []string{"a", "b"}, nil},
	}
	for _, tt := range tests {
		var warn strings.Builder
		runs, err := Parse("runs.jsonl", []byte(tt.data), &warn)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		var labels []string
		for i, r := range runs {
			labels = append(labels, r.Label())
			if r.Index != i || r.Count != len(runs) {
				t.Errorf("%s: run %d has index %d of %d", tt.name, i, r.Index, r.Count)
			}
		}
		if diff := cmp.Diff(tt.labels, labels); diff != "" {
			t.Errorf("%s: labels (-want +got):\n%s", tt.name, diff)
		}
		lines := strings.Count(warn.String(), "\n")
		if lines != len(tt.warnLines) {
			t.Errorf("%s: warnings:\n%s", tt.name, warn.String())
		}
		for _, l := range tt.warnLines {
			if !strings.Contains(warn.String(), fmt.Sprintf("warning: runs.jsonl:%d: skipped a damaged line", l)) {
				t.Errorf("%s: no warning for line %d:\n%s", tt.name, l, warn.String())
			}
		}
	}
	// A file with no intact line is an error, as before.
	if _, err := Parse("runs.jsonl", []byte("garbage\n{\"duration\": 1."), nil); err == nil || !strings.Contains(err.Error(), "runs.jsonl") {
		t.Errorf("no intact line: %v", err)
	}
}

// TestObject: an object-valued key decodes with its key order; other
// values, and keys the run lacks, are no object.
func TestObject(t *testing.T) {
	t.Parallel()
	runs := fixture(t, "gobench_workload_b.json")
	w, ok := runs[0].Object("gobench_workload")
	if !ok || w.Keys()[0] != "dataset_name" {
		t.Fatalf("gobench_workload: %v %v", w, ok)
	}
	g, _ := w.Get("goodput")
	if g, ok := g.(*pyjson.Object); !ok || !cmp.Equal(g.Keys(), []string{"ttft", "e2el"}) {
		t.Errorf("goodput %v", g)
	}
	for _, k := range []string{"date", "num_prompts", "max_concurrency", "no_such_key"} {
		if _, ok := runs[0].Object(k); ok {
			t.Errorf("%s decoded as an object", k)
		}
	}
	old := fixture(t, "gobench_fast.json")
	if _, ok := old[0].Object("gobench_workload"); ok {
		t.Error("an older file has a workload")
	}
}
