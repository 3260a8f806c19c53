// Package gate evaluates performance thresholds on a benchmark result, the
// way k6's thresholds gate a load test: each threshold is an expression
// such as "p99_ttft_ms<500", "p99_ttft_ms<=baseline*1.05" or
// "server_view.verdict==healthy" over any numeric key of the result, a
// number or a string inside one of its objects (a dotted path), and a run
// passes when every threshold holds. A run in which every request failed
// never passes, whatever the thresholds say: its latency statistics are
// zeros, which would satisfy any upper bound.
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
	// Equal is "==": the only comparisons of text are Equal and NotEqual.
	Equal
	// NotEqual is "!=".
	NotEqual
)

// String returns the operator as written in an expression.
func (o Op) String() string {
	return [...]string{"<", "<=", ">", ">=", "==", "!="}[o]
}

// equality reports whether o is == or !=, the comparisons text allows.
func (o Op) equality() bool { return o == Equal || o == NotEqual }

// holds reports whether "measured o limit" is true; NaN never holds, not
// even as "NaN != 1".
func (o Op) holds(measured, limit float64) bool {
	switch o {
	case Less:
		return measured < limit
	case LessEq:
		return measured <= limit
	case Greater:
		return measured > limit
	case GreaterEq:
		return measured >= limit
	case Equal:
		return measured == limit
	}
	return measured != limit && !math.IsNaN(measured) && !math.IsNaN(limit)
}

// holdsText reports whether "measured o limit" is true for text (o is
// Equal or NotEqual).
func (o Op) holdsText(measured, limit string) bool {
	return (measured == limit) == (o == Equal)
}

// negated is the operator that holds when o does not (for messages such
// as "61.2 > 55.8").
func (o Op) negated() string {
	return [...]string{">=", ">", "<=", "<", "!=", "=="}[o]
}

// parseOp reads an operator as written.
func parseOp(s string) (Op, bool) {
	for o := Less; o <= NotEqual; o++ {
		if o.String() == s {
			return o, true
		}
	}
	return 0, false
}

// Threshold is one parsed expression: KEY OP LIMIT, where LIMIT is a
// number, text (with == and != only), or relative to the same key in a
// baseline result: "baseline", "baseline*F", "baseline+D" or
// "baseline-D".
type Threshold struct {
	// Expr is the expression as given.
	Expr string
	// Key is the result key the threshold tests, or a dotted path to a
	// value inside one of its objects ("server_view.ratios.preemptions").
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
	// IsText is true when the limit is the text Text ("healthy"), which
	// the value must equal (Equal) or differ from (NotEqual).
	IsText bool
	// Text is the limit of a comparison with text.
	Text string
}

// String returns the threshold in canonical form (no spaces, text in
// double quotes), which Parse reads back to the same Threshold.
func (t Threshold) String() string {
	var b strings.Builder
	b.WriteString(t.Key)
	b.WriteString(t.Op.String())
	switch {
	case t.IsText:
		b.WriteString(`"` + t.Text + `"`)
	case t.Relative:
		b.WriteString("baseline")
		if t.BaselineOp != 0 {
			b.WriteByte(t.BaselineOp)
			b.WriteString(strconv.FormatFloat(t.Value, 'g', -1, 64))
		}
	default:
		b.WriteString(strconv.FormatFloat(t.Value, 'g', -1, 64))
	}
	return b.String()
}

// Parse reads a threshold expression:
//
//	KEY OP LIMIT
//	OP    = < | <= | > | >= | == | !=
//	LIMIT = NUMBER | baseline | baseline*NUMBER | baseline+NUMBER | baseline-NUMBER
//	      | WORD | "TEXT"          (text: with == and != only)
//
// KEY is any result key ("p99_ttft_ms", "request_throughput",
// "failed_ratio", "p99.9_itl_ms") or a dotted path into an object of the
// result ("server_view.verdict",
// "server_view.quantiles.vllm:time_to_first_token_seconds.p99"); spaces
// around the parts are allowed. NUMBER is a finite decimal number ("500",
// "1.05", "2e3"). WORD starts with a letter and holds letters, digits and
// _ - . / : ("healthy", "queue/seq-limit"); other text goes in double
// quotes, which it cannot contain. Errors wrap ErrSyntax and quote the
// expression.
func Parse(expr string) (Threshold, error) {
	fail := func(format string, a ...any) (Threshold, error) {
		return Threshold{}, fmt.Errorf("%w %q: %s", ErrSyntax, expr, fmt.Sprintf(format, a...))
	}
	i := strings.IndexAny(expr, "<>=!")
	if i < 0 {
		return fail("no comparison; write KEY OP LIMIT with OP one of < <= > >= == !=, e.g. p99_ttft_ms<500")
	}
	t := Threshold{Expr: expr, Key: strings.TrimSpace(expr[:i])}
	op := opPrefix(expr[i:])
	var ok bool
	if t.Op, ok = parseOp(op); !ok {
		return fail("%q is not a comparison; use <, <=, >, >=, == or !=", op)
	}
	rest := expr[i+len(op):]
	limit := strings.TrimSpace(rest)
	if !strings.HasPrefix(limit, `"`) && strings.ContainsAny(rest, "<>=!") {
		return fail("more than one comparison; use one of <, <=, >, >=, == or !=")
	}
	if err := checkKey(t.Key); err != nil {
		return fail("%v", err)
	}
	if limit == "" {
		return fail("no limit after %q", t.Op.String())
	}
	if err := t.parseLimit(limit); err != nil {
		return fail("%v", err)
	}
	return t, nil
}

// parseLimit reads LIMIT into t.
func (t *Threshold) parseLimit(limit string) error {
	if strings.HasPrefix(limit, `"`) {
		return t.parseQuoted(limit)
	}
	if tail, ok := cutBaseline(limit); ok {
		t.Relative = true
		tail = strings.TrimSpace(tail)
		if tail == "" {
			return nil
		}
		switch tail[0] {
		case '*', '+', '-':
			t.BaselineOp = tail[0]
		default:
			return fmt.Errorf("after \"baseline\" expected *NUMBER, +NUMBER or -NUMBER, got %q", tail)
		}
		v, err := parseNumber(strings.TrimSpace(tail[1:]))
		if err != nil {
			return fmt.Errorf("baseline%c%s: %w", t.BaselineOp, strings.TrimSpace(tail[1:]), err)
		}
		t.Value = v
		return nil
	}
	v, err := parseNumber(limit)
	switch {
	case err == nil:
		t.Value = v
		return nil
	case t.Op.equality() && isWord(limit):
		t.IsText, t.Text = true, limit
		return nil
	case t.Op.equality():
		return fmt.Errorf("limit %q: %w (a number, a word such as healthy, \"quoted text\", or baseline, baseline*F, baseline+D, baseline-D)", limit, err)
	}
	return fmt.Errorf("limit %q: %w (a number, or baseline, baseline*F, baseline+D, baseline-D)", limit, err)
}

// parseQuoted reads a limit in double quotes: text, for == and != only.
func (t *Threshold) parseQuoted(limit string) error {
	end := strings.IndexByte(limit[1:], '"')
	switch {
	case end < 0:
		return fmt.Errorf("no closing quote in %s", limit)
	case end+2 != len(limit):
		return fmt.Errorf("text after the closing quote of %s (a quoted limit cannot hold a double quote)", limit[:end+2])
	case !t.Op.equality():
		return fmt.Errorf("text (%s) compares only with == or !=", limit)
	}
	t.IsText, t.Text = true, limit[1:end+1]
	return nil
}

// isWord reports whether s is text that needs no quotes: a letter, then
// letters, digits and _ - . / : (a verdict such as queue/seq-limit).
func isWord(s string) bool {
	for i, r := range s {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || !(r >= '0' && r <= '9' || strings.ContainsRune("_-./:", r))) {
			return false
		}
	}
	return s != ""
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
// (resultkey.WellFormed) and dotted paths into the result's objects
// (isPath).
func checkKey(key string) error {
	if key == "" {
		return errors.New("no key before the comparison")
	}
	if !resultkey.WellFormed(key) && !isPath(key) {
		return fmt.Errorf("%q is not a result key (keys look like p99_ttft_ms, request_throughput, failed_ratio, or a path such as server_view.ratios.preemptions)", key)
	}
	return nil
}

// isPath reports whether key is a dotted path of names: the first spelled
// as a result key, the others of letters, digits and _ - + : (vLLM's
// metric names hold ':', never '.').
func isPath(key string) bool {
	parts := strings.Split(key, ".")
	if len(parts) < 2 || !resultkey.WellFormed(parts[0]) {
		return false
	}
	for _, p := range parts[1:] {
		bad := strings.IndexFunc(p, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-+:", r))
		})
		if p == "" || bad >= 0 {
			return false
		}
	}
	return true
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
