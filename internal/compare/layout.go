package compare

import (
	"strings"
	"unicode/utf8"
)

// MaxWidth is the widest line compare prints as text: a terminal's usual
// width, so that no table wraps into an unreadable tangle.
const MaxWidth = 100

// textWidth is the number of columns s takes (one per rune: the output
// is ASCII but for − and →).
func textWidth(s string) int { return utf8.RuneCountInString(s) }

// widths are the widths of the table's columns.
func (t *table) widths() []int {
	w := make([]int, len(t.header))
	for _, r := range append([][]string{t.header}, t.rows...) {
		for i, c := range r {
			w[i] = max(w[i], textWidth(c))
		}
	}
	return w
}

// fits reports whether the table prints within MaxWidth as one table.
func (t *table) fits() bool {
	w := t.widths()
	all := make([]int, len(w))
	for i := range all {
		all[i] = i
	}
	return lineWidth(w, all) <= MaxWidth
}

// lineWidth is the width of an aligned line of the columns cols.
func lineWidth(w []int, cols []int) int {
	n := 2 * (len(cols) - 1)
	for _, c := range cols {
		n += w[c]
	}
	return n
}

// fitText prints the table aligned within MaxWidth: as one table when it
// fits, else in panels that each repeat the first column (the key) with
// as many of the others as fit, the way wide data frames print; a column
// too wide even beside the key stacks under it.
func (t *table) fitText(b *strings.Builder) {
	if t.fits() {
		t.text(b)
		return
	}
	w := t.widths()
	for i, cols := range panels(w) {
		if i > 0 {
			b.WriteString("\n")
		}
		sub := t.columns(cols)
		if lineWidth(w, cols) <= MaxWidth {
			sub.text(b)
		} else {
			sub.stacked(b)
		}
	}
}

// panels groups the columns after the first, in order, into panels that
// fit MaxWidth beside the first; a column that fits nowhere is a panel of
// its own.
func panels(w []int) [][]int {
	var out [][]int
	cur := []int{0}
	for c := 1; c < len(w); c++ {
		if len(cur) > 1 && lineWidth(w, append(cur, c)) > MaxWidth {
			out = append(out, cur)
			cur = []int{0}
		}
		cur = append(cur, c)
	}
	return append(out, cur)
}

// columns is the table of the columns cols.
func (t *table) columns(cols []int) *table {
	pick := func(r []string) []string {
		out := make([]string, len(cols))
		for i, c := range cols {
			out[i] = r[c]
		}
		return out
	}
	s := &table{header: pick(t.header), right: make([]bool, len(cols))}
	for i, c := range cols {
		s.right[i] = t.right[c]
	}
	for _, r := range t.rows {
		s.rows = append(s.rows, pick(r))
	}
	return s
}

// stacked prints each row as its first cell on a line and the other
// cells, "header: value", indented and wrapped under it.
func (t *table) stacked(b *strings.Builder) {
	for _, r := range t.rows {
		b.WriteString(r[0] + "\n")
		for i, c := range r[1:] {
			if c != "" {
				b.WriteString(wrap(t.header[i+1]+": "+c, "    ", "      "))
			}
		}
	}
}

// wrap breaks text at spaces into lines of at most MaxWidth columns, the
// first starting with first, the others with rest; a word longer than a
// line stays whole. Each line ends in a newline.
func wrap(text, first, rest string) string {
	var b strings.Builder
	line, n := first, 0
	for _, word := range strings.Fields(text) {
		if n > 0 && textWidth(line)+1+textWidth(word) > MaxWidth {
			b.WriteString(line + "\n")
			line, n = rest, 0
		}
		if n > 0 {
			line += " "
		}
		line += word
		n++
	}
	b.WriteString(line + "\n")
	return b.String()
}

// wrapLines wraps every line of text (wrap), continuing with an indent of
// two.
func wrapLines(text string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if textWidth(l) <= MaxWidth {
			b.WriteString(l + "\n")
			continue
		}
		b.WriteString(wrap(l, "", "  "))
	}
	return b.String()
}
