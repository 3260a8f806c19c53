package liveview

import (
	"strconv"
	"strings"
)

// screen is a small terminal: what the view's bytes leave on the screen
// when the terminal interprets them (text, "\r", "\n", and the sequences
// the view writes: cursor up, erase down, erase line, cursor shown or
// hidden). A sequence it does not know fails the test that uses it.
type screen struct {
	rows     [][]rune
	row, col int
	hidden   bool
	unknown  []string
}

// write interprets s.
func (sc *screen) write(s string) {
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		switch c := rs[i]; c {
		case '\r':
			sc.col = 0
		case '\n':
			sc.row++
			sc.col = 0 // the pty's onlcr, and the view writes "\n" only at a line's end
		case 0x1b:
			i = sc.escape(rs, i)
		default:
			sc.put(c)
		}
	}
}

// escape interprets the CSI sequence at rs[i] and returns its last index.
func (sc *screen) escape(rs []rune, i int) int {
	j := i + 2
	for j < len(rs) && (rs[j] < 0x40 || rs[j] > 0x7e) {
		j++
	}
	if i+1 >= len(rs) || rs[i+1] != '[' || j >= len(rs) {
		sc.unknown = append(sc.unknown, string(rs[i:]))
		return len(rs)
	}
	param, final := string(rs[i+2:j]), rs[j]
	switch {
	case final == 'A':
		n, _ := strconv.Atoi(param)
		sc.row = max(0, sc.row-max(1, n))
	case final == 'J':
		sc.line()
		sc.rows[sc.row] = sc.rows[sc.row][:min(sc.col, len(sc.rows[sc.row]))]
		sc.rows = sc.rows[:sc.row+1]
	case final == 'K':
		sc.line()
		sc.rows[sc.row] = sc.rows[sc.row][:min(sc.col, len(sc.rows[sc.row]))]
	case param == "?25" && (final == 'l' || final == 'h'):
		sc.hidden = final == 'l'
	default:
		sc.unknown = append(sc.unknown, string(rs[i:j+1]))
	}
	return j
}

// line makes the cursor's row exist.
func (sc *screen) line() {
	for len(sc.rows) <= sc.row {
		sc.rows = append(sc.rows, nil)
	}
}

// put writes c at the cursor.
func (sc *screen) put(c rune) {
	sc.line()
	r := sc.rows[sc.row]
	for len(r) <= sc.col {
		r = append(r, ' ')
	}
	r[sc.col] = c
	sc.rows[sc.row] = r
	sc.col++
}

// text is the screen's lines, without trailing blank lines.
func (sc *screen) text() string {
	lines := make([]string, len(sc.rows))
	for i, r := range sc.rows {
		lines[i] = strings.TrimRight(string(r), " ")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}
