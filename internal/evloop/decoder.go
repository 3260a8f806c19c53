package evloop

import (
	"errors"
	"fmt"
)

// errChunked reports a chunked body gobench cannot read.
var errChunked = errors.New("malformed chunked encoding")

// maxChunkLine bounds a chunk-size line with its extensions, and a trailer
// line (net/http's chunked reader allows 4 KiB).
const maxChunkLine = 4 << 10

// The states of a chunked decoder.
const (
	chunkSize    = iota // reading the hex size
	chunkExt            // skipping the extensions (or whitespace) to the line's end
	chunkSizeLF         // after "\r" of the size line
	chunkData           // inside a chunk's data
	chunkDataCR         // expecting "\r" after the data
	chunkDataLF         // expecting "\n" after the data
	chunkTrailer        // inside the trailer section, at a line's start
	chunkTrailerLine
	chunkDone
)

// chunked decodes a body with chunked transfer-encoding (RFC 9112 §7.1),
// as bytes arrive: no input is kept between calls, so a size line split
// across reads costs nothing.
type chunked struct {
	state int
	// size is the current chunk's size while reading it, then what is
	// left of its data.
	size int64
	// digits counts the size's hex digits; line the bytes of the current
	// size or trailer line.
	digits, line int
}

// decode decodes p in place: the data it holds is moved to p[:n]. used is
// how many bytes of p belong to the body (all of p unless the body ended
// in it), and done reports the body's end (the last chunk and the
// trailer's blank line).
func (d *chunked) decode(p []byte) (n, used int, done bool, err error) {
	i := 0
	for i < len(p) {
		if d.state == chunkData {
			k := int(min(d.size, int64(len(p)-i)))
			n += copy(p[n:], p[i:i+k])
			i += k
			if d.size -= int64(k); d.size == 0 {
				d.state = chunkDataCR
			}
			continue
		}
		c := p[i]
		i++
		if err := d.step(c); err != nil {
			return n, i, false, err
		}
		if d.state == chunkDone {
			return n, i, true, nil
		}
	}
	return n, i, false, nil
}

// step takes one byte outside a chunk's data.
func (d *chunked) step(c byte) error {
	switch d.state {
	case chunkSize, chunkExt:
		d.line++
		if d.line > maxChunkLine {
			return fmt.Errorf("%w: chunk size line too long", errChunked)
		}
		if c == '\r' || c == '\n' {
			if d.digits == 0 {
				return fmt.Errorf("%w: no chunk size", errChunked)
			}
			d.state = chunkSizeLF
			if c == '\n' {
				d.endSize()
			}
			return nil
		}
		if d.state == chunkExt {
			return nil
		}
		v, ok := unhex(c)
		switch {
		case ok:
			if d.digits == 15 {
				return fmt.Errorf("%w: chunk size too large", errChunked)
			}
			d.size = d.size<<4 | int64(v)
			d.digits++
		case c == ';' || c == ' ' || c == '\t':
			d.state = chunkExt
		default:
			return fmt.Errorf("%w: invalid byte %q in chunk length", errChunked, c)
		}
	case chunkSizeLF:
		if c != '\n' {
			return fmt.Errorf("%w: chunk size line", errChunked)
		}
		d.endSize()
	case chunkDataCR:
		// No more than net/http says, so the records' errors are equal.
		if c != '\r' {
			return errChunked
		}
		d.state = chunkDataLF
	case chunkDataLF:
		if c != '\n' {
			return errChunked
		}
		d.state, d.size, d.digits, d.line = chunkSize, 0, 0, 0
	case chunkTrailer, chunkTrailerLine:
		d.line++
		if d.line > maxChunkLine {
			return fmt.Errorf("%w: trailer line too long", errChunked)
		}
		switch {
		case c == '\n' && d.state == chunkTrailer:
			d.state = chunkDone
		case c == '\n':
			d.state, d.line = chunkTrailer, 0
		case c == '\r' && d.state == chunkTrailer:
			// The blank line's "\r": its "\n" follows.
		default:
			d.state = chunkTrailerLine
		}
	}
	return nil
}

// endSize ends a size line: data follows, or the trailer after the last
// (zero-size) chunk.
func (d *chunked) endSize() {
	d.line = 0
	if d.size == 0 {
		d.state = chunkTrailer
		return
	}
	d.state = chunkData
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
