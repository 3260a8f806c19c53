package report

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/golden"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultkey"
	"github.com/google/go-cmp/cmp"
)

func jsonRun(detailed bool) *Run {
	return &Run{
		Date:        "20260101-010203",
		Backend:     "openai",
		ModelID:     "meta-llama/Llama-3.2-1B-Instruct",
		TokenizerID: "meta-llama/Llama-3.2-1B-Instruct",
		NumPrompts:  5,
		// "backend" collides with an earlier key: it keeps its position and takes the value
		Metadata:   []KV{{"tp", "1"}, {"note", "naïve ☃"}, {"backend", "vllm-meta"}},
		Burstiness: math.Inf(1),
		RPSChangeEvents: []RPSChangeEvent{
			{RPS: 1, Timestamp: "2026-01-01T01:02:03.000001"},
			{RPS: 2, Timestamp: "2026-01-01T01:02:04.500000"},
		},
		SpecDecode: &SpecDecode{AcceptanceRate: 62.5, AcceptanceLength: 2.875, NumDrafts: 40,
			DraftTokens: 120, AcceptedTokens: 75, PerPositionAcceptanceRates: []float64{0.9, 0.625, 0.35}},
		NumWarmups:       2,
		SaveDetailed:     detailed,
		ScheduledOffsets: []float64{0, 0.25, 0.5, 0.75, 1},
		Version:          "v0.1.0-test",
		EndReason:        EndCompleted,
	}
}

func jsonResult(t *testing.T) metrics.Result {
	t.Helper()
	outs := append(seedOutputs(), metrics.Output{Error: "Bad Request\n", PromptLen: 7, ClientQueueTime: 0.125})
	n := 3
	outs[0].CachedTokens = &n
	return metrics.Calculate(outs, 8, metrics.Config{
		CountTokens:        countWords,
		Goodput:            map[string]float64{"ttft": 500, "tpot": 50},
		PercentileMetrics:  metrics.ParsePercentileMetrics("ttft,tpot,itl,e2el,client_queue_time,e2el_including_client_queue"),
		Percentiles:        []float64{50, 99, 99.9},
		MaxConcurrency:     4,
		RequestRate:        4,
		ReportCachedTokens: true,
	})
}

func TestResultJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		detailed bool
	}{{"trimmed", false}, {"detailed", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := jsonResult(t)
			obj := ResultObject(&r, jsonRun(tc.detailed))
			var buf bytes.Buffer
			if err := pyjson.WritePython(&buf, obj); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, buf.Bytes())
			checkValidJSON(t, buf.Bytes())
		})
	}
}

// checkValidJSON decodes the output with encoding/json and checks that
// every float survives the text round trip bit for bit.
func checkValidJSON(t *testing.T, b []byte) {
	t.Helper()
	if !json.Valid(b) {
		t.Fatalf("invalid JSON: %s", b)
	}
	var floats []float64
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case json.Number:
			if f, err := x.Float64(); err == nil {
				floats = append(floats, f)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	walk(v)
	for _, f := range floats {
		again, err := pyjson.AppendPython(nil, f)
		if err != nil {
			t.Fatal(err)
		}
		var back float64
		if err := json.Unmarshal(again, &back); err != nil || math.Float64bits(back) != math.Float64bits(f) {
			t.Errorf("float %v does not round-trip: %s -> %v (%v)", f, again, back, err)
		}
	}
}

func TestResultObjectKeys(t *testing.T) {
	t.Parallel()
	r := jsonResult(t)
	trimmed := ResultObject(&r, jsonRun(false))
	want := []string{
		"date", "endpoint_type", "backend", "label", "model_id", "tokenizer_id", "num_prompts",
		"tp", "note", "request_rate", "burstiness", "max_concurrency",
		"duration", "completed", "failed", "total_input_tokens", "total_output_tokens",
		"request_throughput", "request_goodput", "output_throughput", "total_token_throughput",
		"max_output_tokens_per_s", "max_concurrent_requests", "rtfx", "total_cached_tokens",
		"rps_change_events",
		"spec_decode_acceptance_rate", "spec_decode_acceptance_length", "spec_decode_num_drafts",
		"spec_decode_draft_tokens", "spec_decode_accepted_tokens", "spec_decode_per_position_acceptance_rates",
	}
	for _, m := range []string{"ttft", "tpot", "itl", "e2el", "client_queue_time", "e2el_including_client_queue"} {
		want = append(want, "mean_"+m+"_ms", "median_"+m+"_ms", "std_"+m+"_ms", "p50_"+m+"_ms", "p99_"+m+"_ms", "p99.9_"+m+"_ms")
	}
	want = append(want, "num_warmups")
	if diff := cmp.Diff(want, trimmed.Keys()); diff != "" {
		t.Errorf("trimmed keys (-want +got):\n%s", diff)
	}
	if v, _ := trimmed.Get("backend"); v != "vllm-meta" {
		t.Errorf("metadata did not override backend in place: %v", v)
	}

	detailed := ResultObject(&r, jsonRun(true)).Keys()
	i := slicesIndex(detailed, "total_token_throughput")
	perRequest := []string{"input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times",
		"queue_times", "generated_texts", "errors", "max_output_tokens_per_s"}
	if diff := cmp.Diff(perRequest, detailed[i+1:i+1+len(perRequest)]); diff != "" {
		t.Errorf("detailed per-request keys (-want +got):\n%s", diff)
	}
	// gobench_version comes with gobench_workload, which jsonRun leaves out.
	if diff := cmp.Diff([]string{"num_warmups", "scheduled_offsets", "end_reason"},
		detailed[len(detailed)-3:]); diff != "" {
		t.Errorf("detailed tail (-want +got):\n%s", diff)
	}
}

func slicesIndex(xs []string, s string) int {
	for i, x := range xs {
		if x == s {
			return i
		}
	}
	return -1
}

func TestResultObjectNulls(t *testing.T) {
	t.Parallel()
	// skip-tokenizer-init, rate inf, no goodput, no concurrency, no label:
	// vLLM's None values become null, request_rate the string "inf".
	r := metrics.Calculate(seedOutputs(), 8, metrics.Config{RequestRate: math.Inf(1), Percentiles: []float64{99}})
	obj := ResultObject(&r, &Run{Backend: "openai", ModelID: "m", Burstiness: 1})
	b, err := pyjson.AppendPython(nil, obj)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"label": null`, `"tokenizer_id": null`, `"request_rate": "inf"`,
		`"burstiness": 1.0`, `"max_concurrency": null`, `"request_goodput": null`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("missing %s in %s", want, b)
		}
	}
	if bytes.Contains(b, []byte("rps_change_events")) || bytes.Contains(b, []byte("spec_decode")) ||
		bytes.Contains(b, []byte("total_cached_tokens")) || bytes.Contains(b, []byte("ramp_up")) {
		t.Errorf("optional keys present: %s", b)
	}
}

func TestFilename(t *testing.T) {
	t.Parallel()
	dt := "20260101-010203"
	model := "meta-llama/Llama-3.2-1B-Instruct"
	tests := []struct {
		name string
		o    FileOptions
		want string
	}{
		// test_serve_result_filename.py@48f6efb3: backend openai, rate inf, no concurrency, result dir D
		{"upstream test", FileOptions{Backend: "openai", ModelID: model, RequestRate: math.Inf(1), Date: dt, ResultDir: "D"},
			"D/openai-infqps-Llama-3.2-1B-Instruct-20260101-010203.json"},
		// integral rate keeps Python's ".0"
		{"rate 10", FileOptions{Backend: "vllm", ModelID: model, RequestRate: 10, Date: dt},
			"vllm-10.0qps-Llama-3.2-1B-Instruct-20260101-010203.json"},
		// fractional rate
		{"rate 0.5", FileOptions{Backend: "vllm", ModelID: model, RequestRate: 0.5, Date: dt},
			"vllm-0.5qps-Llama-3.2-1B-Instruct-20260101-010203.json"},
		// tiny rate in Python's scientific notation
		{"rate 1e-05", FileOptions{Backend: "vllm", ModelID: "m", RequestRate: 1e-5, Date: dt},
			"vllm-1e-05qps-m-20260101-010203.json"},
		// label wins over backend, concurrency suffix
		{"label and concurrency", FileOptions{Label: "exp1", Backend: "openai", ModelID: model, RequestRate: 4,
			MaxConcurrency: 8, Date: dt}, "exp1-4.0qps-concurrency8-Llama-3.2-1B-Instruct-20260101-010203.json"},
		// ramp-up form ignores the rate
		{"ramp-up", FileOptions{Backend: "openai", ModelID: model, RequestRate: math.Inf(1),
			RampUp: &RampUp{Strategy: "linear", StartRPS: 1, EndRPS: 10}, MaxConcurrency: 3, Date: dt},
			"openai-ramp-up-linear-1qps-10qps-concurrency3-Llama-3.2-1B-Instruct-20260101-010203.json"},
		// --result-filename replaces the name, still joined to the directory
		{"result filename", FileOptions{Backend: "openai", ModelID: model, Date: dt, ResultDir: "out/",
			ResultFilename: "res.json"}, "out/res.json"},
		// os.path.join: an absolute file name discards the directory
		{"absolute filename", FileOptions{Backend: "openai", ModelID: model, Date: dt, ResultDir: "out",
			ResultFilename: "/tmp/res.json"}, "/tmp/res.json"},
		// os.path.join does not clean the directory
		{"dot dir", FileOptions{Backend: "openai", ModelID: "m", RequestRate: 1, Date: dt, ResultDir: "./res"},
			"./res/openai-1.0qps-m-20260101-010203.json"},
		// a model id without "/" is used whole
		{"plain model", FileOptions{Backend: "openai", ModelID: "gpt2", RequestRate: 2.5, Date: dt},
			"openai-2.5qps-gpt2-20260101-010203.json"},
	}
	for _, tt := range tests {
		if got := Filename(tt.o); got != tt.want {
			t.Errorf("%s: Filename = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestWriteFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rec := func(k string, v any) *pyjson.Object {
		o := pyjson.NewObject()
		o.Set(k, v)
		return o
	}
	// Save mode: one line, no trailing newline, parents created.
	path := filepath.Join(dir, "nested", "results", "r.json")
	if err := writeFile(path, rec("backend", "vllm"), false); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(path, rec("request_rate", math.Inf(1)), false); err != nil {
		t.Fatal(err)
	}
	assertFile(t, path, `{"request_rate": "inf"}`)

	// Append mode (test_result_jsonl.py@89a73c7a): one record per line.
	jsonl := filepath.Join(dir, "b.jsonl")
	if err := writeFile(jsonl, rec("backend", "vllm"), true); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(jsonl, rec("backend", "openai"), true); err != nil {
		t.Fatal(err)
	}
	assertFile(t, jsonl, "{\"backend\": \"vllm\"}\n{\"backend\": \"openai\"}")

	// An existing file that already ends with a newline gets no blank line.
	withNL := filepath.Join(dir, "c.jsonl")
	if err := os.WriteFile(withNL, []byte("{\"backend\": \"vllm\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(withNL, rec("backend", "openai"), true); err != nil {
		t.Fatal(err)
	}
	assertFile(t, withNL, "{\"backend\": \"vllm\"}\n{\"backend\": \"openai\"}")
}

func assertFile(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s = %q, want %q", path, got, want)
	}
	for _, line := range strings.Split(string(got), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("line %q is not valid JSON", line)
		}
	}
}

func TestParseMetadata(t *testing.T) {
	t.Parallel()
	got, err := ParseMetadata([]string{"version=0.3.3", " tp = 1 ", "expr=a=b"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]KV{{"version", "0.3.3"}, {"tp", "1"}, {"expr", "a=b"}}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := ParseMetadata([]string{"novalue"}); err == nil ||
		err.Error() != "Invalid metadata format. Please use KEY=VALUE format." {
		t.Errorf("error = %v", err)
	}
}

// writeFile saves obj at path as a run does: its directory made ready
// (PrepareSave), then Save.
func writeFile(path string, obj *pyjson.Object, appendRecord bool) error {
	p, err := PrepareSave(filepath.Dir(path))
	if err != nil {
		return err
	}
	return Save(p, path, obj, appendRecord)
}

// TestRequestLists: the lists RequestLists gives are those a detailed
// result saves, with the same values.
func TestRequestLists(t *testing.T) {
	t.Parallel()
	r := jsonResult(t)
	lists := RequestLists(&r)
	detailed := ResultObject(&r, jsonRun(true))
	var want []string
	for _, k := range detailed.Keys() {
		if slices.Contains(resultkey.RequestLists(), k) {
			want = append(want, k)
		}
	}
	if diff := cmp.Diff(want, lists.Keys()); diff != "" {
		t.Errorf("keys (-detailed +RequestLists):\n%s", diff)
	}
	for _, k := range want {
		a, _ := detailed.Get(k)
		b, _ := lists.Get(k)
		ja, _ := pyjson.AppendPython(nil, a)
		jb, _ := pyjson.AppendPython(nil, b)
		if string(ja) != string(jb) {
			t.Errorf("%s: %s, detailed %s", k, jb, ja)
		}
	}
}
