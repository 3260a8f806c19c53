package evloop

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/gobench/gobench/internal/redirect"
)

// notFollowed is why the epoll engine did not follow a redirect that
// net/http's path would have followed (package redirect allows it).
const notFollowed = "the epoll client engine follows no redirect (--client-engine net/http follows this one)"

// redirectError is the record's error for an answer with status code and
// status line status ("302 Found") and Location location to a POST of
// reqURL, or "" when the answer is no redirect to net/http (not 301, 302,
// 303, 307 or 308, or no Location): its record is then backend.StatusError's.
//
// The epoll engine follows no redirect, so every redirect fails the
// request; its error is net/http's for the same answer where net/http
// does not follow it either (package redirect's rule, a Location that
// does not parse), and names the status and the Location the same way
// where net/http would follow it (a same-origin 307 or 308).
func redirectError(reqURL string, code int, status, location string) string {
	method := http.MethodPost
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther:
		// net/http turns a POST into a GET on these.
		method = http.MethodGet
	case http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
	default:
		return ""
	}
	if location == "" {
		return ""
	}
	from, err := url.Parse(reqURL)
	if err != nil {
		// prepare parsed it before it was sent.
		return ""
	}
	to, err := from.Parse(location)
	if err != nil {
		return (&url.Error{Op: "Post", URL: reqURL, Err: fmt.Errorf("failed to parse Location header %q: %w", location, err)}).Error()
	}
	next := &http.Request{Method: method, URL: to, Response: &http.Response{Status: status}}
	if err := redirect.Check(next, []*http.Request{{Method: http.MethodPost, URL: from}}); err != nil {
		return err.Error()
	}
	return (&redirect.Error{Method: http.MethodPost, Status: status, Location: to.Redacted(), Reason: notFollowed}).Error()
}
