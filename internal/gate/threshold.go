// Package gate evaluates performance thresholds on a benchmark result, the
// way k6's thresholds gate a load test: each threshold is an expression
// such as "p99_ttft_ms<500" or "p99_ttft_ms<=baseline*1.05" over any
// numeric key of the result, and a run passes when every threshold holds.
// A run in which every request failed never passes, whatever the
// thresholds say: its latency statistics are zeros, which would satisfy
// any upper bound.
//
// The package knows nothing of files or flags: the values come through
// the Values interface (package resultfile's Run implements it), and the
// command line decides exit statuses.
package gate

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/resultkey"
)

// ErrSyntax marks an expression that is not a threshold; the error names
// the expression and says what is wrong.
var ErrSyntax = errors.New("bad threshold")

// Op is a threshold's comparison.
type Op int

// The comparisons a threshold may use.
const (
	// Less is "<".
	Less Op = iota
	// LessEq is "<=".
	LessEq
	// Greater is ">".
	Greater
	// GreaterEq is ">=".
	GreaterEq
)

// String returns the operator as written in an expression.
func (o Op) String() string {
	return [...]string{"<", "<=", ">", ">="}[o]
}

// holds reports whether "measured o limit" is true; NaN never holds.
func (o Op) holds(measured, limit float64) bool {
	switch o {
	case Less:
		return measured < limit
	case LessEq:
		return measured <= limit
	case Greater:
		return measured > limit
	default:
		return measured >= limit
	}
}

// negated is the operator that holds when o does not (for messages such
// as "61.2 > 55.8").
func (o Op) negated() string {
	return [...]string{">=", ">", "<=", "<"}[o]
}

// Threshold is one parsed expression: KEY OP LIMIT, where LIMIT is a
// number or relative to the same key in a baseline result: "baseline",
// "baseline*F", "baseline+D" or "baseline-D".
type Threshold struct {
	// Expr is the expression as given.
	Expr string
	// Key is the result key the threshold tests.
	Key string
	// Op is the comparison.
	Op Op
	// Relative is true when the limit comes from the baseline's Key.
	Relative bool
	// BaselineOp is how the baseline value becomes the limit: 0 (the
	// baseline itself), '*', '+' or '-' with Value.
	BaselineOp byte
	// Value is the absolute limit, or the factor or offset applied to the
	// baseline.
	Value float64
}

// String returns the threshold in canonical form (no spaces), which Parse
// reads back to the same Threshold.
func (t Threshold) String() string {
	var b strings.Builder
	b.WriteString(t.Key)
	b.WriteString(t.Op.String())
	if t.Relative {
		b.WriteString("baseline")
		if t.BaselineOp != 0 {
			b.WriteByte(t.BaselineOp)
			b.WriteString(strconv.FormatFloat(t.Value, 'g', -1, 64))
		}
		return b.String()
	}
	b.WriteString(strconv.FormatFloat(t.Value, 'g', -1, 64))
	return b.String()
}

// Parse reads a threshold expression:
//
//	KEY OP LIMIT
//	OP    = < | <= | > | >=
//	LIMIT = NUMBER | baseline | baseline*NUMBER | baseline+NUMBER | baseline-NUMBER
//
// KEY is any result key ("p99_ttft_ms", "request_throughput",
// "failed_ratio", "p99.9_itl_ms"); spaces around the parts are allowed.
// NUMBER is a finite decimal number ("500", "1.05", "2e3"). Errors wrap
// ErrSyntax and quote the expression.
func Parse(expr string) (Threshold, error) {
	fail := func(format string, a ...any) (Threshold, error) {
		return Threshold{}, fmt.Errorf("%w %q: %s", ErrSyntax, expr, fmt.Sprintf(format, a...))
	}
	i := strings.IndexAny(expr, "<>=!")
	if i < 0 {
		return fail("no comparison; write KEY<LIMIT, KEY<=LIMIT, KEY>LIMIT or KEY>=LIMIT, e.g. p99_ttft_ms<500")
	}
	t := Threshold{Expr: expr, Key: strings.TrimSpace(expr[:i])}
	op := opPrefix(expr[i:])
	switch op {
	case "<=":
		t.Op = LessEq
	case ">=":
		t.Op = GreaterEq
	case "<":
		t.Op = Less
	case ">":
		t.Op = Greater
	default:
		return fail("%q is not a comparison; use <, <=, > or >=", op)
	}
	rest := expr[i+len(op):]
	if strings.ContainsAny(rest, "<>=!") {
		return fail("more than one comparison; use one of <, <=, > or >=")
	}
	if err := checkKey(t.Key); err != nil {
		return fail("%v", err)
	}
	limit := strings.TrimSpace(rest)
	if limit == "" {
		return fail("no limit after %q", t.Op.String())
	}
	if tail, ok := cutBaseline(limit); ok {
		t.Relative = true
		tail = strings.TrimSpace(tail)
		if tail == "" {
			return t, nil
		}
		switch tail[0] {
		case '*', '+', '-':
			t.BaselineOp = tail[0]
		default:
			return fail("after \"baseline\" expected *NUMBER, +NUMBER or -NUMBER, got %q", tail)
		}
		v, err := parseNumber(strings.TrimSpace(tail[1:]))
		if err != nil {
			return fail("baseline%c%s: %v", t.BaselineOp, strings.TrimSpace(tail[1:]), err)
		}
		t.Value = v
		return t, nil
	}
	v, err := parseNumber(limit)
	if err != nil {
		return fail("limit %q: %v (a number, or baseline, baseline*F, baseline+D, baseline-D)", limit, err)
	}
	t.Value = v
	return t, nil
}

// ParseAll parses every expression, stopping at the first error.
func ParseAll(exprs []string) ([]Threshold, error) {
	ths := make([]Threshold, 0, len(exprs))
	for _, e := range exprs {
		t, err := Parse(e)
		if err != nil {
			return nil, err
		}
		ths = append(ths, t)
	}
	return ths, nil
}

// AnyRelative reports whether a threshold needs a baseline.
func AnyRelative(ths []Threshold) bool {
	for _, t := range ths {
		if t.Relative {
			return true
		}
	}
	return false
}

// opPrefix is the run of comparison characters at the start of s.
func opPrefix(s string) string {
	end := strings.IndexFunc(s, func(r rune) bool { return !strings.ContainsRune("<>=!", r) })
	if end < 0 {
		return s
	}
	return s[:end]
}

// cutBaseline returns what follows the word "baseline" (any case) at the
// start of s.
func cutBaseline(s string) (string, bool) {
	const word = "baseline"
	if len(s) < len(word) || !strings.EqualFold(s[:len(word)], word) {
		return "", false
	}
	return s[len(word):], true
}

// checkKey accepts the keys spelled as result keys are
// (resultkey.WellFormed).
func checkKey(key string) error {
	if key == "" {
		return errors.New("no key before the comparison")
	}
	if !resultkey.WellFormed(key) {
		return fmt.Errorf("%q is not a result key (keys look like p99_ttft_ms, request_throughput, failed_ratio)", key)
	}
	return nil
}

// parseNumber reads a finite decimal number.
func parseNumber(s string) (float64, error) {
	if s == "" {
		return 0, errors.New("missing number")
	}
	if c := s[0]; !(c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+') {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("%q is not a finite number", s)
	}
	return v, nil
}
