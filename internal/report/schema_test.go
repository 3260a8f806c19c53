package report

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultkey"
	"github.com/google/go-cmp/cmp"
)

// selectionGrid is every combination of the parts of a configuration that
// decide the result's keys.
func selectionGrid() []resultkey.Selection {
	var grid []resultkey.Selection
	for _, pm := range []string{"", "ttft,e2el", "e2el", "ttft,tpot,itl,e2el,client_queue_time,e2el_including_client_queue", "tpot, itl,foo"} {
		for _, ps := range [][]float64{{99}, {50, 99.9, 1e-05, 100}} {
			for bits := range 1 << 7 {
				grid = append(grid, resultkey.Selection{
					PercentileMetrics: metrics.ParsePercentileMetrics(pm), Percentiles: ps,
					Tokenizer: bits&1 != 0, ClientQueue: bits&2 != 0, RampUp: bits&4 != 0,
					Detailed: bits&8 != 0, ReportCachedTokens: bits&16 != 0, Workload: bits&32 != 0,
					Pooling: bits&64 != 0,
				})
			}
		}
	}
	return grid
}

// withServerMetrics are seedOutputs carrying what a server may report per
// request: cached tokens, vLLM's per-request metrics and llama.cpp's
// timings.
func withServerMetrics() []metrics.Output {
	outs := seedOutputs()
	cached, queue, ttft, prompt, decode := 3, 0.01, 0.1, 0.05, 0.5
	for i := range outs {
		outs[i].CachedTokens, outs[i].ServerQueueTime, outs[i].ServerTTFT = &cached, &queue, &ttft
		outs[i].ServerPromptTime, outs[i].ServerDecodeTime = &prompt, &decode
	}
	return outs
}

// TestSchemaMatchesWriter proves that resultkey's schema and the writer
// agree: for every selection of the grid, the keys ResultObject writes for
// a Calculate of that configuration are the keys Selection.Keys lists, in
// order, those the server may add present exactly when the server
// reported them; and resultkey.ParseStatKey reads every statistic key
// written back to the statistic StatKey made it from.
func TestSchemaMatchesWriter(t *testing.T) {
	t.Parallel()
	spec := &SpecDecode{AcceptanceRate: 50, AcceptanceLength: 2, NumDrafts: 4, DraftTokens: 8, AcceptedTokens: 4,
		PerPositionAcceptanceRates: []float64{0.5}}
	for i, sel := range selectionGrid() {
		cfg := metrics.Config{PercentileMetrics: sel.PercentileMetrics, Percentiles: sel.Percentiles,
			RequestRate: 4, ReportCachedTokens: sel.ReportCachedTokens, Goodput: map[string]float64{"ttft": 500},
			Pooling: sel.Pooling}
		if sel.Tokenizer {
			cfg.CountTokens = countWords
		}
		if sel.ClientQueue {
			cfg.MaxConcurrency = 2
		}
		run := &Run{Date: "20260101-010203", Backend: "openai", ModelID: "m", SaveDetailed: sel.Detailed,
			ScheduledOffsets: []float64{0}, Version: "v", EndReason: EndCompleted}
		if sel.Workload {
			run.Workload = (&Workload{DatasetName: "random"}).Object()
		}
		if sel.RampUp {
			run.RampUp = &RampUp{Strategy: "linear", StartRPS: 1, EndRPS: 4}
			run.RPSChangeEvents = []RPSChangeEvent{{RPS: 1, Timestamp: "2026-01-01T01:02:03.000001"}}
		}
		for _, c := range []struct {
			name    string
			outputs []metrics.Output
			server  bool
		}{{"no requests", nil, false}, {"requests", seedOutputs(), false}, {"server metrics", withServerMetrics(), true}} {
			r := metrics.Calculate(c.outputs, 8, cfg)
			run.SpecDecode, run.ServerView = nil, nil
			if c.server {
				run.SpecDecode, run.ServerView = spec, pyjson.NewObject()
			}
			var want []string
			for _, k := range sel.Keys() {
				if !k.Server || c.server {
					want = append(want, k.Name)
				}
			}
			got := ResultObject(&r, run).Keys()
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("selection %d %+v, %s: written keys (-schema +writer):\n%s", i, sel, c.name, diff)
			}
			checkStatKeys(t, sel, got)
		}
	}
}

// checkStatKeys checks that the statistic keys among keys are sel's, and
// that each parses back to what formats it.
func checkStatKeys(t *testing.T, sel resultkey.Selection, keys []string) {
	t.Helper()
	var stats []string
	for _, k := range keys {
		m, st, ok := resultkey.ParseStatKey(k)
		if !ok {
			continue
		}
		stats = append(stats, k)
		if again := resultkey.StatKey(m, st); again != k {
			t.Errorf("ParseStatKey(%q) = %q %+v, which formats as %q", k, m, st, again)
		}
	}
	if diff := cmp.Diff(sel.StatKeys(), stats); diff != "" {
		t.Errorf("%+v: statistic keys (-StatKeys +parsed):\n%s", sel, diff)
	}
}

// TestDocListsEveryKey: the package documentation's key list names every
// key of the schema (the statistic keys by their pattern).
func TestDocListsEveryKey(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	all := resultkey.Selection{Tokenizer: true, ClientQueue: true, RampUp: true, Detailed: true, ReportCachedTokens: true, Workload: true}
	for _, k := range all.Keys() {
		if _, _, isStat := resultkey.ParseStatKey(k.Name); isStat {
			continue
		}
		line := regexp.MustCompile(fmt.Sprintf(`(?m)^//\t%s\s`, regexp.QuoteMeta(k.Name)))
		if !line.Match(doc) {
			t.Errorf("doc.go does not list the key %q", k.Name)
		}
	}
	for _, k := range resultkey.WorkloadKeys() {
		line := regexp.MustCompile(fmt.Sprintf(`(?m)^//\t  %s\s`, regexp.QuoteMeta(k)))
		if !line.Match(doc) {
			t.Errorf("doc.go does not list the key %q of %s", k, resultkey.GobenchWorkload)
		}
	}
}

// TestWorkloadObject: the workload object has resultkey.WorkloadKeys in
// order, the dataset's flags after dataset_path, and its values as
// documented.
func TestWorkloadObject(t *testing.T) {
	t.Parallel()
	flags := pyjson.NewObject()
	flags.Set("random_input_len", 16)
	sampling := pyjson.NewObject()
	sampling.Set("temperature", 0.5)
	w := &Workload{DatasetName: "random", DatasetFlags: flags, Seed: 3, SamplingParams: sampling,
		Goodput: map[string]float64{"tpot": 50, "ttft": 500}, PercentileMetrics: []string{"ttft", "e2el"},
		Percentiles: []float64{50, 99.9}, TokenizerMode: "auto", TokenizerSource: resultkey.TokenizerBuiltin,
		Command: "gobench serve --seed=3"}
	got, err := pyjson.AppendPython(nil, w.Object())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"dataset_name": "random", "dataset_path": null, "random_input_len": 16, "seed": 3, "ignore_eos": false, ` +
		`"sampling_params": {"temperature": 0.5}, "goodput": {"ttft": 500.0, "tpot": 50.0}, "percentile_metrics": "ttft,e2el", ` +
		`"metric_percentiles": "50,99.9", "tokenizer_mode": "auto", "tokenizer_source": "builtin", "command": "gobench serve --seed=3"}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("workload (-want +got):\n%s", diff)
	}
	keys := slices.DeleteFunc(w.Object().Keys(), func(k string) bool { return k == "random_input_len" })
	if diff := cmp.Diff(resultkey.WorkloadKeys(), keys); diff != "" {
		t.Errorf("keys (-WorkloadKeys +written):\n%s", diff)
	}
	empty, _ := pyjson.AppendPython(nil, (&Workload{}).Object())
	if !strings.Contains(string(empty), `"sampling_params": {}, "goodput": null`) {
		t.Errorf("empty workload: %s", empty)
	}
}
