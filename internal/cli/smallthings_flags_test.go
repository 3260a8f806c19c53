package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/tokenizer"
)

// TestBenchServeIsServe: vLLM's spelling, `bench serve` (and `bench sweep
// serve`), runs gobench's command with nothing printed about it.
func TestBenchServeIsServe(t *testing.T) {
	t.Parallel()
	args := []string{"serve", "--sim", "--num-prompts", "3", "--dry-run", "--request-id-prefix", "r-"}
	plain, plainErr, code := runMain(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, plainErr)
	}
	out, errOut, code := runMain(t, append([]string{"bench"}, args...)...)
	if code != 0 || out != plain {
		t.Errorf("bench serve: exit %d, stdout %q, want serve's %q\n%s", code, out, plain, errOut)
	}
	if errOut != plainErr {
		t.Errorf("bench serve printed %q, serve %q", errOut, plainErr)
	}
	if _, errOut, code := runMain(t, "bench", "sweep", "serve", "--help"); code != 0 {
		t.Errorf("bench sweep serve --help: exit %d: %s", code, errOut)
	}
	if _, errOut, code := runMain(t, "bench", "nothing"); code != int(exitcode.BadUsage) {
		t.Errorf("bench nothing: exit %d, want 2: %s", code, errOut)
	}
}

// TestRefusedValues: values that mean nothing are refused before anything
// is sent, naming the flag.
func TestRefusedValues(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--endpoint", ""}, "argument --endpoint: must not be empty"},
		{[]string{"--endpoint="}, "argument --endpoint: must not be empty"},
		{[]string{"--metrics-interval", "-1"}, "argument --metrics-interval: must not be negative"},
		{[]string{"--start-at", "1e30"}, `argument --start-at: "1e30" is out of range`},
		{[]string{"--start-at", "9999-01-01T00:00:00Z"}, "is out of range"},
		{[]string{"--start-at", "0001-01-01T00:00:00Z"}, "is out of range"},
		{[]string{"--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--tokenizer", tokenizer.BuiltinName},
			"argument --base-url: it ends in /v1 and the endpoint /v1/completions starts with it, so requests would go to .../v1/v1/completions: drop /v1"},
		{[]string{"--base-url", "http://127.0.0.1:9/v1/", "--backend", "openai-chat", "--model", "m", "--tokenizer", tokenizer.BuiltinName},
			"or give --endpoint /chat/completions"},
	} {
		args := append([]string{"serve", "--num-prompts", "1"}, tc.args...)
		if !strings.HasPrefix(tc.args[0], "--base-url") {
			args = append(args, "--sim")
		}
		_, errOut, code := runMain(t, args...)
		if code != int(exitcode.BadUsage) || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
		if strings.Contains(errOut, "2562047h") {
			t.Errorf("%q: %s", tc.args, errOut)
		}
	}
}

// TestBaseURLWithV1AndEndpoint: a base URL ending in /v1 is fine with an
// endpoint that does not repeat it.
func TestBaseURLWithV1AndEndpoint(t *testing.T) {
	t.Parallel()
	srv, _ := simServer(t, 0, 0, 0)
	out, errOut, code := runMain(t, "serve", "--base-url", srv.URL+"/v1", "--endpoint", "/completions", "--model", "gobench/sim",
		"--tokenizer", tokenizer.BuiltinName, "--num-prompts", "2", "--random-input-len", "8", "--random-output-len", "2",
		"--disable-tqdm", "--no-server-metrics")
	if code != 0 || !strings.Contains(out, "Successful requests:                     2 ") {
		t.Errorf("exit %d:\n%s\n%s", code, out, errOut)
	}
}

// TestWrongModelNamesTheServedOnes: a --model the server does not list is
// named, with the server's models, before the requests fail.
func TestWrongModelNamesTheServedOnes(t *testing.T) {
	t.Parallel()
	srv, _ := simServer(t, 0, 0, 0)
	for _, tc := range []struct {
		model string
		warn  bool
	}{{"wrong/model", true}, {"gobench/sim", false}} {
		_, errOut, _ := runMain(t, "serve", "--base-url", srv.URL, "--model", tc.model, "--tokenizer", tokenizer.BuiltinName,
			"--num-prompts", "1", "--random-input-len", "8", "--random-output-len", "2", "--disable-tqdm", "--no-server-metrics")
		want := `WARNING: /v1/models lists gobench/sim, not "wrong/model": a vLLM server answers 404`
		if got := strings.Contains(errOut, want); got != tc.warn {
			t.Errorf("--model %s: warned %v, want %v:\n%s", tc.model, got, tc.warn, errOut)
		}
	}
}

// TestEndReasonWithoutDetails: a run saved without --save-detailed still
// says whether it completed or was interrupted.
func TestEndReasonWithoutDetails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	saved := func(name string) map[string]any {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		var res map[string]any
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	args := append(append([]string{}, simArgs...), "--save-result", "--result-dir", dir, "--result-filename", "done.json")
	if _, errOut, code := runMain(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if res := saved("done.json"); res["end_reason"] != "completed" || res["ttfts"] != nil {
		t.Errorf("completed run: end_reason %v, ttfts %v", res["end_reason"], res["ttfts"])
	}

	h := &hostile{tokens: 4, holdMetrics: true}
	srv := newHostile(t, h)
	sigs := make(chan os.Signal, 1)
	go func() { <-metricsCalled(h); sigs <- os.Interrupt }()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"serve", "--base-url", srv.URL, "--model", "m", "--tokenizer", tokenizer.BuiltinName,
		"--num-prompts", "2", "--random-input-len", "8", "--save-result", "--result-dir", dir, "--result-filename", "cut.json"},
		Deps{Stdout: &out, Stderr: &errOut, Signals: sigs})
	if code != int(exitcode.Interrupted) {
		t.Fatalf("exit %d, want 130: %s", code, &errOut)
	}
	if res := saved("cut.json"); res["end_reason"] != "interrupted" {
		t.Errorf("interrupted run: end_reason %v", res["end_reason"])
	}
}

// TestConfigFalseLeavesFlagsUnset: `key: false` in a config file is left
// out as vLLM's loader leaves it, even where a --no- form exists, with a
// note naming what the author likely meant.
func TestConfigFalseLeavesFlagsUnset(t *testing.T) {
	t.Parallel()
	path := writeResult(t, "run.yaml", "oversample: false\nself_timed: false\nsave_result: false\nnum_prompts: 3\n")
	if got, want := argsOf(t, "--config", path), argsOf(t, "--num-prompts", "3"); got != want {
		t.Errorf("args %s, want %s", got, want)
	}
	_, errOut, code := runMain(t, "serve", "--sim", "--dry-run", "--config", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		":1: oversample: false leaves the flag unset, as vLLM's loader does (no-oversample: true gives --no-oversample).",
		":2: self_timed: false leaves the flag unset, as vLLM's loader does (no_self_timed: true gives --no-self-timed).",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("no note %q in:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "save_result") {
		t.Errorf("a note for a flag without a --no- form:\n%s", errOut)
	}
}
