package diagnose

import (
	"math"
	"strconv"
	"strings"

	sm "github.com/gobench/gobench/internal/servermetrics"
)

// The texts of numbers in findings and tables. An unknown number (NaN)
// reads "n/a" everywhere.

const unknown = "n/a"

// secs is seconds with millisecond precision, as the procedure's own
// worked example prints them.
func secs(v float64) string {
	if math.IsNaN(v) {
		return unknown
	}
	return strconv.FormatFloat(v, 'f', 3, 64) + " s"
}

// pct is a share as a percentage with one decimal.
func pct(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return unknown
	}
	return strconv.FormatFloat(100*v, 'f', 1, 64) + " %"
}

// count is a count: an integer when it is one, else two decimals.
func count(v float64) string {
	if math.IsNaN(v) {
		return unknown
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// ratio is a small ratio or rate with three significant digits.
func ratio(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return unknown
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// rate is a rate per second: whole above 100, else three significant
// digits.
func rate(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return unknown
	}
	if math.Abs(v) >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// num3 is a number with up to three decimals, trailing zeros dropped.
func num3(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return unknown
	}
	s := strconv.FormatFloat(v, 'f', 3, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// value is a quantile in its unit's precision: seconds to the
// millisecond, token counts to a tenth.
func value(v float64, unit string) string {
	switch {
	case math.IsNaN(v):
		return unknown
	case unit == "s":
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// bound is a bucket bound without trailing zeros ("2.5", "0.05", "+Inf").
func bound(v float64) string {
	if math.IsInf(v, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// bucketText is the bucket an estimate lies in, e.g. "2.5-5 s", "> 80 s"
// for the +Inf bucket, "<= 0 s" for a lowest bucket with a bound <= 0.
func bucketText(e sm.Estimate, unit string) string {
	suffix := ""
	if unit != "" {
		suffix = " " + unit
	}
	switch {
	case !e.OK():
		return unknown
	case e.InInf():
		return "> " + bound(e.Lower) + suffix
	case math.IsInf(e.Lower, -1):
		return "<= " + bound(e.Upper) + suffix
	}
	return bound(e.Lower) + "-" + bound(e.Upper) + suffix
}

// shapeBucket is the bucket a request shape's quantile lies in, as an
// interval: "(100, 200]", "<= 1", "> 8192".
func shapeBucket(e sm.Estimate) string {
	switch {
	case !e.OK():
		return unknown
	case e.InInf():
		return "> " + bound(e.Lower)
	case math.IsInf(e.Lower, -1):
		return "<= " + bound(e.Upper)
	}
	return "(" + bound(e.Lower) + ", " + bound(e.Upper) + "]"
}

// pctName is "p50", "p90", "p95" or "p99" for a Row.P index.
func pctName(i int) string { return "p" + strconv.Itoa(int(Percentiles()[i])) }

// join lists words as "a, b and c".
func join(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
