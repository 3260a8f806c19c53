// Package redact hides credentials in text gobench saves or prints: the
// user and password of a URL, the values of credential-looking query
// parameters and header names. It is the one rule for every place a URL
// or header can reach a result file, a log line or an error message (the
// saved command line and arguments, --base-url and --metrics-url errors),
// so that no path keeps a secret another path hides.
package redact

import "strings"

// Mark stands for a hidden secret.
const Mark = "<redacted>"

// credentialWords mark a header or URL query parameter whose value is a
// credential: Authorization, X-API-Key, Cookie, access_token, a signed
// URL's Signature, ... It is read-only.
var credentialWords = [...]string{"auth", "key", "token", "secret", "passw", "cookie", "credential", "session", "signature"}

// IsCredential reports whether a header or parameter name looks like one
// that carries a credential.
func IsCredential(name string) bool {
	lower := strings.ToLower(name)
	for _, w := range credentialWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// URL hides the user and password of a URL (https://u:p@h becomes
// https://<redacted>@h) and the values of its credential-looking query
// parameters; other text is returned as it is. It works on the text, not
// on a parsed URL, so that a URL that does not parse keeps no secret
// either and one that does keeps its exact spelling.
func URL(s string) string {
	scheme := strings.Index(s, "://")
	if scheme < 0 {
		return s
	}
	authority := s[scheme+3:]
	if end := strings.IndexAny(authority, "/?#"); end >= 0 {
		authority = authority[:end]
	}
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		s = s[:scheme+3] + Mark + s[scheme+3+at:]
	}
	q := strings.IndexByte(s, '?')
	if q < 0 {
		return s
	}
	query, fragment := s[q+1:], ""
	if h := strings.IndexByte(query, '#'); h >= 0 {
		query, fragment = query[:h], query[h:]
	}
	params := strings.Split(query, "&")
	for i, p := range params {
		if k, _, ok := strings.Cut(p, "="); ok && IsCredential(k) {
			params[i] = k + "=" + Mark
		}
	}
	return s[:q+1] + strings.Join(params, "&") + fragment
}
