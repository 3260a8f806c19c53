package metrics

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Expected messages below were produced by running vLLM's parse_goodput and
// check_goodput_args (serve.py) under CPython 3.11.
const (
	msgGoodputFormat = "Invalid format found for service level objectives. " +
		`Specify service level objectives for goodput as "KEY:VALUE" pairs, ` +
		"where the key is a metric name, and the value is a number in milliseconds."
)

func TestParseGoodput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		items   []string
		want    map[string]float64
		wantErr string
	}{
		// the seed's SLOs
		{name: "ttft and tpot", items: []string{"ttft:500", "tpot:50"}, want: map[string]float64{"ttft": 500, "tpot": 50}},
		// no flag: goodput disabled
		{name: "none", items: nil, want: map[string]float64{}},
		// float() tolerates surrounding spaces
		{name: "spaces", items: []string{"ttft: 100 "}, want: map[string]float64{"ttft": 100}},
		// a repeated key keeps the last value, so the earlier negative is never checked
		{name: "duplicate", items: []string{"ttft:-1", "ttft:5"}, want: map[string]float64{"ttft": 5}},
		// -0 is not < 0
		{name: "negative zero", items: []string{"ttft:-0"}, want: map[string]float64{"ttft": 0}},
		// unknown name, value printed as Python float (note the trailing space)
		{name: "unknown name", items: []string{"foo:1"},
			wantErr: "Invalid metric name found, foo: 1.0. The service level objective name should be one of ['ttft', 'tpot', 'e2el']. "},
		// names are case-sensitive
		{name: "upper case", items: []string{"TTFT:1"},
			wantErr: "Invalid metric name found, TTFT: 1.0. The service level objective name should be one of ['ttft', 'tpot', 'e2el']. "},
		// the name is checked before the value
		{name: "unknown and negative", items: []string{"foo:-1"},
			wantErr: "Invalid metric name found, foo: -1.0. The service level objective name should be one of ['ttft', 'tpot', 'e2el']. "},
		// negative value
		{name: "negative", items: []string{"ttft:-1"},
			wantErr: "Invalid value found, ttft: -1.0. The service level objective value should be non-negative."},
		// items are validated in order: the negative tpot comes first
		{name: "order", items: []string{"tpot:-1", "foo:1"},
			wantErr: "Invalid value found, tpot: -1.0. The service level objective value should be non-negative."},
		// scientific value text in the message
		{name: "tiny negative", items: []string{"e2el:-1e-5"},
			wantErr: "Invalid value found, e2el: -1e-05. The service level objective value should be non-negative."},
		// missing value
		{name: "no colon", items: []string{"ttft"}, wantErr: msgGoodputFormat},
		// too many parts
		{name: "two colons", items: []string{"ttft:1:2"}, wantErr: msgGoodputFormat},
		// value not a float
		{name: "not a number", items: []string{"ttft:abc"}, wantErr: msgGoodputFormat},
		// a format error anywhere wins over name errors earlier in the list
		{name: "format after name", items: []string{"foo:1", "ttft"}, wantErr: msgGoodputFormat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseGoodput(tt.items)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParsePercentileMetrics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, flag string
		want       []string
	}{
		// absent or empty flag: vLLM's generation default
		{"default", "", []string{"ttft", "tpot", "itl"}},
		// every name
		{"all", "ttft,tpot,itl,e2el,client_queue_time,e2el_including_client_queue",
			[]string{"ttft", "tpot", "itl", "e2el", "client_queue_time", "e2el_including_client_queue"}},
		// no trimming: " tpot" is kept and will match nothing (vLLM's behaviour)
		{"space", "ttft, tpot", []string{"ttft", " tpot"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ParsePercentileMetrics(tt.flag)); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestParseMetricPercentiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, flag string
		want       []float64
		wantErr    string
	}{
		// vLLM's default
		{name: "default", flag: "99", want: []float64{99}},
		// float() tolerates spaces around items
		{name: "spaces", flag: "25, 50 ,75", want: []float64{25, 50, 75}},
		// fractional and boundary percentiles
		{name: "bounds", flag: "0,99.9,100", want: []float64{0, 99.9, 100}},
		// duplicates are kept (printed twice, like vLLM)
		{name: "duplicates", flag: "99,99", want: []float64{99, 99}},
		// not a float
		{name: "word", flag: "50,high",
			wantErr: `invalid --metric-percentiles "50,high": could not convert string to float: 'high'`},
		// empty item
		{name: "empty", flag: "",
			wantErr: `invalid --metric-percentiles "": could not convert string to float: ''`},
		// above 100: np.percentile would raise
		{name: "above", flag: "101",
			wantErr: `invalid --metric-percentiles "101": percentiles must be in the range [0, 100], got 101.0`},
		// below 0
		{name: "below", flag: "-1",
			wantErr: `invalid --metric-percentiles "-1": percentiles must be in the range [0, 100], got -1.0`},
		// NaN is outside the range too
		{name: "nan", flag: "nan",
			wantErr: `invalid --metric-percentiles "nan": percentiles must be in the range [0, 100], got nan`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseMetricPercentiles(tt.flag)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidatePercentileMetrics: names vLLM would silently ignore are
// refused, naming the flag; the default (nil) and every metric pass.
func TestValidatePercentileMetrics(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"", "ttft,tpot,itl,e2el,client_queue_time,e2el_including_client_queue", "e2el"} {
		if err := ValidatePercentileMetrics(ParsePercentileMetrics(ok)); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	if err := ValidatePercentileMetrics(nil); err != nil {
		t.Errorf("nil: %v", err)
	}
	for flag, want := range map[string]string{
		"foo":        "argument --percentile-metrics: unknown metric 'foo' (choose from ttft, tpot, itl, e2el, client_queue_time, e2el_including_client_queue)",
		"ttft, tpot": "unknown metric ' tpot'",
		"ttft,":      "unknown metric ''",
		"TTFT":       "unknown metric 'TTFT'",
	} {
		if err := ValidatePercentileMetrics(ParsePercentileMetrics(flag)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", flag, err, want)
		}
	}
}

// TestGoodputNaN: an SLO of NaN, which no request meets, is refused; inf
// (no bound) is kept.
func TestGoodputNaN(t *testing.T) {
	t.Parallel()
	if _, err := ParseGoodput([]string{"ttft:nan"}); err == nil || err.Error() != "the ttft objective is not a number of milliseconds (got ttft:nan)" {
		t.Errorf("ttft:nan: %v", err)
	}
	if got, err := ParseGoodput([]string{"e2el:inf"}); err != nil || !math.IsInf(got["e2el"], 1) {
		t.Errorf("e2el:inf: %v, %v", got, err)
	}
}
