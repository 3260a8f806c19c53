package cli

import (
	"strings"

	"github.com/gobench/gobench/internal/argparse"
)

// secretEnv names the environment variables gobench reads whose values are
// secrets: a value of one of them that appears in the command line (pasted
// into a --header, say) is redacted wherever it is. It is read-only.
var secretEnv = [...]string{"OPENAI_API_KEY", "HF_TOKEN"}

// minSecretLen is the shortest environment value redacted: a shorter one
// would match ordinary text and garble the command line, and is no real
// key.
const minSecretLen = 8

// redacted stands for a secret in the saved command line.
const redacted = "<redacted>"

// credentialWords mark a header or URL query parameter whose value is a
// credential: Authorization, X-API-Key, Cookie, access_token, ... It is
// read-only.
var credentialWords = [...]string{"auth", "key", "token", "secret", "passw", "cookie", "credential", "session", "signature"}

// commandLine is the command line saved in the result's gobench_workload:
// "gobench", then args as normalizeFor rewrote them (each flag as
// --name=value, in the order given), shell-quoted where needed, with the
// secrets redacted: the values of credential-looking --header names, user
// and password in URLs and credential-looking query parameters, and the
// values of secretEnv wherever they appear.
func commandLine(args []string, getenv func(string) string) string {
	words := make([]string, 0, len(args)+1)
	words = append(words, "gobench")
	for _, a := range args {
		a = redactArg(a)
		for _, name := range secretEnv {
			if v := getenv(name); len(v) >= minSecretLen {
				a = strings.ReplaceAll(a, v, redacted)
			}
		}
		words = append(words, shellQuote(a))
	}
	return strings.Join(words, " ")
}

// redactArg hides the secrets of one normalized argument.
func redactArg(a string) string {
	name, val, ok := strings.Cut(strings.TrimPrefix(a, "--"), "=")
	switch {
	case !strings.HasPrefix(a, "--") || !ok:
		return redactURL(a)
	case val == argparse.EmptyList:
		return "--" + name
	case name == "header":
		if k, _, ok := strings.Cut(val, "="); ok && isCredential(k) {
			return "--header=" + k + "=" + redacted
		}
	}
	return "--" + name + "=" + redactURL(val)
}

// isCredential reports whether a header or parameter name looks like one
// that carries a credential.
func isCredential(name string) bool {
	lower := strings.ToLower(name)
	for _, w := range credentialWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// redactURL hides the user and password of a URL and the values of its
// credential-looking query parameters; other text is returned as it is.
// It works on the text, so that a URL that does not parse keeps no secret
// either.
func redactURL(s string) string {
	scheme := strings.Index(s, "://")
	if scheme < 0 {
		return s
	}
	authority := s[scheme+3:]
	if end := strings.IndexAny(authority, "/?#"); end >= 0 {
		authority = authority[:end]
	}
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		s = s[:scheme+3] + redacted + s[scheme+3+at:]
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
		if k, _, ok := strings.Cut(p, "="); ok && isCredential(k) {
			params[i] = k + "=" + redacted
		}
	}
	return s[:q+1] + strings.Join(params, "&") + fragment
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// letters, digits and -_./:=,+@%^.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,+@%^", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
