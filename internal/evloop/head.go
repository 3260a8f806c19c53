package evloop

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// maxHead bounds a response head (net/http's default is 1 MiB too).
const maxHead = 1 << 20

// errHead reports a response head gobench cannot read.
var errHead = errors.New("malformed HTTP response")

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
}

// parseHead parses the response head at the start of b. It returns n = 0
// (and no error) while the head is incomplete; otherwise n is the head's
// length, including its blank line. Lines may end with "\r\n" or "\n", as
// net/http accepts.
func parseHead(b []byte) (h head, n int, err error) {
	end := headEnd(b)
	if end < 0 {
		if len(b) > maxHead {
			return head{}, 0, fmt.Errorf("%w: the head is longer than %d bytes", errHead, maxHead)
		}
		return head{}, 0, nil
	}
	lines := b[:end]
	line, rest := nextLine(lines)
	if h, err = parseStatus(line); err != nil {
		return head{}, 0, err
	}
	h.length = -1
	haveLength, closing, keepAlive := false, false, false
	for len(rest) > 0 {
		line, rest = nextLine(rest)
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || len(name) == 0 || !isToken(name) {
			return head{}, 0, fmt.Errorf("%w: header line %q", errHead, line)
		}
		value = bytes.Trim(value, " \t")
		switch {
		case asciiEqualFold(name, "Content-Length"):
			v, err := strconv.ParseInt(string(value), 10, 64)
			if err != nil || v < 0 || (haveLength && v != h.length) {
				return head{}, 0, fmt.Errorf("%w: Content-Length %q", errHead, value)
			}
			h.length, haveLength = v, true
		case asciiEqualFold(name, "Transfer-Encoding"):
			if !asciiEqualFold(value, "chunked") {
				return head{}, 0, fmt.Errorf("%w: unsupported Transfer-Encoding %q", errHead, value)
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
	return h, end, nil
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
// line), or -1 when it has not all arrived.
func headEnd(b []byte) int {
	for i := 0; ; {
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
