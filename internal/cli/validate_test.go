package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/spf13/pflag"
)

// dryRun runs `gobench serve --dry-run` with a small random dataset and
// args after it, through Main, offline.
func dryRun(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	line := append([]string{"serve", "--dry-run", "--tokenizer", "gobench-builtin", "--model", "m", "--num-prompts", "3",
		"--random-input-len", "8", "--random-output-len", "4"}, args...)
	code = Main(context.Background(), line, cmdlineDeps(t, &out, &errOut))
	return out.String(), errOut.String(), code
}

// TestServeRefusesAbsurdValues: every value vLLM gives
// no meaning is refused before anything is planned, with exit status 2
// and a message naming the flag and what is wrong; none panics.
func TestServeRefusesAbsurdValues(t *testing.T) {
	t.Parallel()
	custom := filepath.Join("..", "dataset", "testdata", "custom60.jsonl")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--num-prompts", "-1"}, "argument --num-prompts: must be at least 1 for the random dataset (got -1)"},
		{[]string{"--num-prompts", "0"}, "argument --num-prompts: must be at least 1 for the random dataset (got 0)"},
		{[]string{"--num-prompts", "9223372036854775807"}, "argument --num-prompts: must be at most 100000000"},
		{[]string{"--dataset-name", "sharegpt", "--dataset-path", custom, "--num-prompts", "0"}, "argument --num-prompts: must be at least 1 for the sharegpt dataset"},
		{[]string{"--dataset-name", "custom", "--dataset-path", custom, "--num-prompts", "200000000"}, "argument --num-prompts: must be at most"},
		{[]string{"--interrupt-grace", "-1"}, "argument --interrupt-grace: must not be negative (got -1.0)"},
		{[]string{"--interrupt-grace", "nan"}, "argument --interrupt-grace: not a finite number of seconds within 292 years (got nan)"},
		{[]string{"--interrupt-grace", "inf"}, "argument --interrupt-grace: not a finite number of seconds within 292 years (got inf)"},
		{[]string{"--read-timeout", "nan"}, "argument --read-timeout: must be a positive number of seconds"},
		{[]string{"--read-timeout", "1e300"}, "argument --read-timeout: must be a positive number of seconds within 292 years, or inf for none (got 1e+300)"},
		{[]string{"--goodput", "ttft:nan"}, "argument --goodput: the ttft objective is not a number of milliseconds (got ttft:nan)"},
		{[]string{"--percentile-metrics", "foo"}, "argument --percentile-metrics: unknown metric 'foo'"},
		{[]string{"--percentile-metrics", "ttft, tpot"}, "argument --percentile-metrics: unknown metric ' tpot'"},
		{[]string{"--metadata", "=v"}, "argument --metadata: KEY=VALUE needs a key (got '=v')"},
		{[]string{"--num-warmups", "-1"}, "argument --num-warmups: must be between 0 and 100000000 (got -1)"},
		{[]string{"--ready-check-timeout-sec", "-1"}, "argument --ready-check-timeout-sec: must not be negative (got -1)"},
		{[]string{"--ready-check-timeout-sec", "99999999999"}, "argument --ready-check-timeout-sec: not a finite number of seconds within 292 years (got 99999999999)"},
		{[]string{"--random-prefix-len", "-3"}, "argument --random-prefix-len: must not be negative (got -3)"},
		{[]string{"--random-input-len", "-5"}, "argument --random-input-len: must not be negative (got -5)"},
		{[]string{"--random-input-len", "4294967296"}, "argument --random-input-len: must be at most 16777216 tokens"},
		{[]string{"--input-len", "4294967296"}, "argument --random-input-len: must be at most 16777216 tokens"},
		{[]string{"--random-input-len", "1"}, "--random-input-len is too small: with tokenizer special tokens 1"},
		{[]string{"--random-output-len", "-1"}, "argument --random-output-len: must not be negative (got -1)"},
		{[]string{"--dataset-name", "custom", "--dataset-path", custom, "--custom-output-len", "-2"}, "argument --custom-output-len: must be -1 (each row's output_tokens) or a number of tokens (got -2)"},
		{[]string{"--port", "99999"}, "argument --port: must be between 1 and 65535 (got 99999)"},
		{[]string{"--port", "0"}, "argument --port: must be between 1 and 65535 (got 0)"},
		{[]string{"--request-rate", "1e-300"}, "argument --request-rate: the last of 3 requests would be due after 3e+300 s, longer than a run can wait (292 years) (got 1e-300)"},
		{[]string{"--request-rate", "5e-324"}, "argument --request-rate: the last of 3 requests would be due after inf s"},
		{[]string{"--request-rate", "1", "--burstiness", "5e-324"}, "argument --burstiness: at --request-rate 1.0 the gaps' gamma scale 1/(rate*burstiness) is infinite (got 5e-324)"},
		{[]string{"--endpoint", "/v1/models"}, "argument --endpoint: the OpenAI Completions API URL must end with completions (got '/v1/models'; without --endpoint, --backend openai uses /v1/completions)"},
		{[]string{"--backend", "openai-chat", "--endpoint", "/v1/completions"}, "argument --endpoint: the OpenAI Chat Completions API URL must end with chat/completions (got '/v1/completions'; without --endpoint, --backend openai-chat uses /v1/chat/completions)"},
		{[]string{"--endpoint", "v1/completions"}, "argument --endpoint: appended to the server's address it does not give a URL on that server (got 'v1/completions')"},
		{[]string{"--base-url", "ftp://h"}, "argument --base-url: the scheme must be http or https (got 'ftp')"},
		{[]string{"--base-url", "h:8000"}, "argument --base-url: the scheme must be http or https (got 'h')"},
		{[]string{"--base-url", "http://"}, "argument --base-url: the URL has no host"},
		{[]string{"--host", "a b"}, `argument --host: not a URL: invalid character " " in host name`},
		{[]string{"--request-id-prefix", "a\nb"}, `argument --request-id-prefix: it starts the x-request-id header, and the value holds the control character '\n' at byte 1, which HTTP forbids (got 'a\nb')`},
		{[]string{"--top-p", "inf"}, "argument --top-p: inf is not a finite number"},
		{[]string{"--top-p", "nan"}, "argument --top-p: nan is not a finite number"},
		{[]string{"--min-p", "nan"}, "argument --min-p: nan is not a finite number"},
		{[]string{"--sim", "--sim-itl", "inf"}, "argument --sim-itl: must be a finite number of seconds within 292 years, got +Inf"},
		{[]string{"--sim", "--sim-ttft", "1e300"}, "argument --sim-ttft: must be a finite number of seconds within 292 years"},
		{[]string{"--sim", "--sim-step-time-per-seq", "inf"}, "argument --sim-step-time-per-seq: must be a finite number of seconds"},
		{[]string{"--sim", "--sim-fault-stall-seconds", "1e12"}, "argument --sim-fault-stall-seconds: must be a finite number of seconds"},
		{[]string{"--sim", "--sim-fault-drip-interval", "nan"}, "argument --sim-fault-drip-interval: must be non-negative seconds, got NaN"},
		{[]string{"--sim", "--sim-frontend-latency", "-inf"}, "argument --sim-frontend-latency: expected one argument"},
		{[]string{"--sim", "--sim-frontend-latency=-inf"}, "argument --sim-frontend-latency: must be non-negative seconds, got -Inf"},
		{[]string{"--sim", "--sim-num-gpu-blocks-override", "99999999999"}, "argument --sim-num-gpu-blocks-override: must be at most 16777216"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			out, errOut, code := dryRun(t, tt.args...)
			if code != int(exitcode.BadUsage) || out != "" {
				t.Errorf("exit %d, want 2, with nothing planned (stdout %q)", code, out)
			}
			if !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr %q does not contain %q", errOut, tt.want)
			}
		})
	}
}

// TestServeKeepsVLLMMeanings: the values vLLM gives a
// meaning keep it.
func TestServeKeepsVLLMMeanings(t *testing.T) {
	t.Parallel()
	custom := filepath.Join("..", "dataset", "testdata", "custom60.jsonl")
	lines := func(t *testing.T, out string) []map[string]any {
		var rows []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("line %q: %v", l, err)
			}
			rows = append(rows, m)
		}
		return rows
	}
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, rows []map[string]any, stderr string)
	}{
		{"custom: 0 prompts is every sample", []string{"--dataset-name", "custom", "--dataset-path", custom, "--skip-chat-template", "--num-prompts", "0"},
			func(t *testing.T, rows []map[string]any, stderr string) {
				if len(rows) != 60 || !strings.Contains(stderr, "using all available samples: 60") {
					t.Errorf("%d requests, stderr %q", len(rows), stderr)
				}
			}},
		{"custom: -1 prompts is every sample", []string{"--dataset-name", "custom", "--dataset-path", custom, "--skip-chat-template", "--num-prompts", "-1"},
			func(t *testing.T, rows []map[string]any, _ string) {
				if len(rows) != 60 {
					t.Errorf("%d requests", len(rows))
				}
			}},
		{"random: output length 0 asks for 1 token", []string{"--random-output-len", "0"},
			func(t *testing.T, rows []map[string]any, _ string) {
				if rows[0]["output_len"] != 1.0 {
					t.Errorf("output_len %v", rows[0]["output_len"])
				}
			}},
		{"burstiness inf spaces requests evenly", []string{"--request-rate", "2", "--burstiness", "inf"},
			func(t *testing.T, rows []map[string]any, _ string) {
				if rows[0]["offset_s"] != 0.5 || rows[1]["offset_s"] != 1.0 || rows[2]["offset_s"] != 1.5 {
					t.Errorf("offsets %v %v %v", rows[0]["offset_s"], rows[1]["offset_s"], rows[2]["offset_s"])
				}
			}},
		{"empty --percentile-metrics is the default", []string{"--percentile-metrics", ""}, nil},
		{"--goodput ttft:inf is no bound", []string{"--goodput", "ttft:inf"}, nil},
		{"--read-timeout inf is none", []string{"--read-timeout", "inf"}, nil},
		{"--interrupt-grace 0 cancels at once", []string{"--interrupt-grace", "0"}, nil},
		{"endpoint joined as text", []string{"--base-url", "http://127.0.0.1:9/", "--endpoint", "v1/completions"}, nil},
		{"a huge --max-concurrency is no limit", []string{"--max-concurrency", "99999999999999"}, nil},
		{"a header with a tab", []string{"--header", "x-a=b\tc"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, errOut, code := dryRun(t, tt.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if rows := lines(t, out); tt.check != nil {
				tt.check(t, rows, errOut)
			}
		})
	}
}

// TestReadTimeoutInfIsNone: --read-timeout inf and VLLM_BENCH_SOCK_READ=inf
// set no timeout (aiohttp's sock_read=inf), where they converted to an
// arbitrary duration before.
func TestReadTimeoutInfIsNone(t *testing.T) {
	t.Parallel()
	o, errOut, code := parse(t, "--read-timeout", "inf")
	if code != 0 || o.Run.ReadTimeout != 0 {
		t.Fatalf("exit %d (%s), read timeout %v", code, errOut, o)
	}
	f := newServeFlags()
	f.register(pflag.NewFlagSet("serve", pflag.ContinueOnError))
	d, err := f.readTimeoutValue(&Deps{Getenv: func(k string) string {
		if k == "VLLM_BENCH_SOCK_READ" {
			return "inf"
		}
		return ""
	}})
	if err != nil || d != 0 {
		t.Errorf("VLLM_BENCH_SOCK_READ=inf: %v, %v", d, err)
	}
	d, err = f.readTimeoutValue(&Deps{Getenv: func(string) string { return "2.5" }})
	if err != nil || d != 2500*time.Millisecond {
		t.Errorf("VLLM_BENCH_SOCK_READ=2.5: %v, %v", d, err)
	}
	if _, err := f.readTimeoutValue(&Deps{Getenv: func(string) string { return "nan" }}); err == nil ||
		!strings.Contains(err.Error(), "VLLM_BENCH_SOCK_READ=nan: must be a positive number of seconds") {
		t.Errorf("VLLM_BENCH_SOCK_READ=nan: %v", err)
	}
}

// TestHeaderRefused: a --header net/http would not send
// as given is refused with exit 2 naming --header and the header, before
// anything reaches the server (it used to fail the GET /v1/models with
// exit 1, "Failed to fetch models"), and its value is never printed.
func TestHeaderRefused(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		http.Error(w, "no", http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	tests := []struct {
		header, want string
	}{
		{"Host=evil.example", "argument --header: header Host is set by the HTTP client"},
		{"host=evil.example", "argument --header: header Host is set by the HTTP client"},
		{"Content-Length=5", "argument --header: header Content-Length is set by the HTTP client"},
		{"content-LENGTH=5", "argument --header: header Content-Length is set by the HTTP client"},
		{"Transfer-Encoding=chunked", "argument --header: header Transfer-Encoding is set by the HTTP client"},
		{"X-Api-Key=s3cret\r\nX-Admin: 1", "argument --header: header X-Api-Key: the value holds the control character '\\r' at byte 6, which HTTP forbids"},
		{"X-Api-Key=s3cret\nX", "argument --header: header X-Api-Key: the value holds the control character '\\n'"},
		{"X-Api-Key=s3cret\x00", "argument --header: header X-Api-Key: the value holds the control character '\\x00'"},
		{"X-Api\nKey=s3cret", `argument --header: header name "X-Api\nKey" is not an HTTP token`},
		{"X Api=s3cret", `argument --header: header name "X Api" is not an HTTP token`},
		{"=s3cret", "argument --header: a header needs a name (got =VALUE)"},
		{" =s3cret", "argument --header: a header needs a name (got =VALUE)"},
	}
	for _, tt := range tests {
		t.Run(tt.header, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			code := Main(context.Background(), []string{"serve", "--base-url", srv.URL, "--num-prompts", "2", "--random-input-len", "8",
				"--header", "x-ok=1", tt.header}, Deps{Stdout: &out, Stderr: &errOut})
			if code != int(exitcode.BadUsage) {
				t.Errorf("exit %d, want 2\n%s%s", code, &out, &errOut)
			}
			if !strings.Contains(errOut.String(), tt.want) {
				t.Errorf("stderr %q does not contain %q", &errOut, tt.want)
			}
			if strings.Contains(out.String()+errOut.String(), "s3cret") {
				t.Errorf("the header's value was printed:\n%s%s", &out, &errOut)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the server received %d requests", n)
	}
}

// TestSimRefusesAbsurdValues: gobench sim's seconds are
// finite durations, its port a port, and its sizes allocatable.
func TestSimRefusesAbsurdValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--itl", "inf"}, "argument --itl: must be a finite number of seconds within 292 years, got +Inf"},
		{[]string{"--ttft", "1e300"}, "argument --ttft: must be a finite number of seconds within 292 years, got 1e+300"},
		{[]string{"--engine", "scheduler", "--step-time-base", "inf"}, "argument --step-time-base: must be a finite number of seconds"},
		{[]string{"--step-time-per-token", "1e10"}, "argument --step-time-per-token: must be a finite number of seconds"},
		{[]string{"--fault-stall-seconds", "inf"}, "argument --fault-stall-seconds: must be a finite number of seconds"},
		{[]string{"--fault-drip-interval", "nan"}, "argument --fault-drip-interval: must be non-negative seconds, got NaN"},
		{[]string{"--frontend-latency", "1e300"}, "argument --frontend-latency: must be a finite number of seconds"},
		{[]string{"--log-stats-interval", "nan"}, "argument --log-stats-interval: must be a finite number of seconds within 292 years, got NaN"},
		{[]string{"--log-stats-interval", "inf"}, "argument --log-stats-interval: must be a finite number of seconds"},
		{[]string{"--port", "99999"}, "argument --port: must be a port number in [0, 65535], got 99999"},
		{[]string{"--port", "-1"}, "argument --port: must be a port number in [0, 65535], got -1"},
		{[]string{"--num-gpu-blocks-override", "99999999999"}, "argument --num-gpu-blocks-override: must be at most 16777216, got 99999999999"},
		{[]string{"--num-speculative-tokens", "99999999999"}, "argument --num-speculative-tokens: must be at most 1024, got 99999999999"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			var stderr bytes.Buffer
			deps := Deps{Stdout: &bytes.Buffer{}, Stderr: &stderr}
			if code := simLine(&deps, tt.args); code != int(exitcode.BadUsage) {
				t.Errorf("exit %d, want 2 (%s)", code, &stderr)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr %q does not contain %q", &stderr, tt.want)
			}
		})
	}
	// What still means something: 0 picks a port, a log interval of 0 or
	// less turns the stats line off.
	for _, args := range [][]string{{"--port", "0"}, {"--log-stats-interval", "0"}, {"--log-stats-interval", "-1"}} {
		var stderr bytes.Buffer
		deps := Deps{Stdout: &bytes.Buffer{}, Stderr: &stderr}
		if code := simLine(&deps, args); code != 0 {
			t.Errorf("%v: exit %d (%s)", args, code, &stderr)
		}
	}
}

// TestFileCommandsRefuseAbsurdValues: the flags of
// compare and analyze.
func TestFileCommandsRefuseAbsurdValues(t *testing.T) {
	t.Parallel()
	f := fixture("gobench_fast.json")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"compare", f, f, "--resamples", "99999999999"}, "argument --resamples: must be between 100 and 1000000 (got 99999999999)"},
		{[]string{"compare", f, f, "--resamples", "10"}, "argument --resamples: must be between 100 and 1000000 (got 10)"},
		{[]string{"analyze", f, "--percentile-metrics", "foo"}, "argument --percentile-metrics: unknown metric 'foo'"},
		{[]string{"analyze", f, "--goodput", "ttft:nan"}, "argument --goodput: the ttft objective is not a number of milliseconds (got ttft:nan)"},
		{[]string{"analyze", f, "--metric-percentiles", "nan"}, "--metric-percentiles"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			_, errOut, code := runMain(t, tt.args...)
			if code != int(exitcode.BadUsage) || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q, want 2 and %q", code, errOut, tt.want)
			}
		})
	}
	if _, errOut, code := runMain(t, "analyze", f, "--goodput", "ttft:inf"); code != 0 {
		t.Errorf("--goodput ttft:inf: exit %d (%s)", code, errOut)
	}
}
