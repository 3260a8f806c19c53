// Package texttable lays out a table of cells as text lines: aligned
// columns for a terminal, or a Markdown table. The reports that print
// tables of figures (gobench diagnose, the server view of a run) share it,
// so their tables look alike.
package texttable

import "strings"

// Lines lays out rows under header. With a header the columns after the
// first hold numbers and are right-aligned (in Markdown too); without one
// (nil) the rows are a list of names and values, left-aligned. Text lines
// start with indent and end without trailing spaces.
func Lines(header []string, rows [][]string, markdown bool, indent string) []string {
	if markdown {
		return markdownLines(header, rows)
	}
	all := rows
	if header != nil {
		all = append([][]string{header}, rows...)
	}
	width := map[int]int{}
	for _, r := range all {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	out := make([]string, 0, len(all))
	for _, r := range all {
		var b strings.Builder
		b.WriteString(indent)
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if i == 0 || header == nil {
				b.WriteString(c + pad + "  ")
			} else {
				b.WriteString(pad + c + "  ")
			}
		}
		out = append(out, strings.TrimRight(b.String(), " "))
	}
	return out
}

// markdownLines is the Markdown table of Lines.
func markdownLines(header []string, rows [][]string) []string {
	numeric := header != nil
	if header == nil {
		header = make([]string, len(rows[0]))
	}
	seps := make([]string, len(header))
	for i := range seps {
		seps[i] = "---"
		if numeric && i > 0 {
			seps[i] = "---:"
		}
	}
	out := []string{"| " + strings.Join(header, " | ") + " |", "|" + strings.Join(seps, "|") + "|"}
	for _, r := range rows {
		out = append(out, "| "+strings.Join(r, " | ")+" |")
	}
	return out
}
