package evloop

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseHead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want head
		body int // bytes after the head; -1: an error, -2: incomplete
	}{
		// The simulator's streaming answer: chunked, kept alive.
		{"chunked", "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nDate: x\r\n\r\ndata",
			head{code: 200, status: "200 OK", chunked: true, length: -1, dates: []string{"x"}}, 4},
		// Content-Length, bare "\n" line ends.
		{"length lf", "HTTP/1.1 404 Not Found\nContent-Length: 5\n\nnope!", head{code: 404, status: "404 Not Found", length: 5}, 5},
		// No length, no chunking: the body runs to the end of the connection.
		{"close delimited", "HTTP/1.1 200 OK\r\n\r\n", head{code: 200, status: "200 OK", length: -1, close: true}, 0},
		// HTTP/1.0 closes unless it says keep-alive.
		{"http10 keep-alive", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n",
			head{code: 200, status: "200 OK", length: 0}, 0},
		{"connection close", "HTTP/1.1 200 OK\r\nconnection: Close\r\ncontent-length: 2\r\n\r\n",
			head{code: 200, status: "200 OK", length: 2, close: true}, 0},
		// Transfer-Encoding wins over Content-Length.
		{"both", "HTTP/1.1 200 OK\r\nContent-Length: 9\r\nTransfer-Encoding: chunked\r\n\r\n",
			head{code: 200, status: "200 OK", chunked: true, length: -1}, 0},
		// Incomplete: no error, n = 0.
		{"incomplete", "HTTP/1.1 200 OK\r\nContent-Le", head{}, -2},
		{"bad status", "HTTP/1.1 2x0 OK\r\n\r\n", head{}, -1},
		{"bad proto", "HTTP/2 200 OK\r\n\r\n", head{}, -1},
		{"conflicting lengths", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", head{}, -1},
		{"gzip", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", head{}, -1},
		{"no colon", "HTTP/1.1 200 OK\r\nbogus\r\n\r\n", head{}, -1},
		// A redirect's Location: the first one, trimmed, as Header.Get.
		{"location", "HTTP/1.1 302 Found\r\nLocation:  /v1/a \r\nlocation: /v1/b\r\nContent-Length: 0\r\n\r\n",
			head{code: 302, status: "302 Found", length: 0, location: "/v1/a"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, n, err := parseHead([]byte(tt.in), 0, maxHead)
			if tt.body == -1 {
				if !errors.Is(err, errHead) {
					t.Fatalf("parseHead: %v, want errHead", err)
				}
				return
			}
			wantN := len(tt.in) - tt.body
			if tt.body == -2 {
				wantN = 0
			}
			if err != nil || n != wantN {
				t.Fatalf("parseHead: n %d, %v; want %d", n, err, wantN)
			}
			if diff := cmp.Diff(tt.want, h, cmp.AllowUnexported(head{})); diff != "" {
				t.Errorf("head (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseHeadLimit: the bound on a head's length (net/http's 10 MiB,
// here small ones) and the search resumed where an earlier one stopped.
func TestParseHeadLimit(t *testing.T) {
	t.Parallel()
	in := "HTTP/1.1 200 OK\r\nX-A: 1\r\nX-B: 2\r\n\r\nbody"
	end := strings.Index(in, "body")
	tests := []struct {
		name  string
		in    string
		limit int
		want  int // the head's length; 0: incomplete; -1: too large
	}{
		{"at the limit", in, end, end},
		{"a byte over", in, end - 1, -1},
		{"body past the limit", in, end + 1, end},
		{"incomplete within", in[:end-1], end, 0},
		{"incomplete at the limit", in[:end-1], end - 1, 0},
		{"incomplete beyond", in[:end-1], end - 2, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, n, err := parseHead([]byte(tt.in), 0, tt.limit)
			switch {
			case tt.want < 0 && !errors.Is(err, errHeadTooLarge):
				t.Fatalf("parseHead: n %d, %v; want errHeadTooLarge", n, err)
			case tt.want >= 0 && (err != nil || n != tt.want):
				t.Fatalf("parseHead: n %d, %v; want %d", n, err, tt.want)
			}
		})
	}
	// The same end, however the head arrived: a search of its first cut
	// bytes found none, and one resumed after them finds it.
	for cut := range end {
		if _, n, err := parseHead([]byte(in[:cut]), 0, maxHead); err != nil || n != 0 {
			t.Fatalf("a head cut at %d: n %d, %v", cut, n, err)
		}
		if _, n, err := parseHead([]byte(in), resumeAt(cut), maxHead); err != nil || n != end {
			t.Fatalf("resumed at %d: n %d, %v; want %d", resumeAt(cut), n, err, end)
		}
	}
}

// FuzzHead checks parseHead against net/http's response reader: a head
// gobench accepts net/http accepts, with the same status and framing.
func FuzzHead(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc"))
	f.Add([]byte("HTTP/1.0 200 OK\nConnection: keep-alive\nContent-Length: 0\n\n"))
	f.Add([]byte("HTTP/1.1 307 Temporary Redirect\r\nLocation: /v1/x\r\nLocation: /v1/y\r\nContent-Length: 5\r\n\r\nmoved"))
	f.Add([]byte("HTTP/1.1 302 Found\nlocation:\t\thttp://elsewhere.example/ \n\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		h, n, err := parseHead(in, 0, maxHead)
		// A search resumed after the first half arrived finds what a
		// whole one finds.
		if half := len(in) / 2; half > 0 {
			if _, n0, err0 := parseHead(in[:half], 0, maxHead); n0 == 0 && err0 == nil {
				if _, n1, err1 := parseHead(in, resumeAt(half), maxHead); n1 != n || (err1 == nil) != (err == nil) {
					t.Fatalf("resumed at %d: n %d, %v; whole: n %d, %v", resumeAt(half), n1, err1, n, err)
				}
			}
		}
		if err != nil || n == 0 {
			return
		}
		if n > len(in) {
			t.Fatalf("n %d > len %d", n, len(in))
		}
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(in[:n])), &http.Request{Method: http.MethodPost})
		if err != nil {
			// net/http is stricter in places (header values with
			// control bytes, obsolete folding); gobench only needs to
			// be no more lenient about framing.
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != h.code || resp.Status != h.status {
			t.Fatalf("status %d %q, net/http %d %q", h.code, h.status, resp.StatusCode, resp.Status)
		}
		chunked := len(resp.TransferEncoding) > 0 && resp.TransferEncoding[0] == "chunked"
		if h.code >= 200 && h.code != 204 && h.code != 304 && chunked != h.chunked {
			t.Fatalf("chunked %v, net/http %v", h.chunked, chunked)
		}
		if !h.chunked && h.length >= 0 && resp.ContentLength >= 0 && resp.ContentLength != h.length {
			t.Fatalf("length %d, net/http %d", h.length, resp.ContentLength)
		}
		if loc := resp.Header.Get("Location"); loc != h.location {
			t.Fatalf("location %q, net/http %q", h.location, loc)
		}
	})
}

// decodeAll decodes in, fed in pieces cut at the given offsets.
func decodeAll(in []byte, cuts []int) (data []byte, rest int, done bool, err error) {
	var d chunked
	buf := append([]byte(nil), in...)
	prev := 0
	cuts = append(cuts, len(buf))
	for _, c := range cuts {
		if c < prev || c > len(buf) {
			continue
		}
		p := buf[prev:c]
		n, used, end, err := d.decode(p)
		if n > used {
			return nil, 0, false, errors.New("more data than input")
		}
		data = append(data, p[:n]...)
		if err != nil || end {
			return data, len(buf) - prev - used, end, err
		}
		prev = c
	}
	return data, 0, false, nil
}

func TestChunked(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		data string
		rest int
		done bool
		err  bool
	}{
		// Two chunks, an extension, the last chunk, no trailer.
		{"plain", "3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n", "abcde", 0, true, false},
		// A trailer, then bytes past the body.
		{"trailer", "1\r\nz\r\n0\r\nX-T: 1\r\n\r\nXX", "z", 2, true, false},
		// Upper-case hex, a bare "\n" after the size.
		{"hex", "A\nabcdefghij\r\n0\n\n", "abcdefghij", 0, true, false},
		// Not finished yet.
		{"partial", "5\r\nab", "ab", 0, false, false},
		{"bad size", "g\r\n", "", 0, false, true},
		{"no crlf after data", "1\r\naXY", "a", 0, false, true},
		{"empty size", "\r\n", "", 0, false, true},
		{"huge", "1000000000000000\r\n", "", 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for cut := 0; cut <= len(tt.in); cut++ {
				data, rest, done, err := decodeAll([]byte(tt.in), []int{cut})
				if err != nil {
					rest = tt.rest // an error leaves the connection unusable anyway
				}
				if string(data) != tt.data || rest != tt.rest || done != tt.done || (err != nil) != tt.err {
					t.Fatalf("cut at %d: %q, rest %d, done %v, %v; want %q, %d, %v, error %v",
						cut, data, rest, done, err, tt.data, tt.rest, tt.done, tt.err)
				}
			}
		})
	}
}

// FuzzChunked checks the decoder two ways: data chunked by net/http and cut
// anywhere decodes to itself, and whatever the decoder accepts whole,
// net/http's chunked reader reads to the same data.
func FuzzChunked(f *testing.F) {
	f.Add([]byte("3\r\nabc\r\n0\r\n\r\n"), []byte("hello"), []byte{2, 5})
	f.Add([]byte("1;e\r\nz\r\n0\r\nT: v\r\n\r\n"), []byte{}, []byte{1})
	// A body whose last chunk ends badly, or not at all, after [DONE].
	f.Add([]byte("e\r\ndata: [DONE]\n\n\r\n0\r\n"), []byte("data: [DONE]\n\n"), []byte{3, 16})
	f.Add([]byte("e\r\ndata: [DONE]\n\n0\r\n\r\n"), []byte{}, []byte{17})
	f.Add([]byte("e\r\ndata: [DONE]\n\n\r\n0\r\n\r"), []byte{}, []byte{21})
	f.Fuzz(func(t *testing.T, raw, payload, splits []byte) {
		var cuts []int
		at := 0
		for _, s := range splits {
			at += int(s)
			cuts = append(cuts, at)
		}
		// Round trip.
		var enc bytes.Buffer
		// One chunk per Write: chunk boundaries every 7 bytes.
		w := httputil.NewChunkedWriter(&enc)
		for len(payload) > 0 {
			k := min(len(payload), 7)
			_, _ = w.Write(payload[:k])
			payload = payload[k:]
		}
		_ = w.Close()
		enc.WriteString("\r\n")
		want := enc.Bytes()
		wantData, err := io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(want)))
		if err != nil {
			t.Fatal(err)
		}
		data, rest, done, err := decodeAll(want, cuts)
		if err != nil || !done || rest != 0 || !bytes.Equal(data, wantData) {
			t.Fatalf("round trip: %q, rest %d, done %v, %v; want %q", data, rest, done, err, wantData)
		}
		// Arbitrary input: never more lenient than net/http about the data.
		data, rest, done, err = decodeAll(raw, cuts)
		if err != nil || !done {
			return
		}
		ref, rerr := io.ReadAll(httputil.NewChunkedReader(bytes.NewReader(raw[:len(raw)-rest])))
		if rerr == nil && !bytes.Equal(ref, data) {
			t.Fatalf("decoded %q, net/http %q", data, ref)
		}
	})
}

func TestRequestHead(t *testing.T) {
	t.Parallel()
	u, _ := url.Parse("http://127.0.0.1:8000/v1/completions?x=1")
	h := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer k"}, "X-Request-Id": {"r1"}}
	got, err := requestHead(u, h, 12)
	if err != nil {
		t.Fatal(err)
	}
	want := "POST /v1/completions?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nUser-Agent: Go-http-client/1.1\r\nContent-Length: 12\r\n" +
		"Authorization: Bearer k\r\nContent-Type: application/json\r\nX-Request-Id: r1\r\n\r\n"
	if string(got) != want {
		t.Errorf("head:\n%q\nwant\n%q", got, want)
	}
	// The head net/http parses as a request with the same fields.
	req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(string(got) + "0123456789ab")))
	if err != nil || req.Host != "127.0.0.1:8000" || req.ContentLength != 12 || req.UserAgent() != userAgent {
		t.Fatalf("net/http reads %+v, %v", req, err)
	}
	if _, err := requestHead(u, http.Header{"X": {"a\r\nb"}}, 0); err == nil {
		t.Error("a header value with CRLF was accepted")
	}
	if _, err := requestHead(&url.URL{Scheme: "https", Host: "h"}, nil, 0); err == nil {
		t.Error("https was accepted")
	}
}
