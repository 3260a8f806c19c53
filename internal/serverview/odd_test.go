package serverview

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/diagnose"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyjson"
)

// serveView builds the server view as gobench serve does from the scrapes
// before and after its run (run/serverview.go: the served model, read
// without the filter when the server labels none, then Build), writes it
// as the result file does and draws it in both formats from the saved
// object. It fails the test on any error, panic or non-finite number.
func serveView(t *testing.T, name string, start, end []byte, c Client, samples []Sample) (*pyjson.Object, string) {
	t.Helper()
	in := diagnose.Input{Sources: []string{"http://127.0.0.1:8000/metrics"}, Start: [][]byte{start}, End: [][]byte{end}, Seconds: 10,
		States: samples}
	opts := diagnose.DefaultOptions()
	opts.Model = "tiny-qwen2"
	rep, err := diagnose.FromScrapes(in, opts)
	if me := (*diagnose.ModelError)(nil); errors.As(err, &me) {
		opts.Model = ""
		rep, err = diagnose.FromScrapes(in, opts)
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var o *pyjson.Object
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("%s: Build panicked: %v", name, r)
			}
		}()
		o = Build(rep, c, samples)
	}()
	if bad := pyjson.NonFinitePaths(o, "server_view"); len(bad) > 0 {
		t.Errorf("%s: not finite: %v", name, bad)
	}
	saved, err := pyjson.AppendPython(nil, o)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	back, err := pyjson.DecodeObject(saved)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var text strings.Builder
	for _, format := range []string{"text", "markdown"} {
		if err := Render(&text, back, format); err != nil {
			t.Fatalf("%s %s: %v", name, format, err)
		}
	}
	return o, text.String()
}

// oddPage is a TTFT histogram with buckets 0.1 and +Inf and extra lines.
func oddPage(le01, inf float64, extra string) []byte {
	return fmt.Appendf(nil, "# TYPE vllm:time_to_first_token_seconds histogram\n"+
		"vllm:time_to_first_token_seconds_bucket{le=\"0.1\"} %v\nvllm:time_to_first_token_seconds_bucket{le=\"+Inf\"} %v\n%s", le01, inf, extra)
}

// oddWindow is a window of ../diagnose/testdata/odd (its README says
// what each is): the scrapes before and after a run.
type oddWindow struct {
	name       string
	start, end []byte
}

// oddWindows reads the windows diagnose's tests read too.
func oddWindows(t *testing.T) []oddWindow {
	t.Helper()
	dir := filepath.Join("..", "diagnose", "testdata", "odd")
	starts, err := filepath.Glob(filepath.Join(dir, "*.start.prom"))
	if err != nil || len(starts) == 0 {
		t.Fatalf("no windows in %s: %v", dir, err)
	}
	var out []oddWindow
	for _, f := range starts {
		w := oddWindow{name: strings.TrimSuffix(filepath.Base(f), ".start.prom")}
		if w.start, err = os.ReadFile(f); err == nil {
			w.end, err = os.ReadFile(strings.TrimSuffix(f, ".start.prom") + ".end.prom")
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, w)
	}
	return out
}

// TestOddPages: scrapes a server may legally give, before and after a
// run, through the path gobench serve takes. Each once made a figure NaN
// and the run panic writing it ("serverview: json: unsupported value:
// NaN"), losing the result; each unknown figure is now null in the object
// and "-" in the section.
func TestOddPages(t *testing.T) {
	t.Parallel()
	tests := oddWindows(t)
	for _, tt := range tests {
		o, text := serveView(t, tt.name, tt.start, tt.end, client(), []Sample{{At: 1, Running: math.NaN(), Waiting: math.NaN(),
			KVMean: math.NaN(), KVMax: math.NaN(), Preemptions: math.NaN()}})
		for _, line := range strings.Split(text, "\n") {
			// The notes may say a sample was NaN; no figure may be.
			if strings.Contains(line, "NaN") && !strings.Contains(line, "note: ") {
				t.Errorf("%s: the section shows a NaN: %q", tt.name, line)
			}
		}
		rows, _ := o.Get("client_vs_server")
		if ttft := rows.([]*pyjson.Object)[0]; tt.name != "seed-sample-counters-growing" {
			server, _ := ttft.Get("server")
			mean, _ := server.(*pyjson.Object).Get("mean")
			if mean != nil {
				t.Errorf("%s: server mean %v, want null", tt.name, mean)
			}
		}
	}
}

// FuzzServerView builds the server_view object from arbitrary scrapes
// (the input split at its first NUL byte into the start and the end of
// the run) and a client whose records carry arbitrary times: it never
// panics, holds no NaN or infinity, encodes and draws.
func FuzzServerView(f *testing.F) {
	for _, seed := range []string{
		"\x00" + page, startPage + "\x00" + page, string(oddPage(0, 0, "")) + "\x00" + string(oddPage(2, 4, "")),
		"\x00llamacpp:requests_deferred 8\nllamacpp:requests_processing 8\n", "a NaN\x00a +Inf\n",
	} {
		f.Add([]byte(seed), 0.05, 0.2)
	}
	f.Fuzz(func(t *testing.T, data []byte, ttft, latency float64) {
		start, end, found := strings.Cut(string(data), "\x00")
		in := diagnose.Input{End: [][]byte{[]byte(end)}, Seconds: ttft}
		if found {
			in.Start = [][]byte{[]byte(start)}
		}
		rep, err := diagnose.FromScrapes(in, diagnose.DefaultOptions())
		if err != nil {
			return // a page that does not parse, or several models
		}
		prompt := latency / 2
		c := Client{Result: &metrics.Result{ActualOutputLens: []int{3}, Outputs: []metrics.Output{{Success: true, TTFT: ttft,
			Latency: latency, ITL: []float64{latency - ttft}, ServerPromptTime: &prompt, ServerDecodeTime: &latency}}}, MaxConcurrency: 1}
		o := Build(rep, c, []Sample{{At: ttft, Running: latency, Waiting: math.NaN(), KVMax: math.Inf(1)}})
		if bad := pyjson.NonFinitePaths(o, "server_view"); len(bad) > 0 {
			t.Fatalf("not finite: %v", bad)
		}
		if _, err := pyjson.AppendPython(nil, o); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := Render(&b, o, "text"); err != nil {
			t.Fatal(err)
		}
	})
}
