// Package pyfmt reproduces Python's text forms of numbers and strings:
// str(float), float(str), int(str), repr(str) and the repr of the values
// decoded JSON holds (Repr). vLLM prints floats into messages
// ("Invalid value found, ttft: -1.0"), result keys ("p99.9_ttft_ms"), file
// names ("10.0qps") and result files, and gobench reproduces them verbatim.
// No Go library does: strconv's shortest 'g' form switches to exponents at
// other thresholds and never adds ".0".
package pyfmt

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Float returns Python's str(f) (== repr(f) since Python 3.2), the
// text vLLM puts in messages ("Invalid value found, ttft: -1.0"), in result
// keys ("p99.9_ttft_ms"), in file names ("10.0qps") and, through json.dump,
// in result files.
//
// Python (float_repr_style "short", Python/pystrtod.c) writes the shortest
// digit string that round-trips — the same digits as Go's
// strconv.FormatFloat(f, 'e', -1, 64) — and chooses the notation from the
// decimal exponent e of d.ddd×10^e: fixed notation with at least one digit
// after the point (".0" added to integral values) when -4 <= e < 16,
// otherwise scientific notation with the mantissa's point dropped when it
// has a single digit and a signed exponent of at least two digits
// ("1e-05", "1e+16", "1.5e+16"). Infinities and NaN are "inf", "-inf" and
// "nan"; negative zero is "-0.0".
func Float(f float64) string {
	return string(AppendFloat(nil, f))
}

// AppendFloat appends Float(f) to dst.
func AppendFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	neg := e[0] == '-'
	if neg {
		e = e[1:]
	}
	// e is "d[.ddd]e±XX": split digits and exponent.
	ePos := strings.IndexByte(string(e), 'e')
	mant, expText := e[:ePos], e[ePos+1:]
	exp, _ := strconv.Atoi(string(expText))
	digits := make([]byte, 0, len(mant))
	for _, c := range mant {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	if neg {
		dst = append(dst, '-')
	}
	if exp < -4 || exp >= 16 {
		dst = append(dst, digits[0])
		if len(digits) > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if exp < 0 {
			dst = append(dst, '-')
			exp = -exp
		} else {
			dst = append(dst, '+')
		}
		if exp < 10 {
			dst = append(dst, '0')
		}
		return strconv.AppendInt(dst, int64(exp), 10)
	}
	// Fixed notation: the decimal point goes after exp+1 digits.
	point := exp + 1
	switch {
	case point <= 0:
		dst = append(dst, '0', '.')
		for range -point {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	case point >= len(digits):
		dst = append(dst, digits...)
		for range point - len(digits) {
			dst = append(dst, '0')
		}
		dst = append(dst, '.', '0')
	default:
		dst = append(dst, digits[:point]...)
		dst = append(dst, '.')
		dst = append(dst, digits[point:]...)
	}
	return dst
}

// ParseInt parses s as Python's int(s) does for base 10: surrounding
// whitespace, one sign, and single underscores between digits are allowed
// ("1_000"). The error is strconv's, for the caller to word.
func ParseInt(s string) (int, error) {
	t := strings.TrimFunc(s, unicode.IsSpace)
	body := strings.TrimLeft(t, "+-")
	if len(t)-len(body) > 1 || body == "" || body[0] == '_' || body[len(body)-1] == '_' || strings.Contains(body, "__") {
		return 0, strconv.ErrSyntax
	}
	return strconv.Atoi(strings.ReplaceAll(t, "_", ""))
}

// ErrFloat is returned (wrapped) by ParseFloat; callers add vLLM's
// message for the flag concerned.
var ErrFloat = errors.New("could not convert string to float")

// ParseFloat parses s as Python's float(s) does (Objects/floatobject.c,
// Python/pystrtod.c): surrounding whitespace is ignored; an optional sign
// precedes either "inf", "infinity" or "nan" in any case, or a decimal
// number with optional fraction and exponent in which single underscores
// may separate digits ("1_000.5"). Hexadecimal, "0x…", and Go-only forms
// are rejected. Overflow yields ±Inf as in Python, not an error. The error
// message is Python's: could not convert string to float: 's'.
func ParseFloat(s string) (float64, error) {
	t := trimPySpace(s)
	body := t
	if body != "" && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		if t[0] == '-' {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	case "nan":
		return math.NaN(), nil
	}
	clean, ok := pyDecimal(body)
	if !ok {
		return 0, pyFloatError(s)
	}
	if t[0] == '-' {
		clean = "-" + clean
	}
	f, err := strconv.ParseFloat(clean, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, pyFloatError(s)
	}
	return f, nil
}

func pyFloatError(s string) error {
	return &pyFloatErr{s: s}
}

type pyFloatErr struct{ s string }

func (e *pyFloatErr) Error() string {
	return ErrFloat.Error() + ": " + StrRepr(e.s)
}

func (e *pyFloatErr) Unwrap() error { return ErrFloat }

// pyDecimal validates Python's decimal float grammar
//
//	digitpart ["." [digitpart]] [exponent] | "." digitpart [exponent]
//	digitpart = digit (["_"] digit)*,  exponent = ("e"|"E") ["+"|"-"] digitpart
//
// and returns the text without underscores for strconv.ParseFloat.
func pyDecimal(s string) (string, bool) {
	var b strings.Builder
	i := 0
	digitpart := func() bool {
		start := i
		for i < len(s) {
			c := s[i]
			switch {
			case c >= '0' && c <= '9':
				b.WriteByte(c)
				i++
			case c == '_' && i > start && i+1 < len(s) && s[i-1] != '_' && s[i+1] >= '0' && s[i+1] <= '9':
				i++
			default:
				return i > start
			}
		}
		return i > start
	}
	intPart := digitpart()
	fracPart := false
	if i < len(s) && s[i] == '.' {
		b.WriteByte('.')
		i++
		fracPart = digitpart()
	}
	if !intPart && !fracPart {
		return "", false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		b.WriteByte('e')
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			b.WriteByte(s[i])
			i++
		}
		if !digitpart() {
			return "", false
		}
	}
	return b.String(), i == len(s)
}

// isPySpace reports whether Python's str.isspace() holds for r (the
// characters float() and str.strip() remove): Unicode White_Space plus the
// ASCII separators U+001C…U+001F.
func isPySpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0,
		0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// trimPySpace is Python's str.strip() with no argument.
func trimPySpace(s string) string {
	return strings.TrimFunc(s, isPySpace)
}
