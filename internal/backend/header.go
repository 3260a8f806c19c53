package backend

import (
	"fmt"
	"net/http"
	"strings"
)

// droppedHeaders are the headers net/http writes from the request itself
// (its URL, its body) and silently leaves out of Request.Header: asked for
// with --header, they would never be sent.
var droppedHeaders = []string{"Host", "Content-Length", "Transfer-Encoding", "Trailer"}

// Check reports why h cannot be sent as asked: an empty name, a name that
// is not an HTTP token (RFC 9110 section 5.6.2), a value with a control
// character other than a tab (CR and LF would split the request), or a
// header net/http sets itself. These are the rules net/http applies when
// it writes a request (golang.org/x/net/http/httpguts), so a header that
// passes is sent exactly as given. The error names the header, never its
// value, which may be a credential.
func (h Header) Check() error {
	switch {
	case h.Key == "":
		return fmt.Errorf("a header needs a name (got =VALUE)")
	case !isToken(h.Key):
		return fmt.Errorf("header name %q is not an HTTP token (letters, digits and !#$%%&'*+-.^_`|~ only)", h.Key)
	}
	for _, d := range droppedHeaders {
		if strings.EqualFold(h.Key, d) {
			return fmt.Errorf("header %s is set by the HTTP client from the URL and the body; it cannot be overridden", d)
		}
	}
	if err := CheckHeaderValue(h.Value); err != nil {
		return fmt.Errorf("header %s: %w", http.CanonicalHeaderKey(h.Key), err)
	}
	return nil
}

// CheckHeaderValue reports a header value HTTP forbids: one with a control
// character other than a horizontal tab. Such a value (a CR or LF above
// all) would let text after it be read as another header.
func CheckHeaderValue(v string) error {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return fmt.Errorf("the value holds the control character %q at byte %d, which HTTP forbids", c, i)
		}
	}
	return nil
}

// isToken reports whether s is an HTTP token: tchar characters only.
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return s != ""
}
