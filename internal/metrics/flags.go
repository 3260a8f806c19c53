package metrics

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/resultkey"
)

// Defaults of the flags that select what the result block and the result
// file contain (serve.py add_cli_args and main_async).
const (
	// DefaultPercentileMetrics is the --percentile-metrics value vLLM uses
	// for generation backends when the flag is absent or empty.
	DefaultPercentileMetrics = "ttft,tpot,itl"
	// DefaultPoolingPercentileMetrics is vLLM's default for the pooling
	// backends, whose requests have only an end-to-end latency.
	DefaultPoolingPercentileMetrics = "e2el"
	// DefaultMetricPercentiles is the default of --metric-percentiles.
	DefaultMetricPercentiles = "99"
)

// goodputNames are the SLO names check_goodput_args accepts, in the order
// calculate_metrics evaluates them.
var goodputNames = [...]string{resultkey.MetricTTFT, resultkey.MetricTPOT, resultkey.MetricE2EL}

// goodputFormatMessage is the argparse.ArgumentTypeError text of
// parse_goodput (serve.py).
const goodputFormatMessage = "Invalid format found for service level objectives. " +
	`Specify service level objectives for goodput as "KEY:VALUE" ` +
	"pairs, where the key is a metric name, and the value is a " +
	"number in milliseconds."

// ParseGoodput parses the --goodput "KEY:VALUE" items into SLOs in
// milliseconds, reproducing parse_goodput and check_goodput_args
// (serve.py) and their messages:
//
//   - an item that does not split on ":" into exactly two parts, or whose
//     value is not a Python float, fails with "Invalid format found for
//     service level objectives. ...";
//   - then, item by item in first-insertion order (a repeated key keeps
//     its first position and its last value, like a Python dict), a name
//     other than ttft, tpot, e2el fails with "Invalid metric name found,
//     {name}: {val}. The service level objective name should be one of
//     ['ttft', 'tpot', 'e2el']. " (trailing space), and a negative value
//     with "Invalid value found, {name}: {val}. The service level
//     objective value should be non-negative.", {val} being Python's
//     str(float) (e.g. "-1.0").
//
// No items yields an empty map (goodput disabled).
func ParseGoodput(items []string) (map[string]float64, error) {
	var order []string
	slos := make(map[string]float64, len(items))
	for _, item := range items {
		parts := strings.Split(item, ":")
		if len(parts) != 2 {
			return nil, errors.New(goodputFormatMessage)
		}
		v, err := pyfmt.ParseFloat(parts[1])
		if err != nil {
			return nil, errors.New(goodputFormatMessage)
		}
		if _, seen := slos[parts[0]]; !seen {
			order = append(order, parts[0])
		}
		slos[parts[0]] = v
	}
	for _, name := range order {
		if err := CheckSLO(name, slos[name]); err != nil {
			return nil, err
		}
	}
	return slos, nil
}

// CheckSLO checks one goodput SLO as check_goodput_args does, with its
// messages: the name must be ttft, tpot or e2el, the value non-negative.
// NaN, which vLLM takes and then no request can meet (every comparison
// with it is false), is refused too; inf is no bound.
func CheckSLO(name string, v float64) error {
	if !slices.Contains(goodputNames[:], name) {
		return fmt.Errorf("Invalid metric name found, %s: %s. "+
			"The service level objective name should be one of "+
			"['ttft', 'tpot', 'e2el']. ", name, pyfmt.Float(v))
	}
	if math.IsNaN(v) {
		return fmt.Errorf("the %s objective is not a number of milliseconds (got %s:%s)", name, name, pyfmt.Float(v))
	}
	if v < 0 {
		return fmt.Errorf("Invalid value found, %s: %s. "+
			"The service level objective value should be "+
			"non-negative.", name, pyfmt.Float(v))
	}
	return nil
}

// ParsePercentileMetrics splits the --percentile-metrics value as vLLM
// does: `(flag or default).split(",")`. An empty flag selects
// DefaultPercentileMetrics. Names are not trimmed ("ttft, tpot" selects
// "ttft" and " tpot") and unknown names are kept, as in vLLM, where they
// match no metric; ValidatePercentileMetrics refuses them.
func ParsePercentileMetrics(flag string) []string {
	if flag == "" {
		flag = DefaultPercentileMetrics
	}
	return strings.Split(flag, ",")
}

// ValidatePercentileMetrics checks the names of --percentile-metrics
// (ParsePercentileMetrics): each must name a latency metric (ttft, tpot,
// itl, e2el, client_queue_time, e2el_including_client_queue). vLLM keeps a
// name it does not know and reports nothing for it, so a misspelt or
// space-padded name ("ttft, tpot") silently drops a section; here it is an
// error naming the flag and the name. nil (the flag not given) is valid.
func ValidatePercentileMetrics(names []string) error {
	for _, name := range names {
		if _, ok := resultkey.LookupMetric(name); !ok {
			known := make([]string, 0, 6)
			for _, m := range resultkey.Metrics() {
				known = append(known, m.Key)
			}
			return fmt.Errorf("argument --percentile-metrics: unknown metric %s (choose from %s)",
				pyfmt.StrRepr(name), strings.Join(known, ", "))
		}
	}
	return nil
}

// ParseMetricPercentiles parses the --metric-percentiles value as vLLM's
// `[float(p) for p in flag.split(",")]`: each comma-separated item is a
// Python float, so surrounding spaces are tolerated ("25, 50"). Items that
// are not floats, and percentiles outside [0, 100] (or NaN), which
// np.percentile would reject later with "Percentiles must be in the range
// [0, 100]", are reported up front with the flag's name.
func ParseMetricPercentiles(flag string) ([]float64, error) {
	items := strings.Split(flag, ",")
	ps := make([]float64, 0, len(items))
	for _, item := range items {
		p, err := pyfmt.ParseFloat(item)
		if err != nil {
			return nil, fmt.Errorf("invalid --metric-percentiles %q: %w", flag, err)
		}
		ps = append(ps, p)
	}
	if err := ValidatePercentiles(ps); err != nil {
		return nil, fmt.Errorf("invalid --metric-percentiles %q: %w", flag, err)
	}
	return ps, nil
}

// ValidatePercentiles checks that every percentile is in [0, 100] (NaN is
// not), which np.percentile would check only after the run.
func ValidatePercentiles(ps []float64) error {
	for _, p := range ps {
		if !(p >= 0 && p <= 100) {
			return fmt.Errorf("percentiles must be in the range [0, 100], got %s", pyfmt.Float(p))
		}
	}
	return nil
}
