package stream

import (
	"errors"
	"fmt"
	"io"
)

// Push mode: an event loop that owns the socket reads and hands the body to
// the Reader (Feed, then End), instead of the Reader pulling from an
// io.Reader. Both modes share the line, tail and end-of-body rules, so they
// yield the same events for the same bytes split the same way
// (FuzzPushPull).

// ResetPush makes the Reader take its input from Feed and End, keeping its
// buffers.
func (rd *Reader) ResetPush() {
	rd.Reset(nil)
}

// Feed takes the next bytes of the body, which need not stay valid after
// it returns (the loop's read buffer is shared), and calls emit with each
// event they complete, in order; the event's Data is valid only during the
// call. emit returns false to stop: Feed then returns at once, leaving the
// rest unparsed (the request ended, at [DONE] or on an error event). Feed's
// error is ErrEventTooLarge, wrapped.
func (rd *Reader) Feed(p []byte, emit func(Event) bool) error {
	if rd.pos > 0 {
		// Compact first, so that the buffer holds only the unparsed tail
		// of the previous feeds (an event's partial line).
		copy(rd.buf, rd.buf[rd.pos:rd.end])
		rd.end -= rd.pos
		rd.pos = 0
	}
	if need := rd.end + len(p); need > len(rd.buf) {
		nb := make([]byte, max(need, 2*len(rd.buf)))
		copy(nb, rd.buf[:rd.end])
		rd.buf = nb
	}
	rd.end += copy(rd.buf[rd.end:], p)
	for {
		ev, ok := rd.parseLines()
		if !ok {
			ev, ok = rd.tail()
		}
		if !ok {
			break
		}
		if !emit(ev) {
			return nil
		}
	}
	// What is left is one unterminated line plus the pending event's data:
	// the pull Reader's bound on its buffer.
	if rd.end-rd.pos > rd.max+1 || len(rd.data) > rd.max {
		return fmt.Errorf("%w (%d bytes)", ErrEventTooLarge, rd.max)
	}
	return nil
}

// End ends the body: it calls emit with the events the end completes (an
// unterminated final event that is complete) and returns nil for a
// well-formed end, ErrTruncated (wrapped) for a body that ended inside an
// incomplete event, or readErr wrapped as Next wraps a transport error,
// after the events received before it. emit returning false stops End
// with nil.
func (rd *Reader) End(readErr error, emit func(Event) bool) error {
	rd.eof = true
	if readErr != nil && !errors.Is(readErr, io.EOF) {
		rd.readErr = fmt.Errorf("read stream: %w", readErr)
	}
	for {
		ev, ok := rd.parseLines()
		if !ok {
			ev, ok = rd.tail()
		}
		if !ok {
			var err error
			ev, err = rd.finish()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
		}
		if !emit(ev) {
			return nil
		}
	}
}
