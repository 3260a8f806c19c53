package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gobench/gobench/internal/atomicfile"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultkey"
)

// PyTorchPath is where the PyTorch OSS benchmark records of a result file
// go: the result's name with ".json" replaced by ".pytorch.json".
func PyTorchPath(resultPath string) string {
	return strings.TrimSuffix(resultPath, filepath.Ext(resultPath)) + ".pytorch.json"
}

// pytorchIgnored are the per-request lists left out of extra_info.
var pytorchIgnored = map[string]bool{
	resultkey.TTFTs: true, resultkey.ITLs: true, resultkey.GeneratedTexts: true, resultkey.Errors: true,
	resultkey.Latencies: true, resultkey.QueueTimes: true,
}

// PyTorchRecords converts a result to the PyTorch OSS benchmark database
// format, one record per metric, as vLLM does when
// SAVE_TO_PYTORCH_BENCHMARK_FORMAT is set (vllm/benchmarks/lib/utils.py
// convert_to_pytorch_benchmark_format). args is the run's argument
// namespace (vars(args)), model the --model flag ("" is null).
func PyTorchRecords(result, args *pyjson.Object, model string) []*pyjson.Object {
	metrics := pyjson.NewObject()
	for _, k := range resultkey.PyTorchKeys() {
		if v, ok := result.Get(k); ok {
			metrics.Set(k, []any{v})
		}
	}
	extra := pyjson.NewObject()
	for _, k := range result.Keys() {
		if _, isMetric := metrics.Get(k); isMetric || pytorchIgnored[k] {
			continue
		}
		v, _ := result.Get(k)
		extra.Set(k, v)
	}
	mode := extractField(args, extra, "compilation_config.mode")
	useCompile := !(mode == "0" || strings.Contains(stringArg(args, "output_json"), "eager") ||
		strings.Contains(stringArg(args, "result_filename"), "eager"))
	var records []*pyjson.Object
	for _, name := range metrics.Keys() {
		values, _ := metrics.Get(name)
		benchInfo := pyjson.NewObject()
		a := args
		if tp, ok := extra.Get("tensor_parallel_size"); ok {
			if v, has := args.Get("tensor_parallel_size"); !has || v == nil {
				a = args.Clone()
				a.Set("tensor_parallel_size", tp)
			}
		}
		benchInfo.Set("args", a)
		benchInfo.Set("compilation_config.mode", mode)
		benchInfo.Set("optimization_level", extractField(args, extra, "optimization_level"))
		benchInfo.Set("use_compile", useCompile)
		bench := pyjson.NewObject()
		bench.Set("name", "vLLM benchmark")
		bench.Set("extra_info", benchInfo)
		m := pyjson.NewObject()
		m.Set("name", nullIfEmpty(model))
		metric := pyjson.NewObject()
		metric.Set("name", name)
		metric.Set("benchmark_values", values)
		metric.Set("extra_info", extra)
		rec := pyjson.NewObject()
		rec.Set("benchmark", bench)
		rec.Set("model", m)
		rec.Set("metric", metric)
		records = append(records, rec)
	}
	return records
}

// SavePyTorch writes records at path, in p's directory, as one JSON line,
// replacing the previous file atomically (atomicfile.Pending.Replace).
func SavePyTorch(p *atomicfile.Pending, path string, records []*pyjson.Object) error {
	list := make([]any, len(records))
	for i, r := range records {
		list[i] = r
	}
	b, err := pyjson.AppendPython(nil, list)
	if err != nil {
		p.Abort()
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return p.Replace(path, b)
}

// extractField is vLLM's extract_field: the value from extra_info (e.g.
// --metadata compilation_config.mode=3), else "" (gobench's namespace has
// no compilation config).
func extractField(args, extra *pyjson.Object, field string) any {
	if v, ok := extra.Get(field); ok {
		return v
	}
	if v, ok := args.Get(field); ok && v != nil {
		return v
	}
	return ""
}

func stringArg(args *pyjson.Object, key string) string {
	v, _ := args.Get(key)
	s, _ := v.(string)
	return s
}
