// Package analyze recomputes every metric of a run from its saved
// per-request data (a --save-detailed result, gobench's or vLLM's), with
// other percentiles, percentile metrics or goodput SLOs than the run used,
// so that an SLO can be re-evaluated without sending the load again.
//
// For a gobench file the recomputation is exact: the per-request floats are
// read back bit for bit and go through the same metrics.Calculate, so the
// block printed from the file equals, to the last digit, the one the run
// printed. vLLM's older files lack some lists; what can then only be
// approximated or not recomputed at all is said in Result.Notes.
package analyze

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
)

// Options select what to recompute. Empty fields take what the run used,
// as far as the file tells it.
type Options struct {
	// PercentileMetrics is --percentile-metrics; "" takes the run's, as
	// its gobench_workload records it, else as its mean_*_ms keys tell.
	PercentileMetrics string
	// MetricPercentiles is --metric-percentiles; "" takes the run's, as
	// its gobench_workload records it, else as its p*_ms keys tell.
	MetricPercentiles string
	// Goodput holds the SLOs in ms (metrics.ParseGoodput); empty takes the
	// SLOs the run's gobench_workload records, and disables goodput for a
	// file without them (vLLM's files do not record the SLOs).
	Goodput map[string]float64
}

// Result is the recomputed run.
type Result struct {
	// Metrics is what metrics.Calculate computed from the file's records,
	// with the figures the file lacked the data for taken from its saved
	// keys (see Notes).
	Metrics metrics.Result
	// Spec is the speculative-decoding section saved in the file, nil when
	// it has none (it comes from server counters, not from requests).
	Spec *report.SpecDecode
	// PercentileMetrics and MetricPercentiles are the selections used.
	PercentileMetrics, MetricPercentiles string
	// Notes say what was inferred, approximated or not recomputable.
	Notes []string
	// Steady and Client are gobench's own sections, recomputed when the
	// file saved them (gobench_steady_state, gobench_client); nil
	// otherwise.
	Steady *metrics.SteadyState
	Client *metrics.ClientLoad
}

// Recompute rebuilds the requests of run and computes the metrics again.
// The run must carry per-request data and its duration.
func Recompute(run *resultfile.Run, o Options) (*Result, error) {
	d, err := run.Detailed()
	if err != nil {
		return nil, err
	}
	o = o.withRun(run)
	res, err := recompute(run, d, o)
	if err != nil {
		return nil, err
	}
	if len(o.Goodput) == 0 {
		if raw, ok := run.Raw(resultkey.RequestGoodput); ok && string(raw) != "null" {
			note := "the run measured goodput, but the file does not record its SLOs (vLLM's files do not): pass --goodput to recompute it"
			res.Notes = append([]string{note}, res.Notes...)
		}
	}
	return res, nil
}

// recompute computes the metrics of the records d of run with the
// selection and SLOs of o (complete: withRun applied).
func recompute(run *resultfile.Run, d *resultfile.Detailed, o Options) (*Result, error) {
	duration, ok := run.Number(resultkey.Duration)
	if !ok {
		return nil, fmt.Errorf("%s: no %q in the result", run.Name(), resultkey.Duration)
	}
	res := &Result{PercentileMetrics: o.PercentileMetrics, MetricPercentiles: o.MetricPercentiles}
	ps, err := metrics.ParseMetricPercentiles(res.MetricPercentiles)
	if err != nil {
		return nil, err
	}
	cfg := metrics.Config{
		Goodput:           o.Goodput,
		PercentileMetrics: metrics.ParsePercentileMetrics(res.PercentileMetrics),
		Percentiles:       ps,
		RequestRate:       math.Inf(1),
	}
	if v, ok := run.Number(resultkey.RequestRate); ok {
		cfg.RequestRate = v
	}
	if v, ok := run.Number(resultkey.MaxConcurrency); ok && v > 0 {
		cfg.MaxConcurrency = int(v)
	}
	if raw, ok := run.Raw(resultkey.TokenizerID); !ok || string(raw) != "null" {
		// The run had a tokenizer. output_lens already hold the lengths it
		// counted, so the fallback is never needed again: a successful
		// request saved with 0 tokens was counted as 0.
		cfg.CountTokens = func(string) int { return 0 }
	}
	res.Metrics = metrics.Calculate(d.Outputs, duration, cfg)
	res.patch(run, d)
	res.Spec = specDecode(run)
	res.gobench(run, d)
	return res, nil
}

// gobench recomputes the gobench sections the file saved: the steady
// state from the requests' starts and latencies, the client's schedule
// lag from schedule_lags. The client's CPU use is the saved one: no
// per-request data holds it.
func (res *Result) gobench(run *resultfile.Run, d *resultfile.Detailed) {
	if run.Has(resultkey.GobenchSteadyState) && d.HasStartTimes && d.HasLatencies {
		res.Steady = metrics.Steady(&res.Metrics)
	}
	saved, ok := run.Object(resultkey.GobenchClient)
	raw, lok := run.Raw(resultkey.ScheduleLags)
	var lags []float64
	if !ok || !lok || json.Unmarshal(raw, &lags) != nil {
		return
	}
	c := &metrics.ClientLoad{Lags: lags}
	number := func(key string) (float64, bool) {
		v, _ := saved.Get(key)
		return pyjson.Number(v)
	}
	c.WallSeconds, _ = number(resultkey.ClientWallSeconds)
	c.CPUSeconds, c.CPUKnown = number(resultkey.ClientCPUSeconds)
	if ms, ok := number(resultkey.ClientLagWarnMS); ok {
		c.WarnLag = ms / 1000
	}
	res.Client = c
}

// withRun fills what o leaves empty with what the run used: the selection
// and the SLOs its gobench_workload records, else the selection its keys
// tell (InferSelection).
func (o Options) withRun(run *resultfile.Run) Options {
	w, _ := run.Object(resultkey.GobenchWorkload)
	recorded := func(key string) string {
		if w == nil {
			return ""
		}
		v, _ := w.Get(key)
		s, _ := v.(string)
		return s
	}
	if o.PercentileMetrics == "" {
		o.PercentileMetrics = recorded(resultkey.WorkloadPercentileMetrics)
	}
	if o.MetricPercentiles == "" {
		o.MetricPercentiles = recorded(resultkey.WorkloadMetricPercentiles)
	}
	if o.PercentileMetrics == "" || o.MetricPercentiles == "" {
		pm, mp := InferSelection(run)
		if o.PercentileMetrics == "" {
			o.PercentileMetrics = pm
		}
		if o.MetricPercentiles == "" {
			o.MetricPercentiles = mp
		}
	}
	if len(o.Goodput) == 0 && w != nil {
		o.Goodput = recordedGoodput(w)
	}
	return o
}

// recordedGoodput reads the SLOs of a gobench_workload (nil for none).
func recordedGoodput(w *pyjson.Object) map[string]float64 {
	v, _ := w.Get(resultkey.WorkloadGoodput)
	g, ok := v.(*pyjson.Object)
	if !ok {
		return nil
	}
	slos := map[string]float64{}
	for _, k := range g.Keys() {
		switch x, _ := g.Get(k); x := x.(type) {
		case float64:
			slos[k] = x
		case int:
			slos[k] = float64(x)
		}
	}
	return slos
}

// patch takes from the saved keys what the per-request data cannot give,
// and notes it.
func (res *Result) patch(run *resultfile.Run, d *resultfile.Detailed) {
	m := &res.Metrics
	if !d.HasLatencies {
		res.Notes = append(res.Notes, "no latencies in the file: E2EL is TTFT plus the ITLs (vLLM's differs in the last digits)")
	}
	if !d.HasStartTimes {
		if v, ok := run.Number(resultkey.MaxOutputTokensPerS); ok {
			m.MaxOutputTokensPerS = v
		}
		if v, ok := run.Number(resultkey.MaxConcurrentRequests); ok {
			m.MaxConcurrentRequests = int(v)
		}
		res.Notes = append(res.Notes, "no start_times in the file: peak output throughput and peak concurrency are the saved values")
	}
	if v, ok := run.Number(resultkey.RTFx); ok && v > 0 {
		// Neither vLLM nor gobench saves each request's audio duration.
		m.RTFx = v
		res.Notes = append(res.Notes, "rtfx is the saved value: the file has no per-request audio durations")
	}
	if !d.HasQueueTimes && m.MaxConcurrency > 0 {
		m.ClientQueue, m.E2ELInclQueue = nil, nil
		res.Notes = append(res.Notes, "no queue_times in the file: the client queue sections cannot be recomputed")
	}
	if c, ok := run.Number(resultkey.Completed); ok && int(c) != m.Completed {
		res.Notes = append(res.Notes, fmt.Sprintf("the file says %d requests completed, its per-request errors say %d", int(c), m.Completed))
	}
}

// InferSelection returns the --percentile-metrics and --metric-percentiles
// a run used, as far as its keys tell (resultkey.ParseStatKey): the
// metrics with a mean key among those --percentile-metrics selects (not
// the client queue ones), and the percentiles of the first section's keys,
// in file order. Without such keys it returns vLLM's defaults.
func InferSelection(run *resultfile.Run) (percentileMetrics, metricPercentiles string) {
	hasMean := map[string]bool{}
	labels := map[string][]string{}
	for _, k := range run.Keys() {
		m, st, ok := resultkey.ParseStatKey(k)
		switch {
		case !ok:
		case st.Kind == resultkey.Mean:
			hasMean[m] = true
		case st.Kind == resultkey.Percentile:
			labels[m] = append(labels[m], resultkey.PercentileLabel(st.P))
		}
	}
	var pm []string
	percentileMetrics, metricPercentiles = metrics.DefaultPercentileMetrics, metrics.DefaultMetricPercentiles
	first := true
	for _, m := range resultkey.Metrics() {
		if !hasMean[m.Key] {
			continue
		}
		if !m.ClientQueue {
			pm = append(pm, m.Key)
		}
		if first && len(labels[m.Key]) > 0 {
			metricPercentiles = strings.Join(labels[m.Key], ",")
		}
		first = false
	}
	if len(pm) > 0 {
		percentileMetrics = strings.Join(pm, ",")
	}
	return percentileMetrics, metricPercentiles
}

// specDecode reads the speculative-decoding keys back.
func specDecode(run *resultfile.Run) *report.SpecDecode {
	rate, ok := run.Number(resultkey.SpecDecodeAcceptanceRate)
	if !ok {
		return nil
	}
	s := &report.SpecDecode{AcceptanceRate: rate}
	s.AcceptanceLength, _ = run.Number(resultkey.SpecDecodeAcceptanceLength)
	for key, dst := range map[string]*int{
		resultkey.SpecDecodeNumDrafts: &s.NumDrafts, resultkey.SpecDecodeDraftTokens: &s.DraftTokens,
		resultkey.SpecDecodeAcceptedTokens: &s.AcceptedTokens,
	} {
		v, _ := run.Number(key)
		*dst = int(v)
	}
	if raw, ok := run.Raw(resultkey.SpecDecodePerPositionAcceptanceRates); ok {
		_ = json.Unmarshal(raw, &s.PerPositionAcceptanceRates)
	}
	return s
}

// Object is the recomputed result as a result file would hold it (without
// the per-request lists), for thresholds and JSON output: the file's own
// setup keys, then the recomputed metric keys, and the file's server_view
// as it is (the server's figures come from its /metrics, not from the
// requests).
func (res *Result) Object(run *resultfile.Run) *pyjson.Object {
	burstiness, _ := run.Number(resultkey.Burstiness)
	warmups, _ := run.Number(resultkey.NumWarmups)
	prompts, _ := run.Number(resultkey.NumPrompts)
	date, _ := run.String(resultkey.Date)
	backend, _ := run.String(resultkey.Backend)
	model, _ := run.String(resultkey.ModelID)
	tok, _ := run.String(resultkey.TokenizerID)
	workload, _ := run.Object(resultkey.GobenchWorkload)
	version, _ := run.String(resultkey.GobenchVersion) // the binary that measured
	end, _ := run.String(resultkey.EndReason)
	return report.ResultObject(&res.Metrics, &report.Run{
		Date: date, Backend: backend, Label: run.Label(), ModelID: model, TokenizerID: tok,
		NumPrompts: int(prompts), Burstiness: burstiness, NumWarmups: int(warmups), SpecDecode: res.Spec,
		Workload: workload, ServerView: ServerView(run), Version: version, Steady: res.Steady, Client: res.Client,
		EndReason: end,
	})
}

// ServerView is the run's server_view object (package serverview draws
// it after the block), nil when the file has none: vLLM's files, and
// gobench's of a server without /metrics or before the server view.
func ServerView(run *resultfile.Run) *pyjson.Object {
	o, _ := run.Object(resultkey.ServerView)
	return o
}
