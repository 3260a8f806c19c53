package resultkey

import (
	"fmt"
	"math"
	"strings"

	"github.com/gobench/gobench/internal/pyfmt"
)

// Metric names: the names --percentile-metrics and --goodput accept and
// the {m} of the statistic keys (mean_{m}_ms, p99_{m}_ms, ...).
const (
	// MetricTTFT is the time to first token.
	MetricTTFT = "ttft"
	// MetricTPOT is the time per output token after the first.
	MetricTPOT = "tpot"
	// MetricITL is the inter-token latency.
	MetricITL = "itl"
	// MetricE2EL is the end-to-end latency of a request.
	MetricE2EL = "e2el"
	// MetricClientQueueTime is the time a request waited for a
	// --max-concurrency slot in the client.
	MetricClientQueueTime = "client_queue_time"
	// MetricE2ELIncludingClientQueue is MetricE2EL plus the client queue
	// time.
	MetricE2ELIncludingClientQueue = "e2el_including_client_queue"
)

// Metric is one latency metric: a section of the printed result block
// (vLLM's process_one_metric) and the statistic keys of the result file.
type Metric struct {
	// Key is the metric name used in result keys and in
	// --percentile-metrics (MetricTTFT, ...).
	Key string
	// Name is the label text of the printed lines ("Mean {Name} (ms):").
	Name string
	// Header is the title centred in the section's dashed header line.
	Header string
	// NeedsTokenizer: the section is reported only when the run counts
	// tokens (not with --skip-tokenizer-init).
	NeedsTokenizer bool
	// ClientQueue: the section is reported whenever the client queue is
	// measured (--max-concurrency set), whether --percentile-metrics
	// selects it or not, and never otherwise.
	ClientQueue bool
}

// metricTable lists the metrics in vLLM's order, the order of the sections
// and of their keys (serve.py@009e6d4a benchmark). It is read-only.
var metricTable = [...]Metric{
	{Key: MetricTTFT, Name: "TTFT", Header: "Time to First Token", NeedsTokenizer: true},
	{Key: MetricTPOT, Name: "TPOT", Header: "Time per Output Token (excl. 1st token)", NeedsTokenizer: true},
	{Key: MetricITL, Name: "ITL", Header: "Inter-token Latency", NeedsTokenizer: true},
	{Key: MetricE2EL, Name: "E2EL", Header: "End-to-end Latency"},
	{Key: MetricClientQueueTime, Name: "Client Queue Time", Header: "Client-side Queueing", ClientQueue: true},
	{Key: MetricE2ELIncludingClientQueue, Name: "E2EL incl. Client Queue",
		Header: "Queue-inclusive End-to-end Latency", ClientQueue: true},
}

// Metrics returns every latency metric, in section order.
func Metrics() []Metric { return append([]Metric(nil), metricTable[:]...) }

// LookupMetric returns the metric named name.
func LookupMetric(name string) (Metric, bool) {
	for _, m := range metricTable {
		if m.Key == name {
			return m, true
		}
	}
	return Metric{}, false
}

// Kind is the kind of a latency statistic.
type Kind int

// The statistics each section reports, in file order.
const (
	// Mean is np.mean (key mean_{m}_ms).
	Mean Kind = iota
	// Median is np.median (median_{m}_ms).
	Median
	// Std is np.std (std_{m}_ms); saved, not printed.
	Std
	// Percentile is np.percentile with NumPy's default "linear" method
	// (p{label}_{m}_ms).
	Percentile
)

// Stat is one statistic of a metric: the mean, the median, the standard
// deviation or percentile P (0..100).
type Stat struct {
	// Kind is Mean, Median, Std or Percentile.
	Kind Kind
	// P is the percentile, for Kind Percentile.
	P float64
}

// statPrefixes are the key prefixes of the kinds other than Percentile.
var statPrefixes = [...]string{Mean: "mean", Median: "median", Std: "std"}

// SectionStats returns the statistics of a section in file order: mean,
// median, std, then each of percentiles.
func SectionStats(percentiles []float64) []Stat {
	stats := []Stat{{Kind: Mean}, {Kind: Median}, {Kind: Std}}
	for _, p := range percentiles {
		stats = append(stats, Stat{Kind: Percentile, P: p})
	}
	return stats
}

// StatKey is the result key of statistic st of metric: "mean_ttft_ms",
// "std_itl_ms", "p99.9_e2el_ms".
func StatKey(metric string, st Stat) string {
	head := "p" + PercentileLabel(st.P)
	if st.Kind != Percentile {
		head = statPrefixes[st.Kind]
	}
	return head + "_" + metric + "_ms"
}

// ParseStatKey splits a statistic key into its metric and statistic, the
// inverse of StatKey; ok is false for any other key (an unknown metric, a
// percentile that is not a Python float in [0, 100]).
func ParseStatKey(key string) (metric string, st Stat, ok bool) {
	for _, m := range metricTable {
		head, found := strings.CutSuffix(key, "_"+m.Key+"_ms")
		if !found {
			continue
		}
		for kind, prefix := range statPrefixes {
			if head == prefix {
				return m.Key, Stat{Kind: Kind(kind)}, true
			}
		}
		if label, isP := strings.CutPrefix(head, "p"); isP {
			p, err := pyfmt.ParseFloat(label)
			if err == nil && p >= 0 && p <= 100 {
				return m.Key, Stat{Kind: Percentile, P: p}, true
			}
		}
	}
	return "", Stat{}, false
}

// PercentileLabel is how vLLM names percentile p in printed labels
// ("P99 TTFT (ms):") and result keys ("p99_ttft_ms"):
// `str(int(p)) if int(p) == p else str(p)`, i.e. "99", "50", "0" for
// integral values and Python float text otherwise ("99.9", "1e-05").
func PercentileLabel(p float64) string {
	if p == math.Trunc(p) && !math.IsInf(p, 0) {
		return fmt.Sprintf("%d", int64(p))
	}
	return pyfmt.Float(p)
}

// PyTorchKeys are the statistic keys vLLM exports as PyTorch benchmark
// metrics, in its order (save_to_pytorch_benchmark_format in
// vllm/benchmarks/serve.py; e2el from the later
// test_serve_result_serialization.py@59faf2a5).
func PyTorchKeys() []string {
	var keys []string
	for _, m := range [...]string{MetricTTFT, MetricTPOT, MetricITL, MetricE2EL} {
		for _, st := range [...]Stat{{Kind: Median}, {Kind: Mean}, {Kind: Std}, {Kind: Percentile, P: 99}} {
			keys = append(keys, StatKey(m, st))
		}
	}
	return keys
}
