package run

import (
	"slices"
	"strings"

	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/resultkey"
	"github.com/gobench/gobench/internal/tokenizer"
	"github.com/gobench/gobench/internal/tokenizer/hub"
)

// workload is the run's gobench_workload (report.Workload): what made the
// load, which vLLM's result keys do not say.
func (p *Plan) workload() *pyjson.Object {
	o := &p.Options
	w := &report.Workload{
		DatasetName: o.Dataset.Name, DatasetPath: o.Dataset.Path, DatasetFlags: datasetFlags(p.Dataset, o.Dataset),
		Seed: o.Seed, ScheduleSeed: o.ScheduleSeed, PrefixCache: o.PrefixCache,
		Duration: o.Duration.Seconds(), WarmupDuration: o.WarmupDuration.Seconds(), WarmupRequests: p.warmupRequests,
		IgnoreEOS: p.ignoreEOS(), SamplingParams: &o.SamplingParams, Goodput: o.Goodput,
		PercentileMetrics: o.PercentileMetricsOrDefault(), Percentiles: o.Percentiles,
		TokenizerMode: o.TokenizerMode, TokenizerSource: tokenizerOrigin(p.Tokenizer), Command: o.CommandLine,
	}
	return w.Object()
}

// datasetFlags are the values of the dataset's own flags (spec.Flags)
// under their argument names, in vLLM's flag order (dataset.Flags).
func datasetFlags(spec *dataset.Spec, d dataset.Options) *pyjson.Object {
	o := pyjson.NewObject()
	for _, f := range dataset.Flags() {
		if f.Pending() || spec == nil || !slices.Contains(spec.Flags, f.Name) {
			continue
		}
		if v, ok := flagValue(f.Field(&d)); ok {
			o.Set(strings.ReplaceAll(f.Name, "-", "_"), v)
		}
	}
	return o
}

// flagValue is the value a dataset flag's field holds, as vLLM's
// vars(args) would hold it: None for an unset optional value, a range
// ratio as one number or {"input", "output"}.
func flagValue(field any) (any, bool) {
	switch v := field.(type) {
	case *int:
		return *v, true
	case *float64:
		return *v, true
	case *string:
		return *v, true
	case *bool:
		return *v, true
	case **int:
		if *v == nil {
			return nil, true
		}
		return **v, true
	case *dataset.RangeRatio:
		if v.Input == v.Output {
			return v.Input, true
		}
		o := pyjson.NewObject()
		o.Set("input", v.Input)
		o.Set("output", v.Output)
		return o, true
	}
	return nil, false
}

// tokenizerOrigin says where the run's tokenizer came from.
func tokenizerOrigin(tok tokenizer.Tokenizer) string {
	switch {
	case tok == nil:
		return ""
	case tok.Name() == tokenizer.BuiltinName:
		return resultkey.TokenizerBuiltin
	}
	if _, ok := tok.(*hub.ServerTokenizer); ok {
		return resultkey.TokenizerServer
	}
	return resultkey.TokenizerHuggingFace
}
