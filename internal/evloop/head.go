package evloop

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// maxHead bounds the heads of one answer, its interim (1xx) heads
// included: net/http's Transport reads that much at most when its
// MaxResponseHeaderBytes is unset (10 MiB), and gobench's transport
// (run.NewTransport) leaves it unset, so both engines take the same heads.
const maxHead = 10 << 20

// errHead reports a response head gobench cannot read.
var errHead = errors.New("malformed HTTP response")

// errHeadTooLarge reports heads longer than maxHead in the words of
// net/http's record for the same answer, so a run's failures read the
// same on both engines.
var errHeadTooLarge = connBroken(fmt.Errorf("net/http: server response headers exceeded %d bytes; aborted", maxHead))

// connBroken wraps err, which ended a connection after the first byte of
// an answer and before the end of its head, as net/http's Transport does,
// so that both engines' records say the same.
func connBroken(err error) error {
	return fmt.Errorf("net/http: HTTP/1.x transport connection broken: %w", err)
}

// head is what gobench reads of a response head.
type head struct {
	// code is the status code; status the status line after the protocol
	// ("200 OK"), as net/http's Response.Status.
	code   int
	status string
	// chunked: the body has chunked transfer-encoding; otherwise length
	// is its Content-Length, or -1 when it runs to the end of the
	// connection.
	chunked bool
	length  int64
	// close: the connection cannot carry another request after this one.
	close bool
	// dates are the Date header values (backend.ServerClock).
	dates []string
	// location is the first Location header's value (a redirect's
	// target, as net/http's Header.Get reads it).
	location string
}

// parseHead parses the response head at the start of b, which may be at
// most limit bytes long (errHeadTooLarge otherwise, as soon as that is
// certain). It returns n = 0 (and no error) while the head is incomplete;
// otherwise n is the head's length, including its blank line. Lines may
// end with "\r\n" or "\n", as net/http accepts. The search for the head's
// end starts at from (see headEnd): 0, or where the caller's last call on
// a shorter b stopped, so that a head arriving in many reads is not
// searched again from its start at each.
func parseHead(b []byte, from, limit int) (h head, n int, err error) {
	end := headEnd(b, from)
	switch {
	case end > limit, end < 0 && len(b) > limit:
		return head{}, 0, errHeadTooLarge
	case end < 0:
		return head{}, 0, nil
	}
	if h, err = parseLines(b[:end]); err != nil {
		return head{}, 0, err
	}
	return h, end, nil
}

// resumeAt is where the next search for the end of a head starts, once
// more bytes than the n searched have arrived (headEnd).
func resumeAt(n int) int { return max(n-2, 0) }

// parseLines parses a whole head, lines through the blank line.
func parseLines(lines []byte) (h head, err error) {
	line, rest := nextLine(lines)
	if h, err = parseStatus(line); err != nil {
		return head{}, err
	}
	h.length = -1
	haveLength, haveLocation, closing, keepAlive := false, false, false, false
	for len(rest) > 0 {
		line, rest = nextLine(rest)
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || len(name) == 0 || !isToken(name) {
			return head{}, fmt.Errorf("%w: header line %q", errHead, line)
		}
		value = bytes.Trim(value, " \t")
		switch {
		case asciiEqualFold(name, "Content-Length"):
			v, err := strconv.ParseInt(string(value), 10, 64)
			if err != nil || v < 0 || (haveLength && v != h.length) {
				return head{}, fmt.Errorf("%w: Content-Length %q", errHead, value)
			}
			h.length, haveLength = v, true
		case asciiEqualFold(name, "Transfer-Encoding"):
			if !asciiEqualFold(value, "chunked") {
				return head{}, fmt.Errorf("%w: unsupported Transfer-Encoding %q", errHead, value)
			}
			h.chunked = true
		case asciiEqualFold(name, "Connection"):
			for _, tok := range bytes.Split(value, []byte(",")) {
				tok = bytes.Trim(tok, " \t")
				closing = closing || asciiEqualFold(tok, "close")
				keepAlive = keepAlive || asciiEqualFold(tok, "keep-alive")
			}
		case asciiEqualFold(name, "Date"):
			h.dates = append(h.dates, string(value))
		case asciiEqualFold(name, "Location") && !haveLocation:
			h.location, haveLocation = string(value), true
		}
	}
	// An HTTP/1.0 answer closes its connection unless it says keep-alive
	// (parseStatus set close for it).
	h.close = closing || (h.close && !keepAlive)
	if h.chunked {
		// RFC 9112 §6.3: Transfer-Encoding overrides Content-Length.
		h.length = -1
	}
	if h.code == 204 || h.code == 304 || (h.code >= 100 && h.code < 200) {
		h.chunked, h.length = false, 0
	}
	if h.length < 0 && !h.chunked {
		h.close = true
	}
	return h, nil
}

// parseStatus parses "HTTP/1.1 200 OK". An HTTP/1.0 answer closes its
// connection unless it says keep-alive (parseHead).
func parseStatus(line []byte) (head, error) {
	var h head
	proto, status, ok := bytes.Cut(line, []byte(" "))
	if !ok || !bytes.HasPrefix(proto, []byte("HTTP/1.")) || len(proto) != len("HTTP/1.1") || proto[7] < '0' || proto[7] > '9' {
		return h, fmt.Errorf("%w: status line %q", errHead, line)
	}
	status = bytes.TrimLeft(status, " ")
	if len(status) < 3 || (len(status) > 3 && status[3] != ' ') {
		return h, fmt.Errorf("%w: status line %q", errHead, line)
	}
	for _, c := range status[:3] {
		if c < '0' || c > '9' {
			return h, fmt.Errorf("%w: status line %q", errHead, line)
		}
		h.code = 10*h.code + int(c-'0')
	}
	if h.code < 100 {
		return h, fmt.Errorf("%w: status line %q", errHead, line)
	}
	h.status = string(status)
	h.close = proto[7] == '0'
	return h, nil
}

// headEnd is the length of the head at the start of b (through its blank
// line), or -1 when it has not all arrived. The search starts at from: a
// line end before resumeAt(n) of an earlier search of n bytes was not the
// head's end (the two bytes after it had arrived and did not end it).
func headEnd(b []byte, from int) int {
	for i := max(from, 0); ; {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return -1
		}
		j += i
		if j+1 < len(b) && b[j+1] == '\n' {
			return j + 2
		}
		if j+2 < len(b) && b[j+1] == '\r' && b[j+2] == '\n' {
			return j + 3
		}
		i = j + 1
	}
}

// nextLine splits b after its first line, which it returns without its
// "\r\n" or "\n".
func nextLine(b []byte) (line, rest []byte) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil
	}
	line, rest = b[:i], b[i+1:]
	return bytes.TrimSuffix(line, []byte("\r")), rest
}

// isToken reports whether b is an RFC 9110 token (a header name).
func isToken(b []byte) bool {
	for _, c := range b {
		if c <= ' ' || c >= 0x7f || bytes.IndexByte([]byte(`"(),/:;<=>?@[\]{}`), c) >= 0 {
			return false
		}
	}
	return true
}

// asciiEqualFold is strings.EqualFold for ASCII, without converting b.
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
