// Package stream splits a server-sent-events (SSE) byte stream into events,
// with the tolerance of vLLM's benchmark client (vllm/benchmarks/lib/
// endpoint_request_func.py, StreamedResponseHandler) and none of its
// fragility.
//
// Why not github.com/tmaxmax/go-sse: its Read follows the HTML5 rules, so it
// dispatches an event only on a blank line and silently drops a final event
// that has none. vLLM delivers such an event as soon as its JSON is
// complete, and servers rely on it (a `data: [DONE]` without the trailing
// blank line, an unterminated last chunk). It also costs two
// allocations and ~270 ns per event against ~50 ns and none here. The rules
// implemented instead:
//
//   - Lines end with "\n", "\r\n" or "\r"; a blank line ends an event. A line
//     beginning with ':' is a comment. "data:" lines (one optional space after
//     the colon) accumulate, joined by "\n"; "event:" sets the type; other
//     fields are ignored. A line that starts with '{' or '[' is taken as data
//     too, because vLLM's client json-decodes a message with no "data: "
//     prefix and some servers send bare JSON lines.
//   - An event whose terminator has not arrived yet is delivered anyway once
//     its data is "[DONE]" or a complete JSON object or array (vLLM's tail
//     rule). Only objects and arrays qualify: a number such as "12" could be
//     the prefix of "123" still in flight.
//   - At the end of the body a pending event is delivered if it is complete;
//     an incomplete one is reported as ErrTruncated rather than dropped, so a
//     stream cut inside an event is a failed request, not a silent success.
//   - Bytes are never trimmed or decoded between network reads, so the parsed
//     text does not depend on where the transport split the stream (vLLM's
//     baseline strip() of every read corrupted whitespace at the boundaries;
//     a later upstream test pins the fix), and a UTF-8 character split across
//     reads is reassembled for free. The tail rule is the one exception, as
//     in vLLM: an event delivered because its JSON was complete when a read
//     ended does not take a later line of its own (one with no blank line
//     before it) that came in the next read.
//
// The reader never reads the clock: the caller takes one timestamp per event
// as soon as Next returns, before decoding the JSON.
package stream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxEventSize bounds one event (16 MiB): logprobs-heavy chunks are
// large, and a 64 KiB limit is a known source of failed long-context runs
// (vllm #39963).
const DefaultMaxEventSize = 16 << 20

// initialBufSize is a new Reader's buffer size.
const initialBufSize = 1 << 10

// ErrTruncated reports a body that ended inside an event whose data is not
// complete.
var ErrTruncated = errors.New("stream ended inside an unterminated event")

// ErrEventTooLarge reports an event larger than the configured maximum.
var ErrEventTooLarge = errors.New("event exceeds the maximum event size")

// Event is one SSE event.
type Event struct {
	// Type is the value of the "event:" field, or "" when there was none.
	Type string
	// Data is the event's data (its "data:" lines joined by "\n"). It aliases
	// the reader's buffer and is valid only until the next call to Next.
	Data []byte
}

// Reader reads events from an SSE body. It is not safe for concurrent use.
type Reader struct {
	r       io.Reader
	max     int
	buf     []byte // buf[pos:end] is unparsed input
	pos     int
	end     int
	eof     bool
	readErr error

	// The event being assembled.
	typ string
	// data is the pending event's data lines, joined. While borrowed it
	// aliases its one line in buf (or in the bytes Feed is parsing) and
	// is copied into own only when a second line comes or that input is
	// about to change (ownData): most events have one data line, and
	// copying each into a per-stream buffer that is cold by the stream's
	// next event costs more than the parsing.
	data     []byte
	own      []byte
	borrowed bool
	hasData  bool
}

// NewReader returns a Reader over r. maxEventSize <= 0 means
// DefaultMaxEventSize.
func NewReader(r io.Reader, maxEventSize int) *Reader {
	if maxEventSize <= 0 {
		maxEventSize = DefaultMaxEventSize
	}
	// The buffer starts at 1 KiB, under a page, and grows to the largest
	// event (up to the maximum): a client holds one per open stream, and
	// most events are a few hundred bytes.
	return &Reader{r: r, max: maxEventSize, buf: make([]byte, initialBufSize)}
}

// Reset makes the Reader read from r, keeping its buffers, so one Reader can
// serve many requests without allocating.
func (rd *Reader) Reset(r io.Reader) {
	rd.r = r
	rd.pos, rd.end = 0, 0
	rd.eof, rd.readErr = false, nil
	rd.resetEvent()
}

func (rd *Reader) resetEvent() {
	rd.typ = ""
	rd.data, rd.borrowed = rd.own[:0], false
	rd.hasData = false
}

// ownData copies borrowed data into the Reader's own buffer, before the
// input it aliases is compacted, overwritten or handed back.
func (rd *Reader) ownData() {
	if rd.borrowed {
		rd.own = append(rd.own[:0], rd.data...)
		rd.data, rd.borrowed = rd.own, false
	}
}

// Next returns the next event. At the end of a well-formed stream it returns
// io.EOF; a transport error is returned as is (wrapped), and a body that ends
// inside an incomplete event gives ErrTruncated.
func (rd *Reader) Next() (Event, error) {
	for {
		if ev, ok := rd.parseLines(); ok {
			return ev, nil
		}
		// No complete event in the buffer: apply the tail rule before
		// blocking on the network.
		if ev, ok := rd.tail(); ok {
			return ev, nil
		}
		if rd.eof {
			return rd.finish()
		}
		if err := rd.fill(); err != nil {
			return Event{}, err
		}
	}
}

// parseLines consumes complete lines and returns an event when a blank line
// ends one that has data.
func (rd *Reader) parseLines() (Event, bool) {
	for rd.pos < rd.end {
		chunk := rd.buf[rd.pos:rd.end]
		i := lineEnd(chunk)
		if i < 0 {
			return Event{}, false
		}
		line := chunk[:i]
		n := i + 1
		if chunk[i] == '\r' {
			if i+1 == len(chunk) && !rd.eof {
				// "\r" at the end of the buffer may be half of "\r\n".
				return Event{}, false
			}
			if i+1 < len(chunk) && chunk[i+1] == '\n' {
				n++
			}
		}
		rd.pos += n
		if len(line) == 0 {
			if rd.hasData {
				return rd.emit(), true
			}
			rd.typ = ""
			continue
		}
		rd.field(line)
	}
	return Event{}, false
}

// lineEnd is the index of the first "\r" or "\n" in b, or -1: two
// vectorised byte searches instead of bytes.IndexAny's byte-by-byte loop
// (an event's line is a few hundred bytes).
func lineEnd(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return bytes.IndexByte(b, '\r')
	}
	if j := bytes.IndexByte(b[:i], '\r'); j >= 0 {
		return j
	}
	return i
}

// field interprets one non-empty line.
func (rd *Reader) field(line []byte) {
	switch line[0] {
	case ':':
		return
	case '{', '[':
		rd.addData(line)
		return
	}
	name, value := line, []byte(nil)
	if c := bytes.IndexByte(line, ':'); c >= 0 {
		name, value = line[:c], line[c+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		rd.addData(value)
	case "event":
		rd.typ = string(value)
	}
}

func (rd *Reader) addData(v []byte) {
	if !rd.hasData {
		rd.data, rd.borrowed, rd.hasData = v, true, true
		return
	}
	rd.ownData()
	rd.data = append(append(rd.data, '\n'), v...)
	rd.own = rd.data
}

func (rd *Reader) emit() Event {
	ev := Event{Type: rd.typ, Data: rd.data}
	// The own buffer is reused by the next event, and borrowed data is
	// the input's: the caller was told Data is only valid until the next
	// call.
	rd.resetEvent()
	return ev
}

// tail implements vLLM's rule for an event whose terminator has not arrived:
// deliver it if its data (complete lines plus the unterminated last line) is
// [DONE] or a complete JSON object or array.
func (rd *Reader) tail() (Event, bool) {
	partial := rd.buf[rd.pos:rd.end]
	var value []byte
	switch {
	case len(partial) == 0:
		if !rd.hasData {
			return Event{}, false
		}
	case bytes.HasPrefix(partial, []byte("data:")):
		value = partial[len("data:"):]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		if bytes.HasSuffix(value, []byte("\r")) {
			value = value[:len(value)-1]
		}
	case partial[0] == '{' || partial[0] == '[':
		value = partial
	default:
		return Event{}, false
	}
	candidate, borrow := rd.data, rd.borrowed
	if value != nil {
		if rd.hasData {
			rd.ownData()
			candidate, borrow = append(append(rd.data, '\n'), value...), false
		} else {
			candidate, borrow = value, true
		}
	}
	if !complete(candidate) {
		// The speculative append above only wrote past len(rd.data), so the
		// pending event is unchanged.
		return Event{}, false
	}
	if !borrow {
		rd.own = candidate
	}
	rd.data, rd.borrowed = candidate, borrow
	rd.hasData = true
	rd.pos = rd.end
	return rd.emit(), true
}

// complete reports whether data is "[DONE]" or a whole JSON object or array.
// The cheap checks on the last byte come first so that a large event arriving
// in many pieces is not re-validated on every read.
func complete(data []byte) bool {
	d := bytes.TrimSpace(data)
	if len(d) == 0 {
		return false
	}
	if string(d) == "[DONE]" {
		return true
	}
	last := d[len(d)-1]
	if (d[0] != '{' || last != '}') && (d[0] != '[' || last != ']') {
		return false
	}
	return json.Valid(d)
}

// finish handles the end of the body.
func (rd *Reader) finish() (Event, error) {
	if rd.readErr != nil {
		err := rd.readErr
		rd.readErr = nil
		return Event{}, err
	}
	// Unterminated final line that is not data (e.g. "event: x"): apply it.
	if rd.pos < rd.end {
		rd.field(rd.buf[rd.pos:rd.end])
		rd.pos = rd.end
	}
	if !rd.hasData {
		return Event{}, io.EOF
	}
	if !complete(rd.data) {
		n := len(rd.data)
		rd.resetEvent()
		return Event{}, fmt.Errorf("%w (%d bytes of data pending)", ErrTruncated, n)
	}
	return rd.emit(), nil
}

// fill reads more input, compacting or growing the buffer as needed.
func (rd *Reader) fill() error {
	rd.ownData()
	if rd.pos > 0 {
		copy(rd.buf, rd.buf[rd.pos:rd.end])
		rd.end -= rd.pos
		rd.pos = 0
	}
	if rd.end == len(rd.buf) {
		if len(rd.buf) >= rd.max+2 || len(rd.data) > rd.max {
			return fmt.Errorf("%w (%d bytes)", ErrEventTooLarge, rd.max)
		}
		nb := make([]byte, min(2*len(rd.buf), rd.max+2))
		copy(nb, rd.buf[:rd.end])
		rd.buf = nb
	}
	n, err := rd.r.Read(rd.buf[rd.end:])
	rd.end += n
	if len(rd.data) > rd.max {
		return fmt.Errorf("%w (%d bytes)", ErrEventTooLarge, rd.max)
	}
	if err != nil {
		rd.eof = true
		if !errors.Is(err, io.EOF) {
			rd.readErr = fmt.Errorf("read stream: %w", err)
		}
	}
	return nil
}
