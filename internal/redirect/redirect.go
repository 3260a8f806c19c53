// Package redirect is the one rule for the HTTP redirects that gobench's
// requests to the benchmarked server may follow: the benchmark requests
// (package backend) and the side calls (package serverapi) both carry the
// user's --header values and the API key's Authorization, so where they
// may be sent again is a question of secrets, not of convenience.
//
// The rule:
//
//   - A redirect to another origin (scheme, host name or port differ) is
//     not followed. Go's http.Client drops Authorization only when the host
//     name changes (not the port, not for a sub-domain) and always re-sends
//     every other header, so an X-Api-Key given with --header would reach
//     whatever host the Location names.
//   - A redirect that would change the method is not followed: Go turns a
//     POST answered with 301, 302 or 303 into a GET without its body, which
//     some servers answer with 200, and a benchmark request would be
//     counted as a success it never was.
//   - A same-origin 307 or 308 is followed, with the body sent again, and
//     so is a same-origin 301, 302 or 303 of a GET (the side calls'
//     /v1/models, /metrics, /tokenizer_info), up to 10 hops as Go's
//     default.
//
// A redirect not followed fails the request with an *Error naming the
// status and the Location. vLLM's client (aiohttp) follows every redirect,
// headers included: this is one of the places gobench differs on purpose.
//
// The Hugging Face download client (package tokenizer/hub) is not bound by
// this rule: the Hub sends large files to its CDN, on another host, and
// its only secret, HF_TOKEN, is dropped from any redirect that leaves the
// Hub's origin.
package redirect

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// maxHops is how many redirects one request may follow (Go's default).
const maxHops = 10

// Error is a redirect that was not followed.
type Error struct {
	// Method is the request's method, Status the redirect's status line
	// (e.g. "307 Temporary Redirect").
	Method, Status string
	// Location is where the redirect pointed, resolved, with any password
	// redacted.
	Location string
	// Reason says why it was not followed.
	Reason string
}

// Error names the status, the Location and the reason.
func (e *Error) Error() string {
	return fmt.Sprintf("redirect not followed: HTTP %s to %s: %s", e.Status, e.Location, e.Reason)
}

// Check is an http.Client CheckRedirect that applies the package's rule;
// the error it returns reaches the caller of Client.Do wrapped in a
// *url.Error.
func Check(req *http.Request, via []*http.Request) error {
	first := via[0]
	e := &Error{Method: first.Method, Location: req.URL.Redacted()}
	if req.Response != nil {
		e.Status = req.Response.Status
	}
	switch {
	case !sameOrigin(req.URL, first.URL):
		e.Reason = "it points to another host, which would receive the request's headers (--header, the API key)"
	case req.Method != first.Method:
		e.Reason = fmt.Sprintf("following it would turn the %s into a %s", first.Method, req.Method)
	case len(via) >= maxHops:
		e.Reason = fmt.Sprintf("stopped after %d redirects", maxHops)
	default:
		return nil
	}
	return e
}

// Client returns a copy of hc (nil means http.DefaultClient) whose
// redirects follow Check, so a caller cannot hand in a client that leaks
// the headers.
func Client(hc *http.Client) *http.Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	c := *hc
	c.CheckRedirect = Check
	return &c
}

// sameOrigin reports whether a and b have the same scheme, host name and
// port (the default port of the scheme when none is written).
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) &&
		strings.EqualFold(a.Hostname(), b.Hostname()) &&
		port(a) == port(b)
}

// port is u's port, or its scheme's default.
func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}
