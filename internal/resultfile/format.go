package resultfile

import (
	"math"
	"strconv"

	"github.com/gobench/gobench/internal/pyfmt"
)

// FormatValue prints a result value for a human: whole numbers as
// integers, values of 1 and more with two decimals (as vLLM's result block
// prints them), smaller ones with four significant digits so that a
// failure ratio of 0.0025 does not print as 0.00. Non-finite values print
// as Python does (inf, -inf, nan). Files and JSON output keep the exact
// value; this is only for tables and messages.
func FormatValue(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 { // false for NaN and ±Inf
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return FormatFloat(v)
}

// FormatFloat is FormatValue for a value that is a float even when whole
// (a duration of 64.0 s prints as 64.00, as vLLM's block prints it): two
// decimals from 1 on, four significant digits below (0 as 0), six from
// 1e15 on (1e+308).
func FormatFloat(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return pyfmt.Float(v) // Python's inf, -inf, nan
	case math.Abs(v) >= 1e15:
		return strconv.FormatFloat(v, 'g', 6, 64)
	case math.Abs(v) >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
