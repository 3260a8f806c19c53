package sim

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/golden"
	"github.com/gobench/gobench/internal/testserver"
)

// fakeTokenizer is a stand-in for the real tokenizer: one token per
// whitespace-separated word, plus a BOS token when special tokens are added,
// which is enough to tell the two Encode modes apart in usage numbers.
type fakeTokenizer struct{}

func (fakeTokenizer) Name() string { return "fake" }

func (fakeTokenizer) Encode(text string, addSpecialTokens bool) []int {
	ids := []int{}
	if addSpecialTokens {
		ids = append(ids, 1)
	}
	for range strings.Fields(text) {
		ids = append(ids, 2)
	}
	return ids
}

func (fakeTokenizer) Decode(ids []int) string    { return strings.Repeat("w ", len(ids)) }
func (fakeTokenizer) VocabSize() int             { return 3 }
func (fakeTokenizer) AllSpecialIDs() []int       { return []int{1} }
func (fakeTokenizer) NumSpecialTokensToAdd() int { return 1 }

// newTestServer builds a server or fails the test.
func newTestServer(t testing.TB, cfg Config) *Server {
	t.Helper()
	s, err := NewServer(cfg)
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	return s
}

// do sends one request through the handler and returns the recorded
// response.
func do(t testing.TB, h http.Handler, method, path, body string, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// normalize replaces what changes from run to run (timestamps, random ids)
// so transcripts can be compared byte for byte.
func normalize(b []byte) []byte {
	b = regexp.MustCompile(`"created":\d+`).ReplaceAll(b, []byte(`"created":0`))
	return regexp.MustCompile(`modelperm-[0-9a-f]{32}`).ReplaceAll(b, []byte("modelperm-ID"))
}

// checkGolden compares got with testdata/<name>.golden, or rewrites the
// file with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.CheckFile(t, filepath.Join("testdata", name+".golden"), got)
}

// sseEvents splits an SSE body into the payloads of its data events.
func sseEvents(t testing.TB, body []byte) []string {
	t.Helper()
	var out []string
	for _, ev := range strings.Split(string(body), "\n\n") {
		if ev == "" {
			continue
		}
		payload, ok := strings.CutPrefix(ev, "data: ")
		if !ok {
			t.Fatalf("event without data prefix: %q", ev)
		}
		out = append(out, payload)
	}
	if !strings.HasSuffix(string(body), "\n\n") {
		t.Fatalf("body does not end with a blank line: %q", body)
	}
	return out
}

// timedEvent is one SSE event and when the client finished reading it.
type timedEvent struct {
	at      time.Time
	payload string
}

// readEvents reads SSE events from r until EOF or [DONE], stamping each on
// arrival. It returns the events read and the error that ended reading, if
// not EOF.
func readEvents(r io.Reader) ([]timedEvent, error) {
	br := bufio.NewReader(r)
	var out []timedEvent
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if err == io.EOF {
				return out, nil
			}
			return out, err
		}
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			continue
		}
		payload, _ := strings.CutPrefix(line, "data: ")
		out = append(out, timedEvent{at: time.Now(), payload: payload})
		if payload == "[DONE]" {
			return out, nil
		}
	}
}

// syncWriter is a log sink that tests may read while servers write to it.
type syncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}

// mustRegexp compiles expr or fails the test.
func mustRegexp(t testing.TB, expr string) *regexp.Regexp {
	t.Helper()
	re, err := regexp.Compile(expr)
	if err != nil {
		t.Fatal(err)
	}
	return re
}

// recorded returns the record's line of request id. The handler writes it
// before it returns and the server ends the response body only after that,
// so once a client has read a body to its end the line is there: no wait.
func recorded(t *testing.T, rec *testserver.LockedBuffer, id string) recordLine {
	t.Helper()
	b := rec.Bytes()
	_, reqs := parseRecord(t, b)
	r, ok := reqs[id]
	if !ok {
		t.Fatalf("no record line for %q:\n%s", id, b)
	}
	return r
}

// writeLog keeps the size of every write a server made to its connections:
// the pieces it put on the wire, which a client's reads may coalesce.
type writeLog struct {
	mu    sync.Mutex
	sizes []int
}

func (l *writeLog) add(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sizes = append(l.sizes, n)
}

// Sizes returns the sizes of the writes so far, in order.
func (l *writeLog) Sizes() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.sizes)
}

// loggedListener hands out connections whose writes go to log. Its
// connections are no *net.TCPConn, so the reset fault cannot send an RST
// through them: serve only the other faults on it.
type loggedListener struct {
	net.Listener
	log *writeLog
}

func (l loggedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return loggedConn{Conn: c, log: l.log}, nil
}

type loggedConn struct {
	net.Conn
	log *writeLog
}

func (c loggedConn) Write(p []byte) (int, error) {
	c.log.add(len(p))
	return c.Conn.Write(p)
}
