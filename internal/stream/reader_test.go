package stream

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pieces is an io.Reader that returns its input in the given pieces, one per
// Read call, as a network would.
type pieces struct {
	parts [][]byte
	err   error // returned after the last piece instead of io.EOF when set
}

func (p *pieces) Read(b []byte) (int, error) {
	for len(p.parts) > 0 && len(p.parts[0]) == 0 {
		p.parts = p.parts[1:]
	}
	if len(p.parts) == 0 {
		if p.err != nil {
			return 0, p.err
		}
		return 0, io.EOF
	}
	n := copy(b, p.parts[0])
	p.parts[0] = p.parts[0][n:]
	return n, nil
}

// splitAt returns s cut at the given offsets.
func splitAt(s string, cuts ...int) *pieces {
	p := &pieces{}
	prev := 0
	for _, c := range cuts {
		p.parts = append(p.parts, []byte(s[prev:c]))
		prev = c
	}
	p.parts = append(p.parts, []byte(s[prev:]))
	return p
}

type got struct {
	Type, Data string
}

// readAll drains r and returns the events and the final error (nil for a
// clean io.EOF).
func readAll(r io.Reader) ([]got, error) {
	return drain(NewReader(r, 0))
}

// drain reads rd's events to the end, as readAll returns them.
func drain(rd *Reader) ([]got, error) {
	var out []got
	for {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, got{ev.Type, string(ev.Data)})
	}
}

const vllmStream = "data: {\"choices\":[{\"text\":\" leading 中 trailing \"}]}\n\n" +
	"data: {\"choices\":[{\"text\":\"b\"}]}\n\n" +
	"data: {\"choices\":[],\"usage\":{\"completion_tokens\":2}}\n\n" +
	"data: [DONE]\n\n"

var vllmEvents = []got{
	{"", `{"choices":[{"text":" leading 中 trailing "}]}`},
	{"", `{"choices":[{"text":"b"}]}`},
	{"", `{"choices":[],"usage":{"completion_tokens":2}}`},
	{"", `[DONE]`},
}

func TestReaderCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    []got
		wantErr error
	}{
		// The shape vLLM's OpenAI server emits.
		{"vllm", vllmStream, vllmEvents, nil},
		// Last event without its blank line is still delivered (vLLM tail rule).
		{"no trailing blank line", "data: {\"a\":1}\n\ndata: {\"b\":2}", []got{{"", `{"a":1}`}, {"", `{"b":2}`}}, nil},
		// [DONE] with a single newline and none at all.
		{"done one newline", "data: {\"a\":1}\n\ndata: [DONE]\n", []got{{"", `{"a":1}`}, {"", "[DONE]"}}, nil},
		{"done no newline", "data: [DONE]", []got{{"", "[DONE]"}}, nil},
		// Comments and keep-alives are skipped.
		{"comments", ": ping\n\ndata: {\"a\":1}\n\n: another\n", []got{{"", `{"a":1}`}}, nil},
		// CRLF and CR line endings.
		{"crlf", "data: {\"a\":1}\r\n\r\ndata: [DONE]\r\n\r\n", []got{{"", `{"a":1}`}, {"", "[DONE]"}}, nil},
		{"cr", "data: {\"a\":1}\r\rdata: [DONE]\r\r", []got{{"", `{"a":1}`}, {"", "[DONE]"}}, nil},
		// "data:" without the space (SSE allows it; vLLM's client fails it).
		{"no space", "data:{\"a\":1}\n\n", []got{{"", `{"a":1}`}}, nil},
		// Named events keep their type.
		{"event type", "event: error\ndata: {\"error\":{\"message\":\"boom\"}}\n\n", []got{{"error", `{"error":{"message":"boom"}}`}}, nil},
		// Multi-line data is joined with \n.
		{"multi-line data", "data: {\"a\":\ndata: 1}\n\n", []got{{"", "{\"a\":\n1}"}}, nil},
		// Bare JSON lines (no data: prefix) as vLLM's client accepts them.
		{"bare json", "{\"a\":1}\n\n{\"b\":2}\n\n", []got{{"", `{"a":1}`}, {"", `{"b":2}`}}, nil},
		// Unknown fields are ignored, id and retry too.
		{"other fields", "id: 7\nretry: 10\nfoo\ndata: {\"a\":1}\n\n", []got{{"", `{"a":1}`}}, nil},
		// A blank line with no data dispatches nothing and forgets the type.
		{"type without data", "event: x\n\ndata: {\"a\":1}\n\n", []got{{"", `{"a":1}`}}, nil},
		// A body cut inside an event is an error, not a silent drop.
		{"truncated", "data: {\"a\":1}\n\ndata: {\"b\":", []got{{"", `{"a":1}`}}, ErrTruncated},
		// A number is never taken as complete before its terminator.
		{"number waits", "data: 12", nil, ErrTruncated},
		// Empty body.
		{"empty", "", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			evs, err := readAll(strings.NewReader(tt.in))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, evs); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReaderEverySplitPoint is the later upstream test
// (test_endpoint_request_func.py@2814c9cf) made stronger: the events, and so
// the text " leading 中 trailing " with its edge whitespace and a 3-byte UTF-8
// character, must not depend on where the transport splits the stream, for
// every single split point and every pair of split points.
func TestReaderEverySplitPoint(t *testing.T) {
	t.Parallel()
	for _, in := range []string{vllmStream, strings.ReplaceAll(vllmStream, "\n", "\r\n")} {
		want, err := readAll(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i <= len(in); i++ {
			for j := i; j <= len(in); j++ {
				evs, err := readAll(splitAt(in, i, j))
				if err != nil {
					t.Fatalf("split %d,%d: %v", i, j, err)
				}
				if diff := cmp.Diff(want, evs); diff != "" {
					t.Fatalf("split %d,%d (-want +got):\n%s", i, j, diff)
				}
			}
		}
	}
}

func TestReaderByteByByte(t *testing.T) {
	t.Parallel()
	p := &pieces{}
	for i := range len(vllmStream) {
		p.parts = append(p.parts, []byte{vllmStream[i]})
	}
	evs, err := readAll(p)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(vllmEvents, evs); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}

// A transport error after complete events: the events come first, then the
// error.
func TestReaderTransportError(t *testing.T) {
	t.Parallel()
	reset := errors.New("connection reset by peer")
	evs, err := readAll(&pieces{parts: [][]byte{[]byte("data: {\"a\":1}\n\n")}, err: reset})
	if !errors.Is(err, reset) {
		t.Fatalf("err = %v, want %v", err, reset)
	}
	if len(evs) != 1 {
		t.Fatalf("events = %v, want one", evs)
	}
}

func TestReaderEventTooLarge(t *testing.T) {
	t.Parallel()
	big := "data: {\"a\":\"" + strings.Repeat("x", 100<<10) + "\"}\n\n"
	rd := NewReader(strings.NewReader(big), 64<<10)
	if _, err := rd.Next(); !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("err = %v, want ErrEventTooLarge", err)
	}
	// The default limit takes it.
	evs, err := readAll(strings.NewReader(big))
	if err != nil || len(evs) != 1 {
		t.Fatalf("default limit: %d events, err %v", len(evs), err)
	}
}

func TestReaderReset(t *testing.T) {
	t.Parallel()
	rd := NewReader(strings.NewReader("data: {\"a\":"), 0)
	if _, err := rd.Next(); !errors.Is(err, ErrTruncated) {
		t.Fatalf("err = %v", err)
	}
	rd.Reset(strings.NewReader("data: {\"b\":2}\n\n"))
	ev, err := rd.Next()
	if err != nil || string(ev.Data) != `{"b":2}` {
		t.Fatalf("after Reset: %q, %v", ev.Data, err)
	}
}

// FuzzReader checks that no input panics the reader and that, for
// well-formed streams (each event one data line of valid JSON or [DONE]), the
// events do not depend on how the input is split. Malformed streams may
// differ: a complete JSON value followed by more bytes on the same line, or a
// multi-line data event whose first line is complete JSON, is delivered early
// by the tail rule when the split falls right after the JSON (see the
// package doc); unsplit, the same bytes form one event that fails to decode.
func FuzzReader(f *testing.F) {
	f.Add([]byte(vllmStream), uint16(7))
	f.Add([]byte("data: {\"a\":1}\r\n\r\ndata: [DONE]"), uint16(3))
	f.Add([]byte(": c\n\nevent: error\ndata: {\"error\":{}}\n\n"), uint16(1))
	f.Add([]byte("{\"a\":\"\xe4\xb8\xad\"}\n\n"), uint16(2))
	f.Fuzz(func(t *testing.T, in []byte, step uint16) {
		whole, errWhole := readAll(bytes.NewReader(in))
		n := int(step%64) + 1
		p := &pieces{}
		for i := 0; i < len(in); i += n {
			p.parts = append(p.parts, in[i:min(i+n, len(in))])
		}
		split, errSplit := readAll(p)
		for _, e := range whole {
			if strings.Contains(e.Data, "\n") || !complete([]byte(e.Data)) {
				return
			}
		}
		if errWhole != nil || errSplit != nil {
			return
		}
		var a, b []string
		// JSON whitespace is insignificant: an early delivery leaves trailing
		// blanks of the line behind.
		for _, e := range whole {
			a = append(a, strings.TrimSpace(e.Data))
		}
		for _, e := range split {
			b = append(b, strings.TrimSpace(e.Data))
		}
		if !cmp.Equal(a, b) {
			t.Fatalf("split by %d changed events:\nwhole %q\nsplit %q", n, a, b)
		}
	})
}

func BenchmarkReader(b *testing.B) {
	ev := "data: {\"id\":\"cmpl-bench-0\",\"object\":\"text_completion\",\"created\":1700000000,\"model\":\"m\",\"choices\":[{\"index\":0,\"text\":\" word\",\"logprobs\":null,\"finish_reason\":null,\"stop_reason\":null}]}\n\n"
	body := []byte(strings.Repeat(ev, 1000))
	b.SetBytes(int64(len(ev)))
	b.ReportAllocs()
	rd := NewReader(nil, 0)
	r := bytes.NewReader(body)
	b.ResetTimer()
	for i := 0; i < b.N; {
		r.Reset(body)
		rd.Reset(r)
		for ; i < b.N; i++ {
			if _, err := rd.Next(); err != nil {
				break
			}
		}
	}
}

// TestLineEnd checks lineEnd against bytes.IndexAny, which it replaces.
func TestLineEnd(t *testing.T) {
	for _, s := range []string{"", "abc", "a\nb", "a\rb", "a\r\nb", "\n", "\r", "ab\n\rc", "ab\r", "x\ny\rz", "data: {}\n\n"} {
		if got, want := lineEnd([]byte(s)), bytes.IndexAny([]byte(s), "\r\n"); got != want {
			t.Errorf("lineEnd(%q) = %d, want %d", s, got, want)
		}
	}
}

// parts cuts s at the given offsets, skipping one that is before the
// previous cut or past the end: the reads (pullAll) or feeds (pushAll) the
// fuzz targets split s into.
func parts(s string, cuts []int) []string {
	var out []string
	prev := 0
	for _, c := range cuts {
		if c < prev || c > len(s) {
			continue
		}
		out = append(out, s[prev:c])
		prev = c
	}
	return append(out, s[prev:])
}

// pullAll reads s in pull mode split as parts cuts it: each Read returns
// one part, and the buffer holds all of s, so that no Read ends anywhere
// else; it returns what readAll returns.
func pullAll(s string, cuts []int) ([]got, error) {
	rd := NewReader(&partsReader{parts: parts(s, cuts)}, 0)
	rd.buf = make([]byte, max(len(s)+2, initialBufSize))
	return drain(rd)
}

// partsReader returns its parts one Read each, then io.EOF.
type partsReader struct{ parts []string }

func (r *partsReader) Read(p []byte) (int, error) {
	for len(r.parts) > 0 && r.parts[0] == "" {
		r.parts = r.parts[1:]
	}
	if len(r.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.parts[0])
	r.parts[0] = r.parts[0][n:]
	return n, nil
}

// pushAll feeds s to a push-mode Reader split as parts cuts it and returns
// what readAll returns.
func pushAll(s string, cuts []int) ([]got, error) {
	rd := NewReader(nil, 0)
	rd.ResetPush()
	var out []got
	emit := func(ev Event) bool {
		out = append(out, got{ev.Type, string(ev.Data)})
		return true
	}
	// One buffer for every feed, scribbled over after each, as the event
	// loop reuses its read buffer: the Reader must keep nothing of it.
	buf := make([]byte, len(s))
	for _, p := range parts(s, cuts) {
		b := buf[:copy(buf, p)]
		err := rd.Feed(b, emit)
		for i := range b {
			b[i] = '#'
		}
		if err != nil {
			return out, err
		}
	}
	return out, rd.End(nil, emit)
}

func TestPushCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		cuts []int
	}{
		// Two events, the second cut inside its data line.
		{"split data", "data: {\"a\":1}\n\ndata: {\"b\":2}\n\n", []int{20}},
		// "\r" at the end of one feed, "\n" at the start of the next.
		{"split crlf", "data: x\r\n\r\ndata: [DONE]", []int{8}},
		// A final event without its blank line is delivered (tail rule).
		{"tail", "data: {\"a\":1}", []int{3, 9}},
		// A body cut inside an event is ErrTruncated, as pulled.
		{"truncated", "data: {\"a\":", nil},
		// A whole data line in one feed, its blank line in the next: the
		// pending data must outlive the first feed's buffer.
		{"pending line", "data: x\ndata: y\n\ndata: [DONE]\n\n", []int{8, 16}},
		// Bare JSON lines and comments.
		{"bare", ": c\n{\"x\":1}\n\n", []int{1, 2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want, wantErr := readAll(strings.NewReader(tt.in))
			got, err := pushAll(tt.in, tt.cuts)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("events (-pull +push):\n%s", diff)
			}
			if !errors.Is(err, ErrTruncated) != !errors.Is(wantErr, ErrTruncated) || (err == nil) != (wantErr == nil) {
				t.Errorf("error: push %v, pull %v", err, wantErr)
			}
		})
	}
}

func TestPushStop(t *testing.T) {
	t.Parallel()
	rd := NewReader(nil, 0)
	rd.ResetPush()
	var n int
	stop := func(Event) bool { n++; return false }
	if err := rd.Feed([]byte("data: 1\n\ndata: 2\n\n"), stop); err != nil || n != 1 {
		t.Fatalf("Feed: %v after %d events, want nil after 1", err, n)
	}
}

func TestPushReadError(t *testing.T) {
	t.Parallel()
	rd := NewReader(nil, 0)
	rd.ResetPush()
	var evs int
	emit := func(Event) bool { evs++; return true }
	if err := rd.Feed([]byte("data: {}\n\ndata: {\"a\""), emit); err != nil {
		t.Fatal(err)
	}
	reset := errors.New("connection reset")
	if err := rd.End(reset, emit); !errors.Is(err, reset) || evs != 1 {
		t.Fatalf("End: %v after %d events, want the read error after 1", err, evs)
	}
}

// FuzzPushPull checks that push mode yields exactly the events and the
// verdict of pull mode, for any input and any split of it that both modes
// receive. (The same split for both: vLLM's tail rule delivers an event
// whose JSON is complete when a read ends, so a later line of the same
// event, with no blank line before it, counts only when it came in the
// same read: `{"0":[0,0]}\ndata` read at once is one event, its data the
// JSON and a newline; read in two parts cut after "\n" it is the JSON
// alone, then a truncated event, in either mode.)
func FuzzPushPull(f *testing.F) {
	f.Add([]byte("data: {\"a\":1}\n\ndata: [DONE]\n\n"), []byte{3, 17})
	f.Add([]byte("event: e\r\ndata: x\r\n\r\ndata: {\"b\""), []byte{9, 10})
	f.Add([]byte("{\"x\":[1,2]}\r:c\ndata:y\n\n"), []byte{1})
	f.Add([]byte("{\"0\":[0,0]}\r00\ndata"), []byte{15})
	f.Fuzz(func(t *testing.T, in, splits []byte) {
		var cuts []int
		at := 0
		for _, s := range splits {
			at += int(s)
			cuts = append(cuts, at)
		}
		want, wantErr := pullAll(string(in), cuts)
		got, err := pushAll(string(in), cuts)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("events (-pull +push):\n%s", diff)
		}
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("error: push %v, pull %v", err, wantErr)
		}
	})
}

// BenchmarkFeedStreams feeds one event at a time to each of 512 push-mode
// Readers in turn, as the epoll engine does at 512 streams: each Reader's
// state is cold in the cache when its next event comes, which a
// single-Reader benchmark never shows.
func BenchmarkFeedStreams(b *testing.B) {
	const streams = 512
	ev := []byte("data: {\"id\":\"cmpl-bench-0\",\"object\":\"text_completion\",\"created\":1700000000,\"model\":\"m\",\"choices\":[{\"index\":0,\"text\":\" word\",\"logprobs\":null,\"finish_reason\":null,\"stop_reason\":null}]}\n\n")
	rds := make([]*Reader, streams)
	for i := range rds {
		rds[i] = NewReader(nil, 0)
		rds[i].ResetPush()
	}
	// What the event loop's read buffer holds: a fresh copy per read.
	buf := make([]byte, 64<<10)
	var n int
	emit := func(ev Event) bool { n += len(ev.Data); return true }
	b.SetBytes(int64(len(ev)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := buf[:copy(buf, ev)]
		if err := rds[i%streams].Feed(p, emit); err != nil {
			b.Fatal(err)
		}
	}
}
