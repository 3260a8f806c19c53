package gate

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/golden"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		expr string
		want Threshold // Expr is filled in by the test
		text string    // canonical String()
	}{
		{"p99_ttft_ms<500", Threshold{Key: "p99_ttft_ms", Op: Less, Value: 500}, "p99_ttft_ms<500"},
		{" p99_ttft_ms <= 500.5 ", Threshold{Key: "p99_ttft_ms", Op: LessEq, Value: 500.5}, "p99_ttft_ms<=500.5"},
		{"request_throughput>10", Threshold{Key: "request_throughput", Op: Greater, Value: 10}, "request_throughput>10"},
		{"completed>=1e3", Threshold{Key: "completed", Op: GreaterEq, Value: 1000}, "completed>=1000"},
		{"failed_ratio<0.01", Threshold{Key: "failed_ratio", Op: Less, Value: 0.01}, "failed_ratio<0.01"},
		{"p99.9_itl_ms<-.5", Threshold{Key: "p99.9_itl_ms", Op: Less, Value: -0.5}, "p99.9_itl_ms<-0.5"},
		{"p1e-05_ttft_ms<3", Threshold{Key: "p1e-05_ttft_ms", Op: Less, Value: 3}, "p1e-05_ttft_ms<3"},
		{"p99_ttft_ms<=baseline", Threshold{Key: "p99_ttft_ms", Op: LessEq, Relative: true}, "p99_ttft_ms<=baseline"},
		{"p99_ttft_ms <= baseline * 1.05", Threshold{Key: "p99_ttft_ms", Op: LessEq, Relative: true, BaselineOp: '*', Value: 1.05}, "p99_ttft_ms<=baseline*1.05"},
		{"mean_tpot_ms<Baseline+2", Threshold{Key: "mean_tpot_ms", Op: Less, Relative: true, BaselineOp: '+', Value: 2}, "mean_tpot_ms<baseline+2"},
		{"output_throughput>=baseline-50", Threshold{Key: "output_throughput", Op: GreaterEq, Relative: true, BaselineOp: '-', Value: 50}, "output_throughput>=baseline-50"},
		{"completed==150", Threshold{Key: "completed", Op: Equal, Value: 150}, "completed==150"},
		{"failed != 0", Threshold{Key: "failed", Op: NotEqual}, "failed!=0"},
		{"server_view.verdict==healthy", Threshold{Key: "server_view.verdict", Op: Equal, IsText: true, Text: "healthy"}, `server_view.verdict=="healthy"`},
		{" server_view.verdict != queue/seq-limit ", Threshold{Key: "server_view.verdict", Op: NotEqual, IsText: true, Text: "queue/seq-limit"}, `server_view.verdict!="queue/seq-limit"`},
		{`server_view.verdict == "a <b>=c!" `, Threshold{Key: "server_view.verdict", Op: Equal, IsText: true, Text: "a <b>=c!"}, `server_view.verdict=="a <b>=c!"`},
		{`label==""`, Threshold{Key: "label", Op: Equal, IsText: true}, `label==""`},
		{`label=="baseline"`, Threshold{Key: "label", Op: Equal, IsText: true, Text: "baseline"}, `label=="baseline"`},
		{"server_view.verdict==baseline", Threshold{Key: "server_view.verdict", Op: Equal, Relative: true}, "server_view.verdict==baseline"},
		{"server_view.quantiles.vllm:time_to_first_token_seconds.p99<0.5",
			Threshold{Key: "server_view.quantiles.vllm:time_to_first_token_seconds.p99", Op: Less, Value: 0.5},
			"server_view.quantiles.vllm:time_to_first_token_seconds.p99<0.5"},
		{"server_view.gauges.peak.kv_cache_usage_perc_max_engine<0.9",
			Threshold{Key: "server_view.gauges.peak.kv_cache_usage_perc_max_engine", Op: Less, Value: 0.9},
			"server_view.gauges.peak.kv_cache_usage_perc_max_engine<0.9"},
		{"server_view.ratios.preemptions<=baseline+1", Threshold{Key: "server_view.ratios.preemptions", Op: LessEq, Relative: true, BaselineOp: '+', Value: 1},
			"server_view.ratios.preemptions<=baseline+1"},
		{"server_view.client_vs_server.ttft.gap_mean<0.01", Threshold{Key: "server_view.client_vs_server.ttft.gap_mean", Op: Less, Value: 0.01},
			"server_view.client_vs_server.ttft.gap_mean<0.01"},
	}
	for _, tt := range tests {
		got, err := Parse(tt.expr)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.expr, err)
			continue
		}
		tt.want.Expr = tt.expr
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Parse(%q) (-want +got):\n%s", tt.expr, diff)
		}
		if s := got.String(); s != tt.text {
			t.Errorf("String() = %q, want %q", s, tt.text)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ expr, want string }{
		{"p99_ttft_ms", "no comparison"},
		{"p99_ttft_ms<<500", `"<<" is not a comparison`},
		{"p99_ttft_ms===500", `"===" is not a comparison; use <, <=, >, >=, == or !=`},
		{"p99_ttft_ms=500", `"=" is not a comparison`},
		{"p99_ttft_ms!500", `"!" is not a comparison`},
		{"p99_ttft_ms=!500", `"=!" is not a comparison`},
		{"p99_ttft_ms=<500", `"=<" is not a comparison`},
		{"p99_ttft_ms< =500", "more than one comparison"},
		{"0<p99_ttft_ms<5", "more than one comparison"},
		{"<500", "no key before the comparison"},
		{"p99 ttft<500", `"p99 ttft" is not a result key`},
		{"99p<500", `"99p" is not a result key`},
		{"p99_ttft_ms<", `no limit after "<"`},
		{"p99_ttft_ms<fast", `limit "fast"`},
		{"p99_ttft_ms<inf", `limit "inf"`},
		{"p99_ttft_ms<1e999", "not a finite number"},
		{"p99_ttft_ms<500ms", `"500ms" is not a finite number`},
		{"p99_ttft_ms<baseline/2", `expected *NUMBER, +NUMBER or -NUMBER, got "/2"`},
		{"p99_ttft_ms<baseline*", "missing number"},
		{"p99_ttft_ms<baselines", `got "s"`},
		{"p99_ttft_ms<healthy", `limit "healthy": "healthy" is not a number (a number, or baseline`},
		{`server_view.verdict<"healthy"`, `text ("healthy") compares only with == or !=`},
		{`server_view.verdict=="healthy`, `no closing quote in "healthy`},
		{`server_view.verdict=="a"b"`, `text after the closing quote of "a"`},
		{`server_view.verdict=="a" == "b"`, `text after the closing quote of "a"`},
		{"server_view.verdict==healthy==x", "more than one comparison"},
		{"p99_ttft_ms==500ms", `"500ms" is not a finite number (a number, a word such as healthy, "quoted text", or baseline`},
		{"server_view.verdict==queue seq", `limit "queue seq"`},
		{"server_view.verdict==", `no limit after "=="`},
		{"server_view.a b==healthy", `"server_view.a b" is not a result key`},
		{"server_view.quantiles.vllm/ttft.p99<1", `is not a result key`},
		{"9server_view.verdict==healthy", `is not a result key`},
	}
	for _, tt := range tests {
		_, err := Parse(tt.expr)
		if err == nil || !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), tt.want) ||
			!strings.Contains(err.Error(), strconv.Quote(tt.expr)) {
			t.Errorf("Parse(%q) error %v; want ErrSyntax naming the expression and saying %q", tt.expr, err, tt.want)
		}
	}
	if _, err := ParseAll([]string{"a<1", "b<<2"}); err == nil || !strings.Contains(err.Error(), "b<<2") {
		t.Errorf("ParseAll: %v", err)
	}
}

// values is a map-backed Values: numbers (float64 or int) and text.
type values map[string]any

func (v values) Number(k string) (float64, bool) {
	switch x := v[k].(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	}
	return 0, false
}

func (v values) String(k string) (string, bool) {
	x, ok := v[k].(string)
	return x, ok
}

func mustParse(t *testing.T, exprs ...string) []Threshold {
	t.Helper()
	ths, err := ParseAll(exprs)
	if err != nil {
		t.Fatal(err)
	}
	return ths
}

func TestEvaluate(t *testing.T) {
	t.Parallel()
	result := values{"completed": 100, "p99_ttft_ms": 52.5, "failed_ratio": 0.02, "request_throughput": 9.5, "nan_ms": math.NaN()}
	base := values{"completed": 100, "p99_ttft_ms": 50, "request_throughput": 10}
	tests := []struct {
		expr    string
		pass    bool
		limit   float64
		problem string
	}{
		{"p99_ttft_ms<500", true, 500, ""},
		{"p99_ttft_ms<52.5", false, 52.5, ""}, // strict
		{"p99_ttft_ms<=52.5", true, 52.5, ""}, // boundary
		{"p99_ttft_ms>52.5", false, 52.5, ""},
		{"p99_ttft_ms>=52.5", true, 52.5, ""},
		{"failed_ratio<0.01", false, 0.01, ""},
		{"p99_ttft_ms<=baseline*1.05", true, 52.5, ""},
		{"p99_ttft_ms<=baseline*1.04", false, 52, ""},
		{"p99_ttft_ms<baseline+3", true, 53, ""},
		{"request_throughput>=baseline-0.5", true, 9.5, ""},
		{"request_throughput>=baseline", false, 10, ""},
		{"nan_ms<1", false, 1, ""}, // NaN never passes
		{"p50_ttft_ms<1", false, 1, ProblemNoKey},
		{"failed_ratio<=baseline", false, math.NaN(), ProblemNoBaselineKey},
	}
	for _, tt := range tests {
		rep := Evaluate(mustParse(t, tt.expr), result, base)
		v := rep.Verdicts[0]
		if v.Pass != tt.pass || v.Problem != tt.problem || !(v.Limit == tt.limit || math.IsNaN(tt.limit) && math.IsNaN(v.Limit)) {
			t.Errorf("%s: pass %v limit %v problem %q; want %v %v %q", tt.expr, v.Pass, v.Limit, v.Problem, tt.pass, tt.limit, tt.problem)
		}
		if rep.Passed() != tt.pass {
			t.Errorf("%s: Passed() = %v", tt.expr, rep.Passed())
		}
	}
	rep := Evaluate(mustParse(t, "p99_ttft_ms<=baseline"), result, nil)
	if v := rep.Verdicts[0]; v.Pass || v.Problem != ProblemNoBaseline {
		t.Errorf("relative without baseline: %+v", v)
	}
	var problems []string
	for _, v := range Evaluate(mustParse(t, "a<1", "p99_ttft_ms<1", "b<1"), result, nil).Verdicts {
		problems = append(problems, v.Problem)
	}
	if want := []string{ProblemNoKey, "", ProblemNoKey}; !cmp.Equal(problems, want) {
		t.Errorf("problems = %q, want %q", problems, want)
	}
}

// TestEvaluateEquality: == and != on numbers and on text, text against a
// baseline's text, and a number compared with text or the reverse.
func TestEvaluateEquality(t *testing.T) {
	t.Parallel()
	result := values{"completed": 150, "failed": 0, "nan_ms": math.NaN(), "server_view.verdict": "queue/seq-limit",
		"server_view.ratios.preemptions": 3.0}
	base := values{"completed": 150, "server_view.verdict": "healthy", "server_view.ratios.preemptions": 3.0}
	same := values{"server_view.verdict": "queue/seq-limit"}
	tests := []struct {
		expr     string
		baseline Values
		pass     bool
		text     bool
		problem  string
		explain  string
	}{
		{"completed==150", nil, true, false, "", "150 == 150"},
		{"completed!=150", nil, false, false, "", "150 == 150"},
		{"failed!=0", nil, false, false, "", "0 == 0"},
		{"failed==0", nil, true, false, "", "0 == 0"},
		{"nan_ms!=1", nil, false, false, "", "nan is not comparable with 1"}, // NaN never holds
		{"nan_ms==1", nil, false, false, "", "nan is not comparable with 1"},
		{"server_view.ratios.preemptions==baseline", base, true, false, "", "3 == 3 (baseline 3)"},
		{"server_view.ratios.preemptions!=baseline", base, false, false, "", "3 == 3 (baseline 3)"},
		{"server_view.verdict==healthy", nil, false, true, "", `"queue/seq-limit" != "healthy"`},
		{"server_view.verdict!=healthy", nil, true, true, "", `"queue/seq-limit" != "healthy"`},
		{`server_view.verdict=="queue/seq-limit"`, nil, true, true, "", `"queue/seq-limit" == "queue/seq-limit"`},
		{"server_view.verdict==baseline", base, false, true, "", `"queue/seq-limit" != "healthy" (baseline "healthy")`},
		{"server_view.verdict==baseline", same, true, true, "", `"queue/seq-limit" == "queue/seq-limit" (baseline "queue/seq-limit")`},
		{"server_view.verdict!=baseline", same, false, true, "", `"queue/seq-limit" == "queue/seq-limit" (baseline "queue/seq-limit")`},
		{"server_view.verdict==baseline", values{}, false, true, ProblemNoBaselineKey, ProblemNoBaselineKey},
		{"server_view.verdict<1", nil, false, false, ProblemText, ProblemText},
		{"server_view.verdict==1", nil, false, false, ProblemText, ProblemText},
		{"server_view.verdict<=baseline*2", base, false, false, ProblemText, ProblemText},
		{"completed==healthy", nil, false, true, ProblemNumber, ProblemNumber},
		{"server_view.gauges.peak.running==healthy", nil, false, true, ProblemNoKey, ProblemNoKey},
		{"server_view.gauges.peak.running<1", nil, false, false, ProblemNoKey, ProblemNoKey},
	}
	for _, tt := range tests {
		rep := Evaluate(mustParse(t, tt.expr), result, tt.baseline)
		v := rep.Verdicts[0]
		if v.Pass != tt.pass || v.Text != tt.text || v.Problem != tt.problem || v.explain() != tt.explain {
			t.Errorf("%s: pass %v text %v problem %q explain %q; want %v %v %q %q",
				tt.expr, v.Pass, v.Text, v.Problem, v.explain(), tt.pass, tt.text, tt.problem, tt.explain)
		}
	}
}

// TestAllFailedNeverPasses: a run without a successful request fails every
// threshold, even those its zero statistics would meet.
func TestAllFailedNeverPasses(t *testing.T) {
	t.Parallel()
	result := values{"completed": 0, "failed": 10, "failed_ratio": 1, "p99_ttft_ms": 0, "request_throughput": 0}
	rep := Evaluate(mustParse(t, "p99_ttft_ms<500", "failed_ratio<=1", "request_throughput>=0"), result, nil)
	if rep.Passed() || !rep.AllFailed || rep.Failed() != 3 {
		t.Fatalf("passed %v allFailed %v failed %d", rep.Passed(), rep.AllFailed, rep.Failed())
	}
	for _, v := range rep.Verdicts {
		if v.Problem != ProblemAllFailed {
			t.Errorf("%s: problem %q", v.Threshold.Expr, v.Problem)
		}
	}
}

// noted is a values whose keys in notes were computed, not read.
type noted struct {
	values
	notes map[string]string
}

func (n noted) Note(k string) string { return n.notes[k] }

// TestRender: verdicts with notes and a warning, in every format.
func TestRender(t *testing.T) {
	t.Parallel()
	result := noted{values{"completed": 100, "p99_ttft_ms": 52.5, "failed_ratio": 0.0025, "output_throughput": 1500.25, "p95_ttft_ms": 50.25},
		map[string]string{"p95_ttft_ms": "computed from 100 per-request records, not in the result"}}
	base := values{"completed": 100, "p99_ttft_ms": 48, "output_throughput": 1400}
	rep := Evaluate(mustParse(t, "p99_ttft_ms<500", "p99_ttft_ms<=baseline*1.05", "failed_ratio<0.01",
		"output_throughput>=baseline*0.95", "p90_ttft_ms<100", "mean_itl_ms<baseline", "p95_ttft_ms<50"), result, base)
	rep.Warnings = []string{"workload differs, baseline → result: request_rate 5.0 → 10.0"}
	checkRenderings(t, rep)
}

// TestRenderEquality: verdicts of == and != on text and on numbers,
// against a baseline too, in every format.
func TestRenderEquality(t *testing.T) {
	t.Parallel()
	result := values{"completed": 100, "server_view.verdict": "queue/seq-limit", "server_view.ratios.preemptions": 0.0}
	base := values{"completed": 100, "server_view.verdict": "healthy"}
	rep := Evaluate(mustParse(t, "server_view.verdict==healthy", "server_view.verdict!=baseline", `server_view.verdict!="queue/memory-thrashing"`,
		"server_view.ratios.preemptions==0", "server_view.gauges.peak.num_requests_waiting<10", "completed==healthy"), result, base)
	checkRenderings(t, rep)
}

// checkRenderings compares every format of rep with its golden file.
func checkRenderings(t *testing.T, rep *Report) {
	t.Helper()
	for _, format := range []string{"text", "markdown", "json"} {
		t.Run(format, func(t *testing.T) {
			var b bytes.Buffer
			var err error
			switch format {
			case "text":
				err = rep.WriteText(&b)
			case "markdown":
				err = rep.WriteMarkdown(&b)
			default:
				err = pyjson.WritePython(&b, rep.Object())
			}
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, b.Bytes())
		})
	}
}

// FuzzParse: Parse never panics, and whatever it accepts reads back from
// its canonical form to the same threshold.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"p99_ttft_ms<500", "a <= baseline*1.05", "x>=baseline-2", "p99.9_itl_ms>-1e3", "k<<1", "=", "baseline",
		"server_view.verdict==healthy", `a.b:c.d != "x y"`, "a.b==baseline", `k=="`, `k==""`, "completed==1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		th, err := Parse(expr)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("Parse(%q): error %v does not wrap ErrSyntax", expr, err)
			}
			return
		}
		again, err := Parse(th.String())
		if err != nil {
			t.Fatalf("Parse(%q) = %v, but its String %q does not parse: %v", expr, th, th.String(), err)
		}
		again.Expr = th.Expr
		if !cmp.Equal(th, again) {
			t.Fatalf("round trip of %q: %+v != %+v", expr, th, again)
		}
	})
}
