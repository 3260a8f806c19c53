package sweep

import (
	"errors"
	"strings"
)

// Split splits a command line into words as Python's shlex.split does (POSIX
// mode, no comments), which is how vLLM reads --serve-cmd, --bench-cmd and
// --after-bench-cmd (vllm/benchmarks/sweep/serve.py@11dfa3169): spaces
// separate words; single quotes keep everything; double quotes keep
// everything but a backslash before \ or "; outside quotes a backslash
// keeps the next character. No shell ever sees the command.
func Split(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch r {
		case ' ', '\t', '\n', '\r':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case '\\':
			if i+1 >= len(rs) {
				return nil, errors.New("no escaped character")
			}
			i++
			w.WriteRune(rs[i])
			inWord = true
		case '\'', '"':
			end, err := quoted(rs, i, &w)
			if err != nil {
				return nil, err
			}
			i = end
			inWord = true
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// quoted copies the quoted text that starts at rs[start] into w and
// returns the index of its closing quote.
func quoted(rs []rune, start int, w *strings.Builder) (int, error) {
	q := rs[start]
	for i := start + 1; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == q:
			return i, nil
		case q == '"' && r == '\\' && i+1 < len(rs) && (rs[i+1] == '\\' || rs[i+1] == '"'):
			i++
			w.WriteRune(rs[i])
		default:
			w.WriteRune(r)
		}
	}
	return 0, errors.New("no closing quotation")
}
