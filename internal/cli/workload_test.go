package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/golden"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
)

// TestCheckComputesMissingStatistic: a threshold on a
// statistic the file lacks is computed from its per-request data exactly
// as `gobench analyze` computes it, and the output says so; without
// per-request data the error says how to get the statistic.
func TestCheckComputesMissingStatistic(t *testing.T) {
	t.Parallel()
	fast, slow := fixture("gobench_fast.json"), fixture("gobench_slow.json")
	var golds bytes.Buffer
	for _, format := range []string{"text", "markdown"} {
		out, errOut, code := runMain(t, "check", slow, "--baseline", fast, "--threshold", "p95_ttft_ms<100",
			"--threshold", "p99_ttft_ms<100", "--threshold", "p95_e2el_ms<=baseline*1.05", "--format", format)
		if code != int(exitcode.ThresholdFailed) || errOut != "gobench check: 1 of 3 threshold(s) failed\n" {
			t.Errorf("%s: exit %d\n%s\n%s", format, code, out, errOut)
		}
		golds.WriteString("$ gobench check gobench_slow.json --baseline gobench_fast.json ... --format " + format + "\n" + out + "\n")
	}
	golden.Check(t, golds.Bytes())

	// The value is analyze's, bit for bit.
	out, _, code := runMain(t, "check", slow, "--threshold", "p95_ttft_ms<100", "--format", "json")
	var verdicts struct {
		Thresholds []struct {
			Measured float64
			Note     string
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &verdicts) != nil || len(verdicts.Thresholds) != 1 {
		t.Fatalf("json: exit %d: %s", code, out)
	}
	out, _, code = runMain(t, "analyze", slow, "--percentile-metrics", "ttft", "--metric-percentiles", "95", "--format", "json")
	runs, err := resultfile.Parse("analyze", []byte(out), nil)
	if code != 0 || err != nil {
		t.Fatalf("analyze: exit %d %v", code, err)
	}
	want, _ := runs[0].Number("p95_ttft_ms")
	if got := verdicts.Thresholds[0]; math.Float64bits(got.Measured) != math.Float64bits(want) ||
		got.Note != "computed from 24 per-request records, not in the result" {
		t.Errorf("check measured %v (%q), analyze computes %v", got.Measured, got.Note, want)
	}

	// analyze --threshold on a statistic its own selection leaves out.
	out, _, code = runMain(t, "analyze", slow, "--metric-percentiles", "50", "--threshold", "p95_ttft_ms<100")
	if code != 0 || !strings.Contains(out, "PASS  p95_ttft_ms<100  25.") || !strings.Contains(out, "(computed from 24 per-request records") {
		t.Errorf("analyze --threshold: exit %d\n%s", code, out)
	}

	noTokenizer := writeResult(t, "no-tokenizer.json", `{"tokenizer_id": null, "duration": 1.0, "completed": 1, "failed": 0, `+
		`"ttfts": [0.1], "itls": [[0.01]], "output_lens": [2], "errors": [""], "mean_e2el_ms": 110.0}`)
	for _, tt := range []struct {
		name, file, threshold, stderr string
	}{
		{"no per-request data", fixture("vllm_runs.jsonl#0"), "p95_ttft_ms<100",
			"no per-request data to compute it from: run again with --percentile-metrics and --metric-percentiles selecting it, or with --save-detailed"},
		{"a metric the run did not measure", noTokenizer, "p95_tpot_ms<100", "the run did not measure tpot"},
	} {
		_, errOut, code := runMain(t, "check", tt.file, "--threshold", tt.threshold)
		if code != int(exitcode.BadUsage) || !strings.Contains(errOut, tt.stderr) {
			t.Errorf("%s: exit %d: %s", tt.name, code, errOut)
		}
	}
	if out, errOut, code := runMain(t, "check", noTokenizer, "--threshold", "p95_e2el_ms<200"); code != 0 ||
		!strings.Contains(out, "PASS  p95_e2el_ms<200  110 < 200 (computed from 1 per-request record, not in the result; no latencies in the file, so E2EL is TTFT plus the ITLs)") {
		t.Errorf("e2el without a tokenizer: exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestServeThresholdComputed: `serve --threshold` on a
// statistic --percentile-metrics leaves out computes it from the run's
// requests, with or without --save-detailed, to the value `check` computes
// from the saved file.
func TestServeThresholdComputed(t *testing.T) {
	t.Parallel()
	srv, _ := simServer(t, 2*time.Millisecond, time.Millisecond, 0)
	dir := t.TempDir()
	args := []string{"serve", "--base-url", srv.URL, "--num-prompts", "6", "--random-input-len", "16", "--random-output-len", "3",
		"--disable-tqdm", "--threshold", "p95_e2el_ms<10000", "--threshold", "p99_ttft_ms<10000"}
	verdict := func(out string) string {
		i := strings.Index(out, "PASS  p95_e2el_ms")
		if i < 0 {
			t.Fatalf("no verdict in:\n%s", out)
		}
		return out[i : i+strings.IndexByte(out[i:], '\n')]
	}
	out, errOut, code := runMain(t, args...)
	if code != 0 || !strings.HasSuffix(verdict(out), "(computed from 6 per-request records, not in the result)") {
		t.Errorf("without --save-detailed: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = runMain(t, append(args, "--save-result", "--save-detailed", "--result-dir", dir, "--result-filename", "r.json")...)
	if code != 0 {
		t.Fatalf("with --save-detailed: exit %d\n%s\n%s", code, out, errOut)
	}
	served := verdict(out)
	out, _, code = runMain(t, "check", filepath.Join(dir, "r.json"), "--threshold", "p95_e2el_ms<10000")
	if code != 0 || verdict(out) != served {
		t.Errorf("serve judged %q, check judges %q", served, verdict(out))
	}
}

// TestResultRecordsWorkload: the saved result records
// its workload in gobench_workload (golden), vLLM's keys unchanged before
// it; analyze keeps it and takes the run's SLOs and percentiles from it.
func TestResultRecordsWorkload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, errOut, code := runMain(t, "serve", "--sim", "--sim-ttft", "0.002", "--sim-itl", "0.001", "--num-prompts", "5",
		"--request-rate", "100", "--dataset-name", "random", "--random-input-len", "12", "--random-output-len", "3",
		"--random-range-ratio", `{"input": 0.5, "output": 0}`, "--seed", "9", "--temperature", "0.5", "--top-p", "0.9",
		"--goodput", "ttft:500", "e2el:1000", "--percentile-metrics", "ttft,e2el", "--metric-percentiles", "50,99.9",
		"--metadata", "gpu=sim", "--save-result", "--save-detailed", "--result-dir", dir, "--result-filename", "r.json", "--disable-tqdm")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	path := filepath.Join(dir, "r.json")
	saved, err := resultfile.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	w, ok := saved.Object(resultkey.GobenchWorkload)
	if !ok {
		t.Fatalf("no %s in %v", resultkey.GobenchWorkload, saved.Keys())
	}
	b, err := pyjson.AppendPython(nil, w)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, append(bytes.ReplaceAll(b, []byte(dir), []byte("$DIR")), '\n'))
	keys := saved.Keys()
	i := slices.Index(keys, resultkey.GobenchWorkload)
	if i < 0 || keys[i-1] != resultkey.NumWarmups || keys[i+1] != resultkey.GobenchVersion || keys[i+2] != resultkey.ResentRequests ||
		keys[i+3] != resultkey.FailureKinds || !slices.Contains(keys[i+4:i+6], resultkey.ScheduledOffsets) {
		t.Errorf("%s and %s are not between num_warmups and scheduled_offsets: %v", resultkey.GobenchWorkload, resultkey.GobenchVersion, keys)
	}

	// analyze without flags: the run's SLOs and percentiles, from the file.
	out, errOut, code = runMain(t, "analyze", path, "--format", "json")
	again, err := resultfile.Parse("analyze", []byte(out), nil)
	if code != 0 || err != nil || errOut != "" {
		t.Fatalf("analyze: exit %d %v\n%s", code, err, errOut)
	}
	for _, k := range []string{resultkey.RequestGoodput, "p99.9_e2el_ms", "p50_ttft_ms"} {
		want, ok1 := saved.Number(k)
		got, ok2 := again[0].Number(k)
		if !ok1 || !ok2 || math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("%s: analyze %v (%v), saved %v (%v)", k, got, ok2, want, ok1)
		}
	}
	kept, _ := again[0].Raw(resultkey.GobenchWorkload)
	if raw, _ := saved.Raw(resultkey.GobenchWorkload); !bytes.Equal(kept, raw) {
		t.Errorf("analyze's result does not keep the workload: %s", kept)
	}
}

// TestSavedCommandRedacted: the saved command line
// keeps the flags that describe the run and no secret: neither a
// credential-looking --header value, nor the credentials of --base-url or
// of a URL's query, nor OPENAI_API_KEY's value wherever it was pasted.
func TestSavedCommandRedacted(t *testing.T) {
	t.Parallel()
	const key, pw, hdr = "sk-live-0123456789abcdef", "hunter2-pw", "tok-98765432"
	srv, _ := simServer(t, time.Millisecond, time.Millisecond, 0)
	withCreds := strings.Replace(srv.URL, "://", "://alice:"+pw+"@", 1)
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	deps := Deps{Stdout: &out, Stderr: &errOut, Getenv: func(k string) string {
		if k == "OPENAI_API_KEY" {
			return key
		}
		return ""
	}}
	code := Main(context.Background(), []string{"serve", "--base_url", withCreds, "--num-prompts", "2",
		"--random-input-len", "8", "--random-output-len", "2", "--header", "Authorization=Bearer " + key,
		"X-Api-Key=" + hdr, "X-Tenant=acme", "--metadata", "note=" + key, "--save-result",
		"--result-dir", dir, "--result-filename", "r.json", "--disable-tqdm"}, deps)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, &out, &errOut)
	}
	saved, err := resultfile.Open(filepath.Join(dir, "r.json"), nil)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := saved.Object(resultkey.GobenchWorkload)
	v, _ := w.Get(resultkey.WorkloadCommand)
	cmd, _ := v.(string)
	for _, want := range []string{"gobench serve '--base-url=http://<redacted>@127.0.0.1:", "'--header=Authorization=<redacted>'",
		"'--header=X-Api-Key=<redacted>'", "--header=X-Tenant=acme", "'--metadata=note=<redacted>'", "--num-prompts=2"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("the command %q lacks %q", cmd, want)
		}
	}
	for _, secret := range []string{key, pw, hdr, "alice"} {
		if strings.Contains(cmd, secret) {
			t.Errorf("the command %q holds the secret %q", cmd, secret)
		}
	}
}

func TestCommandLine(t *testing.T) {
	t.Parallel()
	env := func(k string) string {
		return map[string]string{"OPENAI_API_KEY": "sk-abcdefgh", "HF_TOKEN": "hf_shrt"}[k]
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--num-prompts=5", "--sim"}, "gobench serve --num-prompts=5 --sim"},
		{[]string{"serve", "--header=Authorization=Bearer x", "--header=Cookie=a=b", "--header=X-Trace=on"},
			"gobench serve '--header=Authorization=<redacted>' '--header=Cookie=<redacted>' --header=X-Trace=on"},
		{[]string{"serve", "--base-url=https://u:p@h:1/v1?api_key=s3&x=1#f"}, "gobench serve '--base-url=https://<redacted>@h:1/v1?api_key=<redacted>&x=1#f'"},
		{[]string{"serve", "--base-url=http://h/p@q"}, "gobench serve --base-url=http://h/p@q"},
		{[]string{"serve", "--label=it's", "--metadata=\x00empty", "--extra-body={\"k\":1}"},
			`gobench serve '--label=it'\''s' --metadata '--extra-body={"k":1}'`},
		{[]string{"serve", "--metadata=k=sk-abcdefgh", "--label=hf_shrt"}, "gobench serve '--metadata=k=<redacted>' --label=hf_shrt"},
		{[]string{"serve", "--label="}, "gobench serve --label="},
	}
	for _, tt := range tests {
		if got := commandLine(tt.args, env); got != tt.want {
			t.Errorf("commandLine(%q):\n got %s\nwant %s", tt.args, got, tt.want)
		}
	}
}

// TestCompareWorkload: compare --all lists the recorded
// workloads side by side, with the command lines under the settings, next
// to a result that records none; rtfx, zero in every file, is left out.
func TestCompareWorkload(t *testing.T) {
	t.Parallel()
	out, errOut, code := runMain(t, "compare", "--all", fixture("gobench_workload_a.json"), fixture("gobench_workload_b.json"),
		fixture("gobench_fast.json"))
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden.Check(t, []byte(out))
	if strings.Contains(out, "\nrtfx ") || !strings.Contains(out, "Zero or absent in every result (left out): rtfx.") {
		t.Errorf("rtfx is not left out")
	}
}
