package argparse

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/spf13/pflag"
)

// SuggestFlag is " (did you mean --NAME?)" for the flag of fs nearest to
// the unknown one typed (see Nearest; underscores count as dashes and case
// does not count), hidden ones (vLLM's, not supported yet) included, or ""
// when none is near: argparse's error for an unknown flag ends with it.
func SuggestFlag(fs *pflag.FlagSet, typed string) string {
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	if near := Nearest(strings.ReplaceAll(strings.ToLower(typed), "_", "-"), names); near != "" {
		return " (did you mean --" + near + "?)"
	}
	return ""
}

// Nearest returns the name closest to typed when it is close enough to be
// a slip (edit distance, a swap of neighbours counting one, of at most
// maxSlips), else the only name that holds typed (--prompts for
// --num-prompts; of several, the only one that ends with it), else "".
// Ties go to the first name.
func Nearest(typed string, names []string) string {
	best, bestDist := "", maxSlips(typed)+1
	for _, n := range names {
		if d := editDistance(typed, n); d < bestDist {
			best, bestDist = n, d
		}
	}
	if best != "" {
		return best
	}
	var holding []string
	for _, n := range names {
		if utf8.RuneCountInString(typed) >= 4 && strings.Contains(n, typed) {
			holding = append(holding, n)
		}
	}
	if len(holding) > 1 {
		// --prompts: --num-prompts, which ends with the word, rather than
		// --sweep-num-prompts-factor.
		holding = slices.DeleteFunc(holding, func(n string) bool { return !strings.HasSuffix(n, "-"+typed) })
	}
	if len(holding) == 1 {
		return holding[0]
	}
	return ""
}

// maxSlips is how many edits a name of that length may be away from the
// one meant: 1 up to 3 characters, 2 up to 7, then 3.
func maxSlips(typed string) int {
	return min(3, 1+utf8.RuneCountInString(typed)/4)
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of adjacent characters,
// each counting one (the restricted Damerau–Levenshtein distance).
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// prev2, prev and cur are rows i-2, i-1 and i of the distance matrix.
	prev2, prev, cur := make([]int, len(t)+1), make([]int, len(t)+1), make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}
