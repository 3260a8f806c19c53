package cli

import (
	"context"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/run"
	"github.com/gobench/gobench/internal/sweep"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/pflag"
)

// benchBase is the bench command of the parameter tests: flags of each
// kind serve converts after parsing (a sampling parameter, a list), so
// that a parameter meets something to replace or add to.
var benchBase = []string{"vllm", "bench", "serve", "--base-url", "http://127.0.0.1:1", "--model", "m",
	"--num-prompts", "5", "--temperature", "0.5", "--goodput", "ttft:100", "--header", "a=1"}

// benchRamp is a bench command with a ramp-up, which a parameter changes
// one bound of.
var benchRamp = []string{"gobench", "serve", "--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "8"}

// testDeps are the surroundings of a parse in a test.
func testDeps() *Deps {
	return &Deps{Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }, Version: "test"}
}

// comb is a combination of the JSON object text.
func comb(t *testing.T, text string) sweep.Comb {
	t.Helper()
	o, err := pyjson.DecodeObject([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return sweep.NewComb(o)
}

// TestBenchParamsAsFlags: a run's parameters set on the bench command's
// parsed options give the options serve parses from the command line with
// the parameters written in (vLLM's apply_to_cmd, how the sweep ran them
// before), for flags bound to one field and for those serve converts
// (a concurrency, lengths that fan out to the datasets, a sampling
// parameter added to one given, a list replaced, the ramp-up), and the
// same argument namespace.
func TestBenchParamsAsFlags(t *testing.T) {
	t.Parallel()
	deps := testDeps()
	for _, tc := range []struct {
		base   []string
		params string
	}{
		{benchBase, `{}`}, {benchBase, `{"request_rate": 50}`}, {benchBase, `{"request_rate": "inf", "_benchmark_name": "burst"}`},
		{benchBase, `{"max_concurrency": 4}`}, {benchBase, `{"num-prompts": 7, "seed": 3}`},
		{benchBase, `{"input_len": 32, "output_len": 8}`}, {benchBase, `{"random_range_ratio": 0.5}`},
		{benchBase, `{"top_k": 5, "min_p": 0.1}`}, {benchBase, `{"temperature": 0.9}`}, {benchBase, `{"goodput": "e2el:900"}`},
		{benchBase, `{"header": "b=2"}`}, {benchBase, `{"ignore_eos": true}`}, {benchBase, `{"percentile_metrics": "ttft,e2el"}`},
		{benchBase, `{"metric_percentiles": "50,99"}`}, {benchBase, `{"extra_body": {"top_k": 5}}`},
		{benchBase, `{"served_model_name": "served"}`}, {benchBase, `{"backend": "openai-chat", "endpoint": "/v1/chat/completions"}`},
		{benchBase, `{"read_timeout": 30, "logprobs": 2}`}, {benchBase, `{"request_id_prefix": "mine-"}`},
		{benchBase, `{"save_result": true, "result_dir": "d", "result_filename": "run=0.json"}`},
		{benchRamp, `{"ramp_up_end_rps": 20}`}, {benchRamp, `{"ramp_up_strategy": "exponential"}`},
	} {
		line, err := parseBenchLine(context.Background(), deps, tc.base)
		if err != nil {
			t.Fatal(err)
		}
		c := comb(t, tc.params)
		got, err := line.apply(c)
		if err != nil {
			t.Errorf("%s: %v", tc.params, err)
			continue
		}
		args, _ := sweep.BenchArgs(c.Apply(tc.base))
		want, _, err := parseServeArgs(context.Background(), deps, args)
		if err != nil {
			t.Fatalf("%s: the command line: %v", tc.params, err)
		}
		if !c.Has("request_id_prefix") {
			// Drawn afresh for every run, as for every command line.
			if got.Run.RequestIDPrefix == line.base.Run.RequestIDPrefix {
				t.Errorf("%s: the run has the bench command's request id prefix %q", tc.params, got.Run.RequestIDPrefix)
			}
			want.Run.RequestIDPrefix = got.Run.RequestIDPrefix
			want.Run.Args.Set("request_id_prefix", got.Run.RequestIDPrefix)
		}
		if diff := optionsDiff(want.Run, got.Run); diff != "" {
			t.Errorf("%s: options (-command line +parameters):\n%s", tc.params, diff)
		}
	}
}

// optionsDiff compares two runs' options but for the command line they
// record, which says how each was given.
func optionsDiff(want, got run.Options) string {
	ignore := cmpopts.IgnoreFields(run.Options{}, "CommandLine")
	return cmp.Diff(want, got, ignore, cmpopts.EquateNaNs(), cmp.Exporter(func(reflect.Type) bool { return true }))
}

// TestBenchParamsCommandLine: a run records the bench command's line with
// its parameters in place of the flags they replace, or after them.
func TestBenchParamsCommandLine(t *testing.T) {
	t.Parallel()
	line, err := parseBenchLine(context.Background(), testDeps(), []string{"gobench", "serve", "--num-prompts", "5", "--seed", "1"})
	if err != nil {
		t.Fatal(err)
	}
	so, err := line.apply(comb(t, `{"num_prompts": 7, "ignore_eos": true, "save_result": true}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := "gobench serve --num-prompts=7 --seed=1 --ignore-eos --save-result"; so.Run.CommandLine != want {
		t.Errorf("command line %q, want %q", so.Run.CommandLine, want)
	}
}

// TestBenchParamsRefused: a parameter that names no serve flag, one that
// no single run can set, a dotted key and a value the flag refuses each
// fail with the parameter named.
func TestBenchParamsRefused(t *testing.T) {
	t.Parallel()
	line, err := parseBenchLine(context.Background(), testDeps(), []string{"gobench", "serve", "--sim"})
	if err != nil {
		t.Fatal(err)
	}
	for params, want := range map[string][]string{
		`{"num_promptz": 5}`:         {`bench parameter "num_promptz"`, "no flag --num-promptz", "did you mean --num-prompts?"},
		`{"num_runs": 2}`:            {`bench parameter "num_runs"`, "cannot vary between runs"},
		`{"sim_max_num_seqs": 8}`:    {`bench parameter "sim_max_num_seqs"`, "--serve-params"},
		`{"threshold": "x"}`:         {`bench parameter "threshold"`, "cannot vary"},
		`{"extra_body.top_k": 5}`:    {`bench parameter "extra_body.top_k"`, "extra_body"},
		`{"num_prompts": "many"}`:    {`bench parameter "num_prompts"`, "argument --num-prompts: invalid int value"},
		`{"max_concurrency": 0}`:     {"--max-concurrency must be greater than 0"},
		`{"request_rate": -1}`:       {"bench parameters request_rate=-1"},
		`{"dataset_name": "nosuch"}`: {`bench parameter "dataset_name"`, "invalid choice"},
	} {
		_, err := line.apply(comb(t, params))
		for _, w := range want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want %q", params, err, w)
			}
		}
	}
}

// TestBenchLineRefused: a bench command that asks for several runs of
// serve's own, or none, is refused before the sweep starts.
func TestBenchLineRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ cmd, want string }{
		{"gobench serve --num-runs 2", "--num-runs"},
		{"gobench serve --sweep-request-rate 1,2", "--sweep-request-rate"},
		{"vllm bench serve --dry-run", "--dry-run"},
		{"gobench serve --num-prompts x", "argument --bench-cmd: argument --num-prompts"},
	} {
		_, errOut, code := runMain(t, "sweep", "serve", "--bench-cmd", tc.cmd, "-o", t.TempDir(), "-e", "x")
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, want 2 and %q\n%s", tc.cmd, code, tc.want, errOut)
		}
	}
}

// TestBenchParamsEveryFlag: every serve flag a run can set, given a value
// of its kind as a parameter, gives what the command line with it gives
// (or both are refused): a flag that serve converts after parsing and
// that apply does not convert would differ here.
func TestBenchParamsEveryFlag(t *testing.T) {
	t.Parallel()
	deps := testDeps()
	base := []string{"gobench", "serve", "--request-id-prefix", "p-"}
	line, err := parseBenchLine(context.Background(), deps, base)
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	freshServeFlags().VisitAll(func(fl *pflag.Flag) {
		if _, refused := line.refused[fl.Name]; refused || pendingFeature(fl.Name) != "" {
			return
		}
		key := strings.ReplaceAll(fl.Name, "-", "_")
		v := sampleValue(fl)
		o := pyjson.NewObject()
		o.Set(key, v)
		c := sweep.NewComb(o)
		got, gotErr := line.apply(c)
		args, _ := sweep.BenchArgs(c.Apply(base))
		want, _, wantErr := parseServeArgs(context.Background(), deps, args)
		switch {
		case (gotErr == nil) != (wantErr == nil):
			t.Errorf("--%s %v: as a parameter %v, on the command line %v", fl.Name, v, gotErr, wantErr)
		case gotErr == nil:
			compared++
			if diff := optionsDiff(want.Run, got.Run); diff != "" {
				t.Errorf("--%s %v: options (-command line +parameter):\n%s", fl.Name, v, diff)
			}
		}
	})
	if compared < 50 {
		t.Errorf("only %d flags compared", compared)
	}
}

// sampleValue is a value of fl's kind that serve takes for most flags.
func sampleValue(fl *pflag.Flag) any {
	if c, ok := fl.Value.(interface{ Completions() []string }); ok && len(c.Completions()) > 0 {
		choices := c.Completions()
		return choices[len(choices)-1]
	}
	switch fl.Value.Type() {
	case "bool":
		return true
	case "int":
		return 3
	case "float", "duration":
		return 0.25
	case "json":
		o := pyjson.NewObject()
		o.Set("k", 1)
		return o
	}
	return "x"
}

// TestServeLineProgramPaths: a bench command and the serve line of the SLA
// search start with gobench by any path to it, or vLLM's words, and parse
// as the bare line does.
func TestServeLineProgramPaths(t *testing.T) {
	t.Parallel()
	flags := []string{"--num-prompts", "7", "--seed", "3"}
	for _, head := range [][]string{{"serve"}, {"gobench", "serve"}, {"bin/gobench", "serve"}, {"/opt/x/gobench", "serve"}, {"/usr/bin/vllm", "bench", "serve"}} {
		args := append(slices.Clone(head), flags...)
		so, err := parseServeLine(context.Background(), testDeps(), args)
		if err != nil {
			t.Errorf("%q: %v", args, err)
			continue
		}
		if so.Run.NumPrompts != 7 || so.Run.Seed != 3 {
			t.Errorf("%q: num prompts %d, seed %d; want 7 and 3", args, so.Run.NumPrompts, so.Run.Seed)
		}
		if len(head) == 1 {
			continue // a sweep's bench command names its program
		}
		if _, err := parseBenchLine(context.Background(), testDeps(), args); err != nil {
			t.Errorf("--bench-cmd %q: %v", args, err)
		}
	}
}
