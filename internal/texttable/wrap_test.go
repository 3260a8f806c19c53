package texttable

import (
	"slices"
	"strings"
	"testing"
)

func TestWrap(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text  string
		width int
		want  []string
	}{
		{"short line", 20, []string{"> short line"}},
		{"one two three four five", 12, []string{"> one two", "  three four", "  five"}},
		{"a " + strings.Repeat("x", 30) + " b", 10, []string{"> a", "  " + strings.Repeat("x", 30), "  b"}},
		{"", 10, []string{"> "}},
		{"é é é é", 5, []string{"> é é", "  é é"}},
	} {
		if got := Wrap(tc.text, tc.width, "> ", "  "); !slices.Equal(got, tc.want) {
			t.Errorf("Wrap(%q, %d) = %q, want %q", tc.text, tc.width, got, tc.want)
		}
	}
}
