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
)

// TestServeCountsSimFaults runs `gobench serve --sim` with each fault of
// the simulator striking requests f-1, f-3 and f-5 of six, and checks what
// a user sees: the run completes, the printed block and the saved file
// count the failures, and each failure keeps the text that says what went
// wrong. Faults that do not fail a request (slow drip, no [DONE], no usage)
// must not be counted as failures; a wrong usage is believed, as vLLM's
// client believes it. The stall (60 s) is cut by a --read-timeout of 5 s,
// thousands of times what a healthy request here waits between two reads, so
// a busy core cannot make the timeout cut a request the fault spared.
func TestServeCountsSimFaults(t *testing.T) {
	t.Parallel()
	tests := []simFaultCase{
		{kind: "http-429", failed: 3, errText: `HTTP 429 Too Many Requests: {"error":{"message":"Too many requests: ` +
			`the server's waiting queue is full. (gobench sim fault --fault-http-429)","type":"TooManyRequestsError","param":null,"code":429}}`},
		{kind: "http-500", failed: 3, errText: `HTTP 500 Internal Server Error: {"error":{"message":"Internal server error. ` +
			`(gobench sim fault --fault-http-500)","type":"InternalServerError","param":null,"code":500}}`},
		{kind: "http-503", failed: 3, errText: `HTTP 503 Service Unavailable: {"error":{"message":"The engine is not available. ` +
			`(gobench sim fault --fault-http-503)","type":"ServiceUnavailableError","param":null,"code":503}}`},
		{kind: "reset", failed: 3, errText: "connection reset by peer"},
		{kind: "error-event", failed: 3, errText: "server error event: Internal server error during generation. " +
			"(gobench sim fault --fault-error-event)"},
		{kind: "malformed", failed: 3, errText: `broken": invalid JSON: unterminated string`},
		{kind: "stall", extra: []string{"--sim-fault-stall-seconds", "60", "--read-timeout", "5"}, failed: 3,
			errText: "timed out: no data from the server for 5s (--read-timeout / VLLM_BENCH_SOCK_READ)"},
		{kind: "slow-drip", extra: []string{"--sim-fault-drip-bytes", "40", "--sim-fault-drip-interval", "0.002"}},
		{kind: "no-done"},
		// Without usage the client counts the output with the tokenizer.
		{kind: "no-usage", check: func(t *testing.T, res map[string]any) {
			for i, n := range res["output_lens"].([]any) {
				if n.(float64) < 1 {
					t.Errorf("request %d: output length %v", i, n)
				}
			}
		}},
		// The server says 12 tokens for 6: the client takes its word.
		{kind: "wrong-usage", check: func(t *testing.T, res map[string]any) {
			if got := res["total_output_tokens"].(float64); got != 3*6+3*12 {
				t.Errorf("total_output_tokens %v, want %d", got, 3*6+3*12)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			t.Parallel()
			runSimFaultCase(t, tt)
		})
	}
}

// simFaultCase is one fault of TestServeCountsSimFaults, struck on every
// other request.
type simFaultCase struct {
	kind    string
	extra   []string
	failed  int
	errText string // in each struck request's error
	check   func(t *testing.T, res map[string]any)
}

// runSimFaultCase runs 6 requests against the simulator with tt's fault
// on requests 1, 3 and 5, and checks the block, the saved counts and each
// request's error.
func runSimFaultCase(t *testing.T, tt simFaultCase) {
	t.Helper()
	const struck = "f-[135]$"
	dir := t.TempDir()
	args := append([]string{"serve", "--sim", "--sim-ttft", "0.002", "--sim-itl", "0.001", "--num-prompts", "6",
		"--random-input-len", "16", "--random-output-len", "6", "--request-id-prefix", "f-",
		"--save-result", "--save-detailed", "--result-dir", dir, "--result-filename", "r.json",
		"--sim-fault-" + tt.kind, struck}, tt.extra...)
	var out, errOut bytes.Buffer
	code := Main(context.Background(), args, Deps{Stdout: &out, Stderr: &errOut, Version: "test"})
	if code != int(exitcode.OK) {
		t.Fatalf("exit %d\n%s\n%s", code, &out, &errOut)
	}
	if want := "Failed requests:                         " + itoa(tt.failed); !strings.Contains(out.String(), want) {
		t.Errorf("printed block lacks %q:\n%s", want, &out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatalf("result file: %v", err)
	}
	var res map[string]any
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if res["failed"].(float64) != float64(tt.failed) || res["completed"].(float64) != float64(6-tt.failed) {
		t.Errorf("saved completed %v failed %v, want %d failed", res["completed"], res["failed"], tt.failed)
	}
	errs := res["errors"].([]any)
	for i, e := range errs {
		hit := i%2 == 1
		switch {
		case hit && tt.failed > 0 && !strings.Contains(e.(string), tt.errText):
			t.Errorf("request %d error %q, want %q", i, e, tt.errText)
		case (!hit || tt.failed == 0) && e != "":
			t.Errorf("request %d failed: %q", i, e)
		}
	}
	if tt.failed > 0 && !strings.Contains(errOut.String(), " requests failed: ") {
		t.Errorf("the failures are not printed on stderr:\n%s", &errOut)
	}
	if tt.check != nil {
		tt.check(t, res)
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// TestServeWarnsOnWrongUsage: a server whose usage
// disagrees with the text it streamed is believed, as vLLM believes it,
// but the run warns once, naming on how many requests; a healthy server
// gets no such warning.
func TestServeWarnsOnWrongUsage(t *testing.T) {
	t.Parallel()
	args := []string{"serve", "--sim", "--sim-ttft", "0", "--sim-itl", "0", "--num-prompts", "8",
		"--random-input-len", "16", "--random-output-len", "12", "--request-id-prefix", "u-"}
	// The rule strikes the requests u-0, u-1 and u-2: 3 of the 8, all of
	// which are checked (fewer than usageChecks).
	_, errOut, code := runMain(t, append(args, "--sim-fault-wrong-usage", "u-[0-2]$")...)
	if code != 0 || strings.Count(errOut, "usage.completion_tokens differs") != 1 ||
		!strings.Contains(errOut, "on 3 of 8 requests checked") {
		t.Errorf("wrong usage on 3 requests: exit %d\n%s", code, errOut)
	}
	_, errOut, code = runMain(t, args...)
	if code != 0 || strings.Contains(errOut, "usage.completion_tokens differs") {
		t.Errorf("healthy server: exit %d\n%s", code, errOut)
	}
}
