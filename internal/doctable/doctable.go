// Package doctable is test support only: it reads the Markdown pages under
// docs/ as the tests that keep a table of the code and its page in step
// need them, the cells of a page's table and the text of a section, so
// that each table's package checks the page that lists it.
package doctable

import (
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// Page is one Markdown page.
type Page struct {
	// Path is where it was read from, for messages.
	Path string
	text string
}

// Read reads the page at path.
func Read(path string) (*Page, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("doctable: %w", err)
	}
	return &Page{Path: path, text: string(b)}, nil
}

// Column returns the cells of column col (from 0) of the body rows of the
// first table whose header row contains header; ok is false when the page
// has no such table.
func (p *Page) Column(header string, col int) (cells []string, ok bool) {
	lines := strings.Split(p.text, "\n")
	for i := 0; i+1 < len(lines); i++ {
		if !isRow(lines[i]) || !strings.Contains(lines[i], header) || !isSeparator(lines[i+1]) {
			continue
		}
		for _, l := range lines[i+2:] {
			if !isRow(l) {
				break
			}
			if c := cellsOf(l); col < len(c) {
				cells = append(cells, c[col])
			}
		}
		return cells, true
	}
	return nil, false
}

// Listed returns the code spans of the first column of the table whose
// header row contains header, sorted: the names a reference table lists.
// An error says the page has no such table.
func (p *Page) Listed(header string) ([]string, error) {
	cells, ok := p.Column(header, 0)
	if !ok {
		return nil, fmt.Errorf("%s has no table headed %q", p.Path, header)
	}
	var names []string
	for _, c := range cells {
		names = append(names, Code(c)...)
	}
	slices.Sort(names)
	return names, nil
}

// Section returns the text under the heading whose title is title (any
// level), up to the next heading of the same or a higher level; ok is
// false when the page has no such heading. Lines of fenced code blocks
// are never headings.
func (p *Page) Section(title string) (text string, ok bool) {
	var b strings.Builder
	level, fenced := 0, false
	for _, l := range strings.Split(p.text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
		}
		lv, t := heading(l)
		switch {
		case fenced || lv == 0:
		case level > 0 && lv <= level:
			return b.String(), true
		case level == 0 && t == title:
			level = lv
			continue
		}
		if level > 0 {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String(), level > 0
}

// Has reports whether the page's text contains s.
func (p *Page) Has(s string) bool { return strings.Contains(p.text, s) }

// Unnamed returns the fields of the struct type typ that the section
// title does not name as code: `Field`, or `Type.Field`, or a span ending
// in ".Field". An error says the page has no such section.
func (p *Page) Unnamed(title string, typ reflect.Type) ([]string, error) {
	text, ok := p.Section(title)
	if !ok {
		return nil, fmt.Errorf("%s has no section %q", p.Path, title)
	}
	named := map[string]bool{}
	for _, c := range Code(text) {
		named[c] = true
		if i := strings.LastIndexByte(c, '.'); i >= 0 {
			named[c[i+1:]] = true
		}
	}
	var missing []string
	for i := range typ.NumField() {
		if f := typ.Field(i); f.IsExported() && !named[f.Name] {
			missing = append(missing, f.Name)
		}
	}
	return missing, nil
}

// codeSpan is one `code` span.
var codeSpan = regexp.MustCompile("`([^`]+)`")

// Code returns the `code` spans of a cell, without their backquotes.
func Code(cell string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

// isRow reports whether l is a table row.
func isRow(l string) bool {
	l = strings.TrimSpace(l)
	return strings.HasPrefix(l, "|") && strings.HasSuffix(l, "|") && len(l) > 1
}

// isSeparator reports whether l is a table's header separator row
// (|---|:--:|).
func isSeparator(l string) bool {
	if !isRow(l) {
		return false
	}
	for _, c := range cellsOf(l) {
		if strings.Trim(c, "-:") != "" || !strings.Contains(c, "-") {
			return false
		}
	}
	return true
}

// cellsOf splits a table row into its trimmed cells ("\|" stays in its
// cell).
func cellsOf(l string) []string {
	l = strings.TrimSpace(l)
	l = l[1 : len(l)-1]
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(l); i++ {
		switch {
		case l[i] == '\\' && i+1 < len(l) && l[i+1] == '|':
			cur.WriteString(`\|`)
			i++
		case l[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(l[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// heading returns the level and title of a Markdown heading line, 0 for
// any other line.
func heading(l string) (level int, title string) {
	t := strings.TrimLeft(l, "#")
	level = len(l) - len(t)
	if level == 0 || level > 6 || !strings.HasPrefix(t, " ") {
		return 0, ""
	}
	return level, strings.TrimSpace(t)
}
