// Package resultkey owns the vocabulary of the result file (the JSON of
// vllm bench serve's --save-result, which gobench writes and reads back):
// the spelling of every key, their order, when each is present, which
// describe how the run was set up and which measure it, which direction of
// a measurement is better, and how a latency statistic key such as
// "p99.9_ttft_ms" names a metric and a statistic. The writer
// (report.ResultObject) and the readers (compare, analyze, gate,
// resultfile, the serve command line's threshold check) ask this package
// instead of spelling or guessing keys.
//
// # The schema
//
// The schema (keys.go) lists the keys in file order with when each is
// present: always, with --ramp-up-strategy, with --save-detailed, or only
// when the server reports what it holds (speculative-decoding counters,
// cached tokens, vLLM's per-request server metrics). The latency
// statistic keys take one place in it: for each section metric of the
// configuration (Selection.Sections, in the order of the metric table of
// metric.go), mean_{m}_ms, median_{m}_ms, std_{m}_ms, then p{label}_{m}_ms
// per --metric-percentiles value (PercentileLabel). Metadata keys
// (--metadata KEY=VALUE) are the user's and not in the schema; the writer
// puts them after num_prompts. Selection.Keys lists the keys a result of a
// configuration has; failed_ratio is derived by the readers, never
// written.
//
// # Adding a result key
//
// To add a result key, touch:
//
//   - internal/resultkey/keys.go: a constant for its name and a row of
//     schema at its place in the file (when it is present, whether it is a
//     setting, which direction is better);
//   - internal/report/result.go: write it in ResultObject at the same
//     place, with the constant;
//   - internal/report/doc.go: describe it in the key list.
//
// TestSchemaMatchesWriter (internal/report) fails until the writer and the
// schema agree for a grid of configurations, and TestDocListsEveryKey
// until doc.go names the key. Readers need nothing more: compare, gate and
// analyze handle any numeric key, and a reader that needs the key's value
// uses the constant.
//
// A fact about the workload (what made the load) is a key of the
// gobench_workload object instead: its constant in workload.go, its value
// in report.Workload (internal/report/workload.go) filled by
// internal/run/workload.go, and its line in internal/report/doc.go, which
// TestDocListsEveryKey checks too.
//
// A new latency metric (one more percentile section) is a row of the
// metric table (metric.go); metrics.Result must hold its statistics
// (calculate.go: Calculate and Result.stats), and compare.RequestValues
// must derive its per-request values for the significance test.
package resultkey
