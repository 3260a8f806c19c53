package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/metrics"
)

func TestFailureKind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ text, want string }{
		{`Post "http://127.0.0.1:9/v1/completions": unexpected EOF`, "connection closed (unexpected EOF)"},
		{`Post "http://127.0.0.1:9/v1/completions": EOF`, "connection closed (EOF)"},
		{`Post "http://127.0.0.1:9/v1/completions": dial tcp 127.0.0.1:9: connect: connection refused`, "connection refused"},
		{`read tcp 127.0.0.1:5->127.0.0.1:9: read: connection reset by peer`, "connection reset"},
		{`HTTP 503 Service Unavailable: {"error":"overloaded"}`, "HTTP 503"},
		{`HTTP 404 Not Found`, "HTTP 404"},
		{"timed out: no data from the server for 10s (--read-timeout / VLLM_BENCH_SOCK_READ)", "read timeout (--read-timeout)"},
		{"timed out: the request did not finish within 10s (--request-timeout)", "request timeout (--request-timeout)"},
		{"cancelled: the run was interrupted before this request finished", "cancelled by the interrupt"},
		{"Traceback (most recent call last):\n  ServerTimeoutError: Timeout on reading data from socket", "read timeout (--read-timeout)"},
		{"Traceback (most recent call last):\n  ValueError: bad", "ValueError: bad"},
		{"Bad Request", "Bad Request"},
		{"", "no error text"},
		{strings.Repeat("x", 80), strings.Repeat("x", kindWidth-1) + "…"},
	} {
		if got := KindOfFailure(tc.text); got != tc.want {
			t.Errorf("KindOfFailure(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestFailuresGroupedByKind: a server killed mid-run fails most requests
// alike; the lines before the block count them by kind, the most frequent
// first, with one example each, every line within 100 columns.
func TestFailuresGroupedByKind(t *testing.T) {
	t.Parallel()
	long := `Post "http://127.0.0.1:9/v1/completions": ` + strings.Repeat("y", 200) + ": unexpected EOF"
	outs := make([]metrics.Output, 100)
	for i := range outs {
		switch {
		case i < 8:
			outs[i].Success = true
		case i < 12:
			outs[i].Error = "HTTP 503 Service Unavailable"
		default:
			outs[i].Error = long
		}
	}
	r := metrics.Calculate(outs, 1, metrics.Config{})
	var buf bytes.Buffer
	if err := Failures(&buf, &r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want := "92 of 100 requests failed: 88 connection closed (unexpected EOF), 4 HTTP 503"
	if len(lines) != 3 || lines[0] != want || !strings.HasPrefix(lines[2], "  HTTP 503, e.g. HTTP 503") {
		t.Errorf("failure lines:\n%s\nwant first %q", buf.String(), want)
	}
	for _, l := range lines {
		if n := len([]rune(l)); n > 100 {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
	buf.Reset()
	ok := metrics.Calculate([]metrics.Output{{Success: true}}, 1, metrics.Config{})
	if err := Failures(&buf, &ok); err != nil || buf.Len() != 0 {
		t.Errorf("Failures wrote %q for a run without failures", buf.String())
	}
}

func TestFailureKindsList(t *testing.T) {
	t.Parallel()
	if got := failureKindsList(nil); len(got) != 0 || got == nil {
		t.Errorf("no failures: %#v, want an empty list", got)
	}
	got := failureKindsList([]string{"a", "HTTP 500 x", "HTTP 500 y"})
	if len(got) != 2 {
		t.Fatalf("got %d kinds, want 2", len(got))
	}
}
