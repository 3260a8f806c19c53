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
	if rd.pos == rd.end {
		return rd.feedInPlace(p, emit)
	}
	// An unterminated line of earlier feeds waits in the buffer: p joins
	// it there.
	rd.ownData()
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
	err := rd.parseFed(emit)
	rd.ownData()
	return err
}

// feedInPlace is Feed when nothing earlier is left unparsed, the usual
// case (a read ends where an event does): p is parsed where it lies, and
// only what it leaves unparsed is copied into the Reader's buffer, so an
// event's bytes are not first copied into per-stream memory that is cold
// by the time the stream's next event comes.
func (rd *Reader) feedInPlace(p []byte, emit func(Event) bool) error {
	own := rd.buf
	rd.buf, rd.pos, rd.end = p, 0, len(p)
	err := rd.parseFed(emit)
	// p is the caller's again once Feed returns: keep a copy of what the
	// next feed still needs.
	rd.ownData()
	rest := p[rd.pos:rd.end]
	if len(rest) > len(own) {
		own = make([]byte, max(len(rest), 2*len(own)))
	}
	rd.buf, rd.pos, rd.end = own, 0, copy(own, rest)
	return err
}

// parseFed calls emit with each event the buffered input completes, until
// emit returns false, and checks the bound on what is left.
func (rd *Reader) parseFed(emit func(Event) bool) error {
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
