package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultkey"
)

// FailureKind is one kind of failure of a run: a server killed mid-run
// fails most requests the same way, and a count says so in one line where
// a list of error texts needs ten.
type FailureKind struct {
	// Kind names the failure ("connection closed (unexpected EOF)",
	// "HTTP 503", "read timeout (--read-timeout)", ...).
	Kind string
	// Count is the number of failed requests of this kind.
	Count int
	// Example is the first error text of this kind, verbatim.
	Example string
}

// failurePatterns map a piece of an error text to its kind, the first
// match winning: the texts are Go's net errors (dial, read, write), the
// backend's own texts (timeouts, interrupts, events without a token) and
// the server's status lines.
var failurePatterns = []struct{ piece, kind string }{
	{"timed out: no ", "read timeout (--read-timeout)"},
	{"timed out: the request did not finish", "request timeout (--request-timeout)"},
	{"cancelled: the run was interrupted", "cancelled by the interrupt"},
	{"connection refused", "connection refused"},
	{"connection reset", "connection reset"},
	{"broken pipe", "connection closed (broken pipe)"},
	{"unexpected EOF", "connection closed (unexpected EOF)"},
	{"no such host", "unknown host"},
	{"i/o timeout", "network timeout"},
	{"too many open files", "too many open files"},
	{"tls: ", "TLS"},
	{"x509: ", "TLS"},
	{"Never received a valid chunk", "no token in the answer"},
	{"without a terminal event", "no terminal event in the answer"},
	{"server error", "server error event"},
	{"ServerTimeoutError", "read timeout (--read-timeout)"}, // vLLM's aiohttp text
}

// kindWidth bounds a kind named by its own text.
const kindWidth = 60

// KindOfFailure names the kind of one failed request's error text, as
// FailureKinds groups them; the live view and the live metrics count
// failures by the same kinds as the result's failure_kinds.
func KindOfFailure(text string) string {
	if rest, ok := strings.CutPrefix(text, "HTTP "); ok {
		code, _, _ := strings.Cut(rest, " ")
		if _, err := strconv.Atoi(code); err == nil {
			return "HTTP " + code
		}
	}
	for _, p := range failurePatterns {
		if strings.Contains(text, p.piece) {
			return p.kind
		}
	}
	if text == "EOF" || strings.HasSuffix(text, ": EOF") {
		return "connection closed (EOF)"
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	first := strings.TrimSpace(lines[0])
	if strings.HasPrefix(first, "Traceback") { // Python's: the exception is last
		first = strings.TrimSpace(lines[len(lines)-1])
	}
	if first == "" {
		return "no error text"
	}
	// A text of no known kind is its own kind: identical texts still
	// group, and the line still says what failed.
	return clip(first, kindWidth)
}

// FailureKinds groups error texts by kind, the most frequent first (ties
// in the order their first failure came).
func FailureKinds(errs []string) []FailureKind {
	var kinds []FailureKind
	at := map[string]int{}
	for _, e := range errs {
		k := KindOfFailure(e)
		i, ok := at[k]
		if !ok {
			i = len(kinds)
			at[k] = i
			kinds = append(kinds, FailureKind{Kind: k, Example: e})
		}
		kinds[i].Count++
	}
	slices.SortStableFunc(kinds, func(a, b FailureKind) int { return cmp.Compare(b.Count, a.Count) })
	return kinds
}

// FailureSummary is the one line that counts a run's failures by kind:
// "92 of 100 requests failed: 88 connection closed (unexpected EOF), 4 HTTP 503".
func FailureSummary(failed, total int, kinds []FailureKind) string {
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = strconv.Itoa(k.Count) + " " + k.Kind
	}
	return fmt.Sprintf("%d of %d requests failed: %s", failed, total, strings.Join(parts, ", "))
}

// failureKindsList is the failure_kinds value: one object per kind, in
// FailureKinds' order (an empty list when every request succeeded).
func failureKindsList(errs []string) []any {
	out := []any{}
	for _, k := range FailureKinds(errs) {
		o := pyjson.NewObject()
		o.Set(resultkey.FailureKind, k.Kind)
		o.Set(resultkey.FailureCount, k.Count)
		o.Set(resultkey.FailureExample, k.Example)
		out = append(out, o)
	}
	return out
}

// exampleWidth bounds an example error text, so that the failure lines
// fit a 100-column terminal; the saved result keeps the whole text.
const exampleWidth = 100

// Failures writes, before the result block, what failed: one line that
// counts the failures by kind, then one example error text per kind. vLLM
// prints the first ten error texts ("Failed requests during benchmark run
// detected (capping to 10):"); when a server dies those are ten copies of
// one text, while the kinds show every cause at once. It writes nothing
// when every request succeeded.
func Failures(w io.Writer, r *metrics.Result) error {
	if len(r.Failures) == 0 {
		return nil
	}
	kinds := FailureKinds(r.Failures)
	var b strings.Builder
	b.WriteString(FailureSummary(r.Failed, r.Completed+r.Failed, kinds) + "\n")
	for _, k := range kinds {
		if oneLine(k.Example) == k.Kind {
			continue // the count line says it all
		}
		b.WriteString(clip("  "+k.Kind+", e.g. "+oneLine(k.Example), exampleWidth) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// oneLine joins a multi-line error text (a server's traceback) into one
// line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip cuts s to width characters, marking the cut with "…".
func clip(s string, width int) string {
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	return string(r[:width-1]) + "…"
}
