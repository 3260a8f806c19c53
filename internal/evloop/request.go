package evloop

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// userAgent is what net/http sends when the request sets none.
const userAgent = "Go-http-client/1.1"

// requestHead writes the head of a POST of a bodyLen-byte body to u with
// the headers h, as net/http writes it: the request line, Host,
// User-Agent (h's, else net/http's default), Content-Length, then h's
// other headers by name. net/http takes Host and Content-Length from the
// request itself, never from its headers, and so does this.
func requestHead(u *url.URL, h http.Header, bodyLen int) ([]byte, error) {
	if u.Scheme != "http" {
		return nil, fmt.Errorf("unsupported protocol scheme %q (the epoll engine speaks plain http)", u.Scheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("no Host in request URL %q", u.Redacted())
	}
	var b strings.Builder
	b.Grow(256)
	b.WriteString("POST ")
	b.WriteString(u.RequestURI())
	b.WriteString(" HTTP/1.1\r\nHost: ")
	b.WriteString(strings.TrimSuffix(u.Host, ":"))
	b.WriteString("\r\nUser-Agent: ")
	ua := userAgent
	if v, ok := h["User-Agent"]; ok && len(v) > 0 {
		ua = v[0]
	}
	b.WriteString(ua)
	b.WriteString("\r\nContent-Length: ")
	b.WriteString(strconv.Itoa(bodyLen))
	b.WriteString("\r\n")
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch http.CanonicalHeaderKey(k) {
		case "Host", "Content-Length", "User-Agent", "Transfer-Encoding", "Trailer":
			continue
		}
		if !isToken([]byte(k)) {
			return nil, fmt.Errorf("invalid header field name %q", k)
		}
		for _, v := range h[k] {
			if strings.ContainsAny(v, "\r\n\x00") {
				return nil, fmt.Errorf("invalid header field value for %q", k)
			}
			b.WriteString(k)
			b.WriteString(": ")
			b.WriteString(strings.Trim(v, " \t"))
			b.WriteString("\r\n")
		}
	}
	b.WriteString("\r\n")
	return []byte(b.String()), nil
}
