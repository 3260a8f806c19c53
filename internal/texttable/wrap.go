package texttable

import (
	"strings"
	"unicode/utf8"
)

// Width is the most columns a line of gobench's text reports takes, so
// that what follows vLLM's block reads on one screen without scrolling
// sideways.
const Width = 100

// Wrap breaks text at spaces into lines of at most width columns (runes),
// the first line starting with first, the others with rest; a word longer
// than a line stays whole. The lines carry no newline.
func Wrap(text string, width int, first, rest string) []string {
	var out []string
	line, n := first, 0
	for _, word := range strings.Fields(text) {
		if n > 0 && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width {
			out = append(out, line)
			line, n = rest, 0
		}
		if n > 0 {
			line += " "
		}
		line += word
		n++
	}
	return append(out, line)
}
