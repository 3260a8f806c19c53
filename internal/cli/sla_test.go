package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gobench/gobench/internal/testserver"
)

// TestSLASearchFindsSimulatorCapacity: `gobench sweep sla` against the
// simulator's engine model, whose capacity is known from its
// configuration. With a step of fixed cost T (no per-token or per-sequence
// cost), a request holds one of max_num_seqs slots for exactly output_len
// steps (its prompt's step yields the first token, then one token a step),
// so the engine completes at most
//
//	capacity = max_num_seqs / (output_len · T) = 8 / (5 · 10 ms) = 160 requests/s.
//
// Arrivals are evenly spaced (--burstiness inf): below the capacity no
// request queues (TTFT is one or two steps, 10–20 ms), above it the queue
// grows by (rate − capacity) requests a second, and the TTFT objective
// (60 ms for 90 % of the requests) fails within the second a point lasts
// once the rate is a few percent past the capacity. The search must land
// within 10 % of it, with the smallest failing rate above the answer.
//
// The search, its runs and the simulator run in a synctest bubble over an
// in-memory listener, so every interval is the model's in virtual time,
// however loaded the machine: no point can fail because the machine was
// slow, and the answer is the model's.
func TestSLASearchFindsSimulatorCapacity(t *testing.T) {
	const maxNumSeqs, outputLen, step = 8, 5, 0.010
	capacity := maxNumSeqs / (outputLen * step)
	got, out, errOut := slaSearchInBubble(t, "--sla-good-ratio", "0.9", "--time-budget", "300", "--",
		"serve", "--sim", "--sim-engine", "scheduler", "--sim-max-num-seqs", "8", "--sim-step-time-base", "0.01",
		"--sim-step-time-per-token", "0", "--sim-step-time-per-seq", "0", "--dataset-name", "random",
		"--random-input-len", "16", "--random-output-len", "5", "--ignore-eos", "--num-prompts", "160",
		"--burstiness", "inf", "--goodput", "ttft:60")
	if math.Abs(got.Answer-capacity) > 0.1*capacity || got.Stop != "converged" {
		t.Errorf("answer %v req/s (stop %q), want within 10%% of the capacity %v req/s\n%s", got.Answer, got.Stop, capacity, out)
	}
	if len(got.Interval) != 2 || !(got.Interval[1] > got.Answer) {
		t.Errorf("interval %v: the smallest failing rate lies above the answer", got.Interval)
	}
	for _, p := range got.Points {
		if r, ok := p.Rate.(float64); ok && r <= capacity/2 && p.Verdict != "pass" {
			t.Errorf("a point at %v req/s, half the capacity or less, is %q: the model queues nothing there", r, p.Verdict)
		}
		if p.File == "" {
			t.Errorf("a point at %v has no result file", p.Rate)
		}
	}
	for _, want := range []string{"request_rate", "90% of requests meet ttft:60", "Largest request_rate meeting the objectives: "} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "SLA point 1: request_rate=inf, 160 requests") {
		t.Errorf("stderr lacks the progress lines:\n%s", errOut)
	}
	if !strings.Contains(errOut, "Prefix cache: reset before each point") {
		t.Errorf("stderr does not say that each point starts from a reset cache:\n%s", errOut)
	}
}

// slaSearch is what the tests read of sla.json.
type slaSearch struct {
	Answer   float64   `json:"answer"`
	Interval []float64 `json:"answer_interval"`
	Stop     string    `json:"stop"`
	Points   []struct {
		Rate    any    `json:"request_rate"`
		Verdict string `json:"verdict"`
		File    string `json:"file"`
	} `json:"points"`
}

// slaGuard bounds a search in a bubble, in virtual time: far beyond the
// --time-budget the tests give, so that only a search that ignores its
// budget meets it.
const slaGuard = 30 * time.Minute

// slaSearchInBubble runs `gobench sweep sla --output-dir DIR args...` in a
// synctest bubble, the simulator of the serve line's --sim listening in
// memory, checks that every point left its result file and transcript,
// and returns sla.json, stdout and stderr.
func slaSearchInBubble(t *testing.T, args ...string) (got slaSearch, stdout, stderr string) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), slaGuard)
		defer cancel()
		ln := testserver.NewPipeListener()
		var out, errOut bytes.Buffer
		deps := Deps{Stdout: &out, Stderr: &errOut, Version: "test", Transport: pipeTransport(ln),
			SimListen: func(context.Context, string, string) (net.Listener, error) { return ln, nil }}
		code := Main(ctx, append([]string{"sweep", "sla", "--output-dir", dir}, args...), deps)
		stdout, stderr = out.String(), errOut.String()
		if code != 0 || ctx.Err() != nil {
			t.Fatalf("exit %d (guard: %v)\n%s\n%s", code, ctx.Err(), stdout, stderr)
		}
		data, err := os.ReadFile(filepath.Join(dir, "sla.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatalf("sla.json: %v\n%s", err, data)
		}
		for _, p := range got.Points {
			if p.File == "" {
				continue // a point cut short before it measured anything
			}
			for _, path := range []string{p.File, strings.TrimSuffix(p.File, ".json") + ".log"} {
				if _, err := os.Stat(path); err != nil {
					t.Errorf("a point's result or transcript: %v", err)
				}
			}
		}
	})
	return got, stdout, stderr
}

// TestSLABadInput: every mistake exits 2 before anything runs, naming the
// flag.
func TestSLABadInput(t *testing.T) {
	t.Parallel()
	serve := []string{"--", "--sim", "--goodput", "ttft:60"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no serve line", []string{"sweep", "sla", "--sla-good-ratio", "0.9"}, `goes after "--"`},
		{"no objective", []string{"sweep", "sla", "--", "vllm", "bench", "serve", "--sim"}, "no objective"},
		{"serve flag", []string{"sweep", "sla", "--", "--sim", "--num-prompts", "x", "--goodput", "ttft:1"}, "the serve command line after --: argument --num-prompts"},
		{"goodput", []string{"sweep", "sla", "--", "--sim", "--goodput", "ttft:0"}, "argument --goodput"},
		{"dry run", append([]string{"sweep", "sla"}, append(serve, "--dry-run")...), "--dry-run"},
		{"rate set", append([]string{"sweep", "sla"}, append(serve, "--request-rate", "5")...), "--request-rate: the search sets it"},
		{"concurrency set", append([]string{"sweep", "sla", "--sla-variable", "max_concurrency"}, append(serve, "--max-concurrency", "5")...), "--max-concurrency: the search sets it"},
		{"threshold", append([]string{"sweep", "sla"}, append(serve, "--threshold", "p99_ttft_ms<=5")...), "--threshold, --summary-file and --format are serve's"},
		{"good ratio", append([]string{"sweep", "sla", "--sla-good-ratio", "1.5"}, serve...), "argument --sla-good-ratio"},
		{"criterion", append([]string{"sweep", "sla", "--sla", "p99_ttft_ms=5"}, serve...), "argument --sla"},
		{"variable", append([]string{"sweep", "sla", "--sla-variable", "rate"}, serve...), "argument --sla-variable: invalid choice"},
		{"budget", append([]string{"sweep", "sla", "--time-budget", "0"}, serve...), "argument --time-budget"},
		{"confidence", append([]string{"sweep", "sla", "--sla-confidence", "1"}, serve...), "argument --sla-confidence"},
		{"min", append([]string{"sweep", "sla", "--sla-min", "0"}, serve...), "argument --sla-min"},
		{"max", append([]string{"sweep", "sla", "--sla-min", "5", "--sla-max", "2"}, serve...), "argument --sla-max"},
		{"whole", append([]string{"sweep", "sla", "--sla-variable", "max_concurrency", "--sla-max", "2.5"}, serve...), "argument --sla-max/--sla-min"},
		{"tolerance", append([]string{"sweep", "sla", "--sla-tolerance", "0"}, serve...), "argument --sla-tolerance"},
		{"reruns", append([]string{"sweep", "sla", "--sla-max-reruns", "-1"}, serve...), "argument --sla-max-reruns"},
		{"params file", append([]string{"sweep", "sla", "--sla-params", "no-such.json"}, serve...), "argument --sla-params"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, errOut, code := runMain(t, tc.args...)
			if code != 2 || !strings.Contains(errOut, tc.want) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2 and %q", code, out, errOut, tc.want)
			}
		})
	}
}

// TestSLAParamsFile: vLLM's --sla-params file gives the objectives (one
// set: gobench searches one per command).
func TestSLAParamsFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	two := filepath.Join(dir, "two.json")
	if err := os.WriteFile(two, []byte(`[{"p99_ttft_ms": "<=500"}, {"p99_ttft_ms": "<=200"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runMain(t, "sweep", "sla", "--sla-params", two, "--", "--sim")
	if code != 2 || !strings.Contains(errOut, "holds 2 sets of objectives") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	one := filepath.Join(dir, "one.json")
	if err := os.WriteFile(one, []byte(`[{"p99_ttft_ms": "<=500", "median_e2el_ms": ">=1"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = runMain(t, "sweep", "sla", "--sla-params", one, "--", "--sim")
	if code != 2 || !strings.Contains(errOut, `"median_e2el_ms>=1": only upper bounds`) {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// TestSLATimeBudget: a point still running when the budget ends is
// stopped and reported cut short; one that would end past the budget is
// not started. The search still prints and saves what it has, exit 0. It
// runs in virtual time (slaSearchInBubble), so the budget's second is the
// model's, not the machine's.
func TestSLATimeBudget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		// The first point (rate inf) waits 30 s for its first tokens; the
		// budget stops it after one second.
		{"cut", []string{"--time-budget", "1", "--", "--sim", "--sim-ttft", "30", "--num-prompts", "2", "--goodput", "ttft:100"},
			[]string{"cut short", "No request_rate was shown to meet the objectives before the search ended (time budget)."}},
		// 10 requests at 2 a second take 5 s: more than the budget.
		{"not started", []string{"--time-budget", "2", "--sla-max", "2", "--", "--sim", "--num-prompts", "10", "--goodput", "ttft:100"},
			[]string{"No request_rate was shown to meet the objectives before the search ended (time budget)."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, out, _ := slaSearchInBubble(t, tc.args...)
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
