package gate

import (
	"slices"
	"strings"

	"github.com/gobench/gobench/internal/argparse"
)

// Suggest returns the key among candidates that a mistyped key most
// likely meant: the same "_"-separated words in another order
// (ttft_p99_ms for p99_ttft_ms), else the nearest by the rule that
// suggests flags (argparse.Nearest: a slip of a few edits, or the one key
// that holds it); "" for a key candidates hold, or none near.
func Suggest(key string, candidates []string) string {
	if key == "" || slices.Contains(candidates, key) {
		return ""
	}
	for _, c := range candidates {
		if sameWords(key, c) {
			return c
		}
	}
	return argparse.Nearest(strings.ToLower(key), candidates)
}

// sameWords reports whether a and b are the same "_"-separated words in
// another order.
func sameWords(a, b string) bool {
	wa, wb := strings.Split(strings.ToLower(a), "_"), strings.Split(strings.ToLower(b), "_")
	slices.Sort(wa)
	slices.Sort(wb)
	return len(wa) > 1 && slices.Equal(wa, wb)
}
