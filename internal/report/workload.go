package report

import (
	"strings"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultkey"
)

// Workload is what made a run's load, saved as the gobench_workload object
// (resultkey.WorkloadKeys; the package documentation lists its keys):
// vLLM's result keys name the rate, the concurrency and the model, but not
// the dataset, the lengths, the seed, the SLOs or the sampling parameters,
// so two saved results could not be told apart by their workload.
type Workload struct {
	// DatasetName and DatasetPath are --dataset-name and --dataset-path
	// ("" is saved as null).
	DatasetName, DatasetPath string
	// DatasetFlags are the dataset's own flags under their argument names
	// (random_input_len, ...), in vLLM's flag order; nil for none.
	DatasetFlags *pyjson.Object
	// Seed is --seed.
	Seed int64
	// ScheduleSeed is the arrivals' own seed (run.Options.ScheduleSeed),
	// saved after seed only when set.
	ScheduleSeed *int64
	// PrefixCache is run.Options.PrefixCache, saved when not "".
	PrefixCache string
	// Duration and WarmupDuration are --duration and --warmup-duration
	// in seconds, saved when positive; WarmupRequests the requests the
	// warm-up window held, saved with WarmupDuration.
	Duration, WarmupDuration float64
	WarmupRequests           int
	// IgnoreEOS: the requests carried ignore_eos.
	IgnoreEOS bool
	// SamplingParams are the sampling flags given, in vLLM's order.
	SamplingParams *pyjson.Object
	// Goodput holds the --goodput SLOs in ms; empty is saved as null.
	Goodput map[string]float64
	// PercentileMetrics and Percentiles are the run's selection.
	PercentileMetrics []string
	Percentiles       []float64
	// TokenizerMode is --tokenizer-mode; TokenizerSource one of
	// resultkey's Tokenizer* values, "" (saved as null) without a
	// tokenizer.
	TokenizerMode, TokenizerSource string
	// Command is the command line, secrets already redacted.
	Command string
}

// Object is the workload as saved: the keys of resultkey.WorkloadKeys in
// order, the dataset's flags after dataset_path.
func (w *Workload) Object() *pyjson.Object {
	o := pyjson.NewObject()
	o.Set(resultkey.WorkloadDatasetName, w.DatasetName)
	o.Set(resultkey.WorkloadDatasetPath, nullIfEmpty(w.DatasetPath))
	if w.DatasetFlags != nil {
		o.Update(w.DatasetFlags)
	}
	o.Set(resultkey.WorkloadSeed, w.Seed)
	if w.ScheduleSeed != nil {
		o.Set(resultkey.WorkloadScheduleSeed, *w.ScheduleSeed)
	}
	w.setRunShape(o)
	o.Set(resultkey.WorkloadIgnoreEOS, w.IgnoreEOS)
	sampling := pyjson.NewObject()
	if w.SamplingParams != nil {
		sampling = w.SamplingParams.Clone()
	}
	o.Set(resultkey.WorkloadSamplingParams, sampling)
	o.Set(resultkey.WorkloadGoodput, goodputObject(w.Goodput))
	o.Set(resultkey.WorkloadPercentileMetrics, strings.Join(w.PercentileMetrics, ","))
	labels := make([]string, len(w.Percentiles))
	for i, p := range w.Percentiles {
		labels[i] = resultkey.PercentileLabel(p)
	}
	o.Set(resultkey.WorkloadMetricPercentiles, strings.Join(labels, ","))
	o.Set(resultkey.WorkloadTokenizerMode, w.TokenizerMode)
	o.Set(resultkey.WorkloadTokenizerSource, nullIfEmpty(w.TokenizerSource))
	o.Set(resultkey.WorkloadCommand, w.Command)
	return o
}

// setRunShape sets the keys that say how the run was kept apart from
// others and bounded in time, each only when it applies.
func (w *Workload) setRunShape(o *pyjson.Object) {
	if w.PrefixCache != "" {
		o.Set(resultkey.WorkloadPrefixCache, w.PrefixCache)
	}
	if w.Duration > 0 {
		o.Set(resultkey.WorkloadDuration, w.Duration)
	}
	if w.WarmupDuration > 0 {
		o.Set(resultkey.WorkloadWarmupDuration, w.WarmupDuration)
		o.Set(resultkey.WorkloadWarmupRequests, w.WarmupRequests)
	}
}

// goodputObject holds the SLOs in the metric order (ttft, tpot, e2el), as
// floats: nil (null) when there are none.
func goodputObject(slos map[string]float64) any {
	if len(slos) == 0 {
		return nil
	}
	o := pyjson.NewObject()
	for _, m := range resultkey.Metrics() {
		if v, ok := slos[m.Key]; ok {
			o.Set(m.Key, v)
		}
	}
	return o
}
