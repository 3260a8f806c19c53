package cli

import (
	"strings"

	"github.com/gobench/gobench/internal/argparse"
	"github.com/gobench/gobench/internal/redact"
)

// secretEnv names the environment variables gobench reads whose values are
// secrets: a value of one of them that appears in the command line (pasted
// into a --header, say) is redacted wherever it is. It is read-only.
var secretEnv = [...]string{"OPENAI_API_KEY", "HF_TOKEN"}

// minSecretLen is the shortest environment value redacted: a shorter one
// would match ordinary text and garble the command line, and is no real
// key.
const minSecretLen = 8

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
				a = strings.ReplaceAll(a, v, redact.Mark)
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
		return redact.URL(a)
	case val == argparse.EmptyList:
		return "--" + name
	case name == "header":
		if k, _, ok := strings.Cut(val, "="); ok && redact.IsCredential(k) {
			return "--header=" + k + "=" + redact.Mark
		}
	}
	return "--" + name + "=" + redact.URL(val)
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
