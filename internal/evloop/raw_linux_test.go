//go:build linux

package evloop

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobench/gobench/internal/backend"
)

// streamHead is the head of a chunked event stream.
const streamHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"

// chunks frames each event of events (sse's text) as one chunk, without
// the last chunk.
func chunks(events string) string {
	var b strings.Builder
	for _, ev := range strings.SplitAfter(events, "\n\n") {
		if ev != "" {
			fmt.Fprintf(&b, "%x\r\n%s\r\n", len(ev), ev)
		}
	}
	return b.String()
}

// withHead is a chunked stream of sse(2) whose head carries extra header
// lines (each ending in CRLF).
func withHead(extra string) string {
	return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n" + extra + "\r\n" +
		chunks(sse(2)) + "0\r\n\r\n"
}

// headOf is withHead with one header line that makes the whole head size
// bytes long.
func headOf(size int) string {
	base := len(withHead("X-Pad: \r\n")) - len(chunks(sse(2))+"0\r\n\r\n")
	return withHead("X-Pad: " + strings.Repeat("a", size-base) + "\r\n")
}

// manyHeaders is withHead with n header lines.
func manyHeaders(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "X-H-%d: v\r\n", i)
	}
	return withHead(b.String())
}

// redirectTo is a 3xx answer with Location loc ("" for none).
func redirectTo(status, loc string) string {
	h := "HTTP/1.1 " + status + "\r\nContent-Length: 5\r\n"
	if loc != "" {
		h += "Location: " + loc + "\r\n"
	}
	return h + "\r\nmoved"
}

// replaceHost replaces the server of url (http://host:port/...) in s with
// SERVER, so errors from different servers compare.
//
// A server that closes a connection whose request it has not read to the
// end resets it instead, depending on when its close meets the bytes: a
// reset reads as "EOF" too, so that the comparison does not depend on the
// timing.
func replaceHost(s, url string) string {
	host, _, _ := strings.Cut(strings.TrimPrefix(url, "http://"), "/")
	s = strings.ReplaceAll(s, host, "SERVER")
	return resetRE.ReplaceAllString(s, "EOF")
}

// resetRE is a read's "connection reset by peer" error, as net/http and the
// engine word it.
var resetRE = regexp.MustCompile(`read tcp [0-9.:]+->SERVER: read: connection reset by peer`)

// TestEnginesOnRawAnswers sends the same bytes on the wire to both engines
// (a raw server writes each answer exactly, then closes the connection)
// and compares the records: success, error text, text and tokens.
// Where the engines differ on purpose, epoll says what it does instead.
func TestEnginesOnRawAnswers(t *testing.T) {
	t.Parallel()
	done := chunks(sse(3))
	// done without the CRLF after its last chunk's data ([DONE]'s).
	doneNoCRLF := strings.TrimSuffix(done, "\r\n")
	tests := []struct {
		name string
		// answers are written to the server's requests in order, the last
		// one repeated.
		answers []string
		success bool
		// epoll is epoll's error where it differs from net/http's record on
		// purpose ("": the records agree).
		epoll string
	}{
		{"well-formed", []string{streamHead + done + "0\r\n\r\n"}, true, ""},
		// After [DONE], a broken end of the chunked body is no failure.
		{"last chunk without its blank line", []string{streamHead + done + "0\r\n"}, true, ""},
		{"last chunk cut in its size line", []string{streamHead + done + "0"}, true, ""},
		{"last chunk's blank line cut", []string{streamHead + done + "0\r\n\r"}, true, ""},
		{"no last chunk", []string{streamHead + done}, true, ""},
		{"DONE chunk without CRLF, then the last chunk", []string{streamHead + doneNoCRLF + "0\r\n\r\n"}, true, ""},
		{"DONE chunk without CRLF", []string{streamHead + doneNoCRLF}, true, ""},
		{"DONE chunk with CR only", []string{streamHead + doneNoCRLF + "\r"}, true, ""},
		{"DONE chunk without CRLF, the last chunk later", []string{streamHead + doneNoCRLF + pause + "0\r\n\r\n"}, true, ""},
		{"last chunk later, without its blank line", []string{streamHead + done + pause + "0\r\n"}, true, ""},
		{"DONE without its blank line, no last chunk", []string{streamHead + chunks(strings.TrimSuffix(sse(3), "\n\n"))}, true, ""},
		{"Content-Length longer than the body sent", []string{fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(sse(3))+10, sse(3))}, true, ""},
		// Before [DONE], a broken body is a failure.
		{"chunk without CRLF before DONE", []string{streamHead + "5\r\ndata:x" + done + "0\r\n\r\n"}, false, ""},
		{"cut inside a chunk", []string{streamHead + chunks(sse(1))[:40]}, false, ""},
		// Large heads, up to net/http's bound (Transport's default
		// MaxResponseHeaderBytes: gobench sets none).
		{"one 1 MiB header", []string{headOf(1<<20 + 1)}, true, ""},
		{"many headers, 1 MiB", []string{manyHeaders(1 << 20 / 12)}, true, ""},
		{"head at the bound", []string{headOf(maxHead)}, true, ""},
		{"head above the bound", []string{headOf(maxHead + 1)}, false, ""},
		// Redirects: epoll follows none; its error names the Location as
		// net/http's does when it does not follow one.
		{"302 same origin", []string{redirectTo("302 Found", "/v1/other")}, false, ""},
		{"301 other origin", []string{redirectTo("301 Moved Permanently", "http://elsewhere.example/v1/completions")}, false, ""},
		{"307 other origin", []string{redirectTo("307 Temporary Redirect", "http://elsewhere.example:8000/v1/completions")}, false, ""},
		{"303 without Location", []string{redirectTo("303 See Other", "")}, false, ""},
		{"300 with Location", []string{redirectTo("300 Multiple Choices", "/v1/other")}, false, ""},
		{"302 Location that does not parse", []string{redirectTo("302 Found", "/v1/%zz")}, false, ""},
		// net/http follows a same-origin 307 or 308 (the body sent again);
		// epoll does not.
		{"308 same origin", []string{redirectTo("308 Permanent Redirect", "/v1/other"), streamHead + done + "0\r\n\r\n"}, true,
			"redirect not followed: HTTP 308 Permanent Redirect to %s/v1/other: the epoll client engine follows no redirect (--client-engine net/http follows this one)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			answer := func(i int) string { return tt.answers[min(i, len(tt.answers)-1)] }
			always := func(int) bool { return true }
			hc, e := clients(t, nil)
			body := []byte(`{"prompt":"x"}`)
			hs := newRawServer(t, answer, always)
			want := hc.Do(guard(t), backend.Completions{}, request(hs.url()), body)
			es := newRawServer(t, answer, always)
			got := e.Do(guard(t), backend.Completions{}, request(es.url()), body)
			// The servers' addresses differ: the texts are compared with
			// each server's named alike.
			want.Error, got.Error = replaceHost(want.Error, hs.url()), replaceHost(got.Error, es.url())
			if want.Success != tt.success {
				t.Errorf("net/http: success %v (%q), want %v", want.Success, want.Error, tt.success)
			}
			if tt.epoll != "" {
				if wantErr := fmt.Sprintf(tt.epoll, "http://SERVER"); got.Success || got.Error != wantErr {
					t.Errorf("epoll: success %v, error\n%q\nwant\n%q", got.Success, got.Error, wantErr)
				}
				return
			}
			if diff := cmp.Diff(shapeOf(want), shapeOf(got)); diff != "" {
				t.Errorf("records (-net/http +epoll):\n%s", diff)
			}
		})
	}
}
