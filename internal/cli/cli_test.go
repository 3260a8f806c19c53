package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/argparse"
	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/tokenizer"
	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
)

// parseWith runs `gobench <name> args...` through Main's argument handling,
// with the command rebuilt by build around a runF that only captures the
// options; it returns them, stderr and the exit status.
func parseWith[O any](t *testing.T, name string, build func(*Deps, func(context.Context, *O) error) *cobra.Command, args ...string) (*O, string, int) {
	t.Helper()
	var stderr bytes.Buffer
	deps := Deps{Stdout: io.Discard, Stderr: &stderr, Getenv: func(string) string { return "" }}
	var got *O
	root := newRootCmd(&deps, nil)
	for _, c := range root.Commands() {
		if c.Name() == name {
			root.RemoveCommand(c)
		}
	}
	root.AddCommand(build(&deps, func(_ context.Context, o *O) error { got = o; return nil }))
	norm, err := normalizeFor(root, append([]string{name}, args...))
	if err == nil {
		root.SetArgs(norm)
		err = root.ExecuteContext(context.Background())
	}
	code := exitCode(err, &stderr, "gobench "+name) // writes stderr: read it after
	return got, stderr.String(), code
}

// parse is parseWith for `gobench serve`.
func parse(t *testing.T, args ...string) (*ServeOptions, string, int) {
	t.Helper()
	return parseWith(t, "serve", newServeCmd, args...)
}

func TestServeFlagsVLLMSpellings(t *testing.T) {
	t.Parallel()
	o, errOut, code := parse(t,
		"--num_prompts", "5", "--request-rate=inf", "--burstiness", "0.5",
		"--goodput", "ttft:500", "tpot:50", "--header", "a=1", "b = 2", "--metadata", "k=v", "j=w",
		"--extra-body.top_k", "5", "--extra-body", `{"min_tokens": 3}`, "--temperature=0",
		"--max-concurrency", "8", "--num-warm", "2", "--dataset_name", "random", "--random-input-len", "64",
		"--seed", "7", "--lora-modules", "l1", "l2", "--model", "m", "--served-model-name", "s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	r := o.Run
	if r.NumPrompts != 5 || !math.IsInf(r.Schedule.RequestRate, 1) || r.Schedule.Burstiness != 0.5 || r.MaxConcurrency != 8 ||
		r.NumWarmups != 2 || r.Seed != 7 || r.Dataset.RandomInputLen != 64 || r.ServedModelName != "s" {
		t.Errorf("options %+v", r)
	}
	if diff := cmp.Diff(map[string]float64{"ttft": 500, "tpot": 50}, r.Goodput); diff != "" {
		t.Errorf("goodput (-want +got):\n%s", diff)
	}
	if got := []string{r.Headers[0].Key, r.Headers[0].Value, r.Headers[1].Key, r.Headers[1].Value}; strings.Join(got, ",") != "a,1,b,2" {
		t.Errorf("headers %v", r.Headers)
	}
	if diff := cmp.Diff([]report.KV{{Key: "k", Value: "v"}, {Key: "j", Value: "w"}}, r.Metadata); diff != "" || strings.Join(r.LoRAModules, ",") != "l1,l2" {
		t.Errorf("metadata %v lora %v", r.Metadata, r.LoRAModules)
	}
	if got := compact(t, &r.ExtraBody); got != `{"top_k":5,"min_tokens":3}` {
		t.Errorf("extra body %s", got)
	}
	if got := compact(t, &r.SamplingParams); got != `{"temperature":0.0}` {
		t.Errorf("sampling %s", got)
	}
	if !strings.HasPrefix(r.RequestIDPrefix, "bench-") || len(r.RequestIDPrefix) != len("bench-01234567-") {
		t.Errorf("request id prefix %q", r.RequestIDPrefix)
	}
}

func TestServeFlagMapping(t *testing.T) {
	t.Parallel()
	// --input-len and --output-len fan out as vLLM's main_async does.
	o, _, code := parse(t, "--input-len", "100", "--output-len", "20")
	if code != 0 {
		t.Fatal(code)
	}
	d := o.Run.Dataset
	if d.RandomInputLen != 100 || d.RandomOutputLen != 20 || d.CustomOutputLen != 20 || *d.SharegptOutputLen != 20 {
		t.Errorf("%+v", d)
	}
	// Defaults.
	o, _, _ = parse(t)
	r := o.Run
	if r.NumPrompts != 1000 || !math.IsInf(r.Schedule.RequestRate, 1) || r.Schedule.Burstiness != 1 || r.Port != 8000 || r.Host != "127.0.0.1" ||
		r.Endpoint != "" || r.Backend != "openai" || r.Dataset.Name != "random" || r.Dataset.RandomInputLen != 1024 ||
		r.Dataset.RandomOutputLen != 128 || r.MaxConcurrency != 0 || r.Logprobs != nil || r.Dataset.CustomOutputLen != 256 {
		t.Errorf("defaults %+v", r)
	}
}

// TestServeFlagErrors: invalid values get vLLM's (argparse's) message and
// exit status 2.
func TestServeFlagErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--num-prompts", "abc"}, "argument --num-prompts: invalid int value: 'abc'"},
		{[]string{"--request-rate", "fast"}, "argument --request-rate: invalid float value: 'fast'"},
		{[]string{"--backend", "foo"}, "argument --backend: invalid choice: 'foo' (choose from 'vllm', 'openai', 'openai-chat'"},
		{[]string{"--goodput", "ttft=5"}, `Invalid format found for service level objectives. Specify service level objectives for goodput as "KEY:VALUE" pairs, where the key is a metric name, and the value is a number in milliseconds.`},
		{[]string{"--goodput", "foo:5"}, "Invalid metric name found, foo: 5.0. The service level objective name should be one of ['ttft', 'tpot', 'e2el']. "},
		{[]string{"--goodput", "ttft:-1"}, "Invalid value found, ttft: -1.0. The service level objective value should be non-negative."},
		{[]string{"--goodput"}, "argument --goodput: expected at least one argument"},
		{[]string{"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "0", "--ramp-up-end-rps", "10"}, "error: --ramp-up-start-rps must be > 0\n"},
		{[]string{"--ramp-up-strategy", "linear", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "10", "--request-rate", "5"}, "When using ramp-up, do not specify --request-rate."},
		{[]string{"--ramp-up-strategy", "exponential", "--ramp-up-start-rps", "5"}, "both --ramp-up-start-rps and --ramp-up-end-rps must be specified"},
		{[]string{"--max-concurrency", "0"}, "--max-concurrency must be greater than 0"},
		{[]string{"--burstiness", "0"}, "A positive burstiness factor is expected, but given 0.0."},
		{[]string{"--header", "nokey"}, "Invalid header format. Please use KEY=VALUE format."},
		{[]string{"--metadata", "x"}, "Invalid metadata format. Please use KEY=VALUE format."},
		{[]string{"--metric-percentiles", "101"}, "--metric-percentiles"},
		{[]string{"--ra", "1"}, "ambiguous option: --ra could match --ramp-up-end-rps, --ramp-up-start-rps, --ramp-up-strategy, --random-"},
		{[]string{"--nope"}, "unrecognized arguments: --nope"},
		{[]string{"stray"}, "unrecognized arguments: stray"},
		{[]string{"--model"}, "argument --model: expected one argument"},
		{[]string{"--extra-body", "[1]"}, "argument --extra-body: invalid loads value: '[1]'"},
		{[]string{"--seed", "-1"}, "Seed must be between 0 and 2**32 - 1"},
		{[]string{"--random-range-ratio", `{"input": 0.1}`}, "When range_ratio is a dict it must contain 'input' and 'output' keys, got: ['input']"},
		{[]string{"--plot-timeline", "--timeline-itl-thresholds", "25"}, "Invalid --timeline-itl-thresholds format: Expected 2 ITL threshold values, got 1"},
		{[]string{"--probe-request-rate", "-1"}, "argument --probe-request-rate: must be a positive rate"},
		{[]string{"--probe-request-rate", "1", "--backend", "openai-audio"}, "probes are text requests"},
		{[]string{"--random-batch-size", "0"}, "argument --random-batch-size: must be at least 1 (got 0)"},
		{[]string{"--prompt-token-ids", "--backend", "openai-chat", "--endpoint", "/v1/chat/completions"},
			"--prompt-token-ids: --backend openai-chat sends text; token ids go to the completions backends (openai, vllm) only"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			_, errOut, code := parse(t, tt.args...)
			if code != int(exitcode.BadUsage) {
				t.Errorf("exit %d, want 2 (%s)", code, errOut)
			}
			if !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr %q does not contain %q", errOut, tt.want)
			}
		})
	}
}

func TestNormalizeArgs(t *testing.T) {
	t.Parallel()
	f := &serveFlags{}
	cmd := newServeCmd(&Deps{}, nil)
	_ = f
	tests := []struct {
		in, want []string
	}{
		{[]string{"--num_prompts", "5"}, []string{"--num-prompts=5"}},
		{[]string{"--seed", "-3"}, []string{"--seed=-3"}},
		{[]string{"--header", "a=1", "b=2", "--save-result"}, []string{"--header=a=1", "--header=b=2", "--save-result"}},
		{[]string{"--header", "--save-result"}, []string{"--header=" + argparse.EmptyList, "--save-result"}},
		{[]string{"--extra-body.stop+", "a", "--extra-body.stop+", "b"}, []string{`--extra-body={"stop":["a"]}`, `--extra-body={"stop":["a","b"]}`}},
		{[]string{"--extra_body.nested.k=1"}, []string{`--extra-body={"nested":{"k":1}}`}},
		// Values are decoded as json.loads reads them and written back
		// compactly: 1.50 is 1.5, text stays as typed.
		{[]string{"--extra-body.x", "1.50", "--extra-body.y", "<b> é"}, []string{`--extra-body={"x":1.5}`, `--extra-body={"y":"<b> é"}`}},
		{[]string{"--extra-body.a", `{"k": 1}`, "--extra-body.a.j", "2"}, []string{`--extra-body={"a":{"k":1}}`, `--extra-body={"a":{"k":1,"j":2}}`}},
		{[]string{"--extra-body.a", "null", "--extra-body.a+", "x"}, []string{`--extra-body={"a":null}`, `--extra-body={"a":["x"]}`}},
		{[]string{"--num-prom", "3"}, []string{"--num-prompts=3"}},
	}
	for _, tt := range tests {
		got, err := argparse.Normalize(tt.in, cmd.Flags(), listFlags)
		if err != nil {
			t.Errorf("%v: %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tt.in, diff)
		}
	}
	for _, in := range [][]string{
		{"--extra-body.a", "1", "--extra-body.a.b", "2"},
		{"--extra-body.a", "1", "--extra-body.a+", "2"},
		{"--extra-body.a", "1e400"},
	} {
		if got, err := argparse.Normalize(in, cmd.Flags(), listFlags); err == nil {
			t.Errorf("%v accepted: %v", in, got)
		}
	}
}

// TestMainEndToEnd runs `gobench serve` through Main against the simulator:
// exit 0, the result block on stdout, the file saved; then against a server
// that fails every request: exit 3.
func TestMainEndToEnd(t *testing.T) {
	t.Parallel()
	s, err := sim.NewServer(sim.Config{TTFT: 10 * time.Millisecond, ITL: 2 * time.Millisecond, Tokenizer: tokenizer.Builtin(), Root: tokenizer.BuiltinName})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"serve", "--base-url", srv.URL, "--num-prompts", "6", "--random-input-len", "16",
		"--random-output-len", "4", "--save-result", "--result-dir", dir, "--result-filename", "r.json", "--label", "e2e"},
		Deps{Stdout: &out, Stderr: &errOut, Version: "test"})
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, &out, &errOut)
	}
	if !strings.Contains(out.String(), "Successful requests:                     6") {
		t.Errorf("stdout:\n%s", &out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m["label"] != "e2e" || m["request_rate"] != "inf" {
		t.Errorf("saved %v (%v)", m, err)
	}

	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "nope", http.StatusBadGateway)
	}))
	defer bad.Close()
	out.Reset()
	errOut.Reset()
	code = Main(context.Background(), []string{"serve", "--base-url", bad.URL, "--model", "m", "--tokenizer", tokenizer.BuiltinName,
		"--num-prompts", "2", "--random-input-len", "8", "--random-output-len", "2"}, Deps{Stdout: &out, Stderr: &errOut})
	if code != int(exitcode.AllFailed) {
		t.Errorf("exit %d, want %d\n%s", code, int(exitcode.AllFailed), &errOut)
	}
}

// TestMainSimFlag: `gobench serve --sim` needs no server.
func TestMainSimFlag(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"serve", "--sim", "--sim-ttft", "0.005", "--sim-itl", "0.001",
		"--num-prompts", "4", "--random-input-len", "16", "--random-output-len", "3"}, Deps{Stdout: &out, Stderr: &errOut})
	if code != 0 || !strings.Contains(out.String(), "Successful requests:                     4") {
		t.Fatalf("exit %d\n%s\n%s", code, &out, &errOut)
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if code := Main(context.Background(), []string{"serve", "--help"}, Deps{Stdout: &out, Stderr: &out}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"--request-rate", "--max-concurrency", "--goodput", "Exit status", "--dry-run"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

func FuzzNormalizeArgs(f *testing.F) {
	f.Add("--num_prompts 5 --goodput ttft:1 tpot:2 --header a=b --extra-body.x+ 1")
	f.Add("--ra --seed -1 -- --x")
	cmd := newServeCmd(&Deps{}, nil)
	f.Fuzz(func(t *testing.T, line string) {
		_, _ = argparse.Normalize(strings.Fields(line), cmd.Flags(), listFlags)
	})
}

// TestInsecureTLS is vLLM's test_serve_cli.py case (b): a self-signed HTTPS
// server works with --insecure and is refused without it.
func TestInsecureTLS(t *testing.T) {
	t.Parallel()
	s, err := sim.NewServer(sim.Config{TTFT: time.Millisecond, ITL: time.Millisecond, Tokenizer: tokenizer.Builtin(), Root: tokenizer.BuiltinName})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewTLSServer(s.Handler())
	defer srv.Close()
	args := []string{"serve", "--base-url", srv.URL, "--num-prompts", "5", "--input-len", "32", "--output-len", "4"}
	var out, errOut bytes.Buffer
	if code := Main(context.Background(), append(args, "--insecure"), Deps{Stdout: &out, Stderr: &errOut}); code != 0 {
		t.Fatalf("--insecure: exit %d\n%s", code, &errOut)
	}
	errOut.Reset()
	if code := Main(context.Background(), args, Deps{Stdout: io.Discard, Stderr: &errOut}); code != int(exitcode.Failure) ||
		!strings.Contains(errOut.String(), "certificate") {
		t.Errorf("without --insecure: exit %d\n%s", code, &errOut)
	}
}

// TestChatBackendCommandLine is vLLM's test_serve_cli.py case (c).
func TestChatBackendCommandLine(t *testing.T) {
	t.Parallel()
	s, err := sim.NewServer(sim.Config{TTFT: time.Millisecond, ITL: time.Millisecond, Tokenizer: tokenizer.Builtin(), Root: tokenizer.BuiltinName})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"serve", "--base-url", srv.URL, "--model", "gobench/sim", "--tokenizer", tokenizer.BuiltinName,
		"--dataset-name", "random", "--random-input-len", "32", "--random-output-len", "4", "--num-prompts", "5",
		"--endpoint", "/v1/chat/completions", "--backend", "openai-chat"}, Deps{Stdout: &out, Stderr: &errOut})
	if code != 0 || !strings.Contains(out.String(), "Successful requests:                     5") {
		t.Fatalf("exit %d\n%s\n%s", code, &out, &errOut)
	}
}

// TestEveryPendingFlagRefused: each flag of a feature gobench does not
// have yet (package dataset's pending flags and serve's own) is accepted
// by the parser and refused with exit status 2, naming the flag and what
// is missing.
func TestEveryPendingFlagRefused(t *testing.T) {
	t.Parallel()
	var names []string
	for _, fl := range dataset.Flags() {
		if fl.Pending() {
			names = append(names, fl.Name)
		}
	}
	for _, p := range pendingFlags {
		names = append(names, p.name)
	}
	if len(names) == 0 {
		// None is pending: the help announces no refused flag.
		if out, _, _ := runMain(t, "serve", "--help-all"); strings.Contains(out, refusedTitle) {
			t.Errorf("no flag is refused, yet --help-all lists %q", refusedTitle)
		}
	}
	cmd := newServeCmd(&Deps{}, nil)
	for _, name := range names {
		fl := cmd.Flags().Lookup(name)
		if fl == nil {
			t.Errorf("--%s is not registered", name)
			continue
		}
		arg := "--" + name + "=1"
		if fl.Value.Type() == "bool" {
			arg = "--" + name
		} else if name == "speed-bench-dataset-subset" {
			arg = "--" + name + "=throughput_1k"
		} else if name == "chat-template-kwargs" {
			arg = "--" + name + "={}"
		}
		_, errOut, code := parse(t, arg)
		if code != int(exitcode.BadUsage) || !strings.Contains(errOut, "--"+name+": ") || !strings.Contains(errOut, "not supported yet") {
			t.Errorf("%s: exit %d: %s", arg, code, errOut)
		}
	}
}

// TestDatasetFlagsBound: the dataset flags package dataset describes are
// registered and reach the run's options.
func TestDatasetFlagsBound(t *testing.T) {
	t.Parallel()
	o, errOut, code := parse(t, "--dataset-name", "custom", "--dataset-path", "a.jsonl", "--no-oversample",
		"--disable-shuffle", "--skip-chat-template", "--random-prefix-len", "3", "--custom-output-len", "-1",
		"--sharegpt-output-len", "9", "--random-range-ratio", "0.25")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	d := o.Run.Dataset
	if d.Name != "custom" || d.Path != "a.jsonl" || !d.NoOversample || !d.DisableShuffle || !d.SkipChatTemplate ||
		d.RandomPrefixLen != 3 || d.CustomOutputLen != -1 || d.SharegptOutputLen == nil || *d.SharegptOutputLen != 9 ||
		d.RandomRangeRatio != (dataset.RangeRatio{Input: 0.25, Output: 0.25}) {
		t.Errorf("dataset options %+v", d)
	}
}

// compact is o as the request bodies carry it.
func compact(t *testing.T, o *pyjson.Object) string {
	t.Helper()
	b, err := pyjson.AppendCompact(nil, o)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
