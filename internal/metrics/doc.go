// Package metrics turns the per-request records of a run into the numbers
// that vllm bench serve reports, reproducing vLLM's calculate_metrics
// (vllm/benchmarks/serve.py) and NumPy's statistics bit for bit.
//
// The package has three layers:
//
//   - NumPy-exact statistics: Mean, Std, Median and Percentile reproduce
//     np.mean, np.std (ddof=0), np.median and np.percentile (method
//     "linear") of NumPy 1.24, including its pairwise summation and its
//     _lerp interpolation, so that every printed and saved figure equals
//     vLLM's to the last bit. gonum's stat.Quantile and stat.StdDev are not
//     used on purpose: they implement other definitions.
//   - Flag parsing with vLLM's semantics and messages: ParseGoodput,
//     ParsePercentileMetrics and ParseMetricPercentiles (Python's float
//     texts come from package pyfmt).
//   - Calculate, which reproduces calculate_metrics for generation tasks
//     plus the later upstream additions (exact sweep-line peak concurrency,
//     client queue time, cached tokens, read-timeout warning).
//
// All times inside the package are float64 seconds, as vLLM keeps them;
// statistics are converted to milliseconds by multiplying by 1000 after
// the statistic is taken, exactly as vLLM does (np.percentile(xs, p)*1000),
// because the other order can differ in the last bit.
package metrics
