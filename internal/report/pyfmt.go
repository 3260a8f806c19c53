package report

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// format2f is Python's format(v, ".2f"): fixed notation with two decimals,
// rounded half-to-even on the exact binary value (2.675 -> "2.67", 0.125 ->
// "0.12"). strconv's 'f' with an explicit precision rounds the exact value
// the same way. Python writes "inf", "-inf" and "nan" (also for a NaN with
// the sign bit set), where Go would write "+Inf" and "NaN".
func format2f(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// ljust is Python's "{:<width}": s followed by spaces up to width code
// points; a longer s is kept whole.
func ljust(s string, width int) string {
	n := utf8.RuneCountInString(s)
	if n >= width {
		return s
	}
	return s + strings.Repeat(" ", width-n)
}

// center is Python's "{s:{c}^{n}}": s centred in width code points of
// fill, the odd fill character going to the right (left = pad // 2).
func center(s string, fill string, width int) string {
	n := utf8.RuneCountInString(s)
	if n >= width {
		return s
	}
	left := (width - n) / 2
	return strings.Repeat(fill, left) + s + strings.Repeat(fill, width-n-left)
}
