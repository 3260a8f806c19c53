package tokenizer

import (
	"fmt"
	"strings"
	"unicode"
)

// Jinja2's whitespace rules, applied before github.com/ardanlabs/jinja
// compiles a chat template.
//
// transformers renders chat templates with trim_blocks and lstrip_blocks.
// ardanlabs/jinja implements both, but looks for the text to trim past
// neighbouring {{ }} tags: "{% for m in xs %}{{ m }}\n{% endfor %}" loses
// the "\n" that Jinja2 keeps, and "\n  {{ x }}{% if %}" loses the two
// spaces. jinjaWhitespace therefore applies Jinja2's lexer rules itself
// (newline normalisation, the dropped trailing newline, the -/+ markers,
// lstrip_blocks, trim_blocks, raw blocks, comments) and writes every piece
// of literal text as a string expression, so the template it hands over has
// no text for the library to trim and renders exactly as Jinja2 would.

// jinjaPiece is one lexed element of a template.
type jinjaPiece struct {
	kind       byte   // 't' text, '{' expression, '%' statement, '#' comment
	body       string // text, or the tag's content without delimiters and markers
	left       byte   // '-', '+' or 0: the marker after the opening delimiter
	right      byte   // '-', '+' or 0: the marker before the closing delimiter
	endNewline bool   // text: trim_blocks consumed a newline right before it
}

// jinjaWhitespace rewrites src as described above.
func jinjaWhitespace(src string) (string, error) {
	src = strings.ReplaceAll(strings.ReplaceAll(src, "\r\n", "\n"), "\r", "\n")
	src = strings.TrimSuffix(src, "\n") // keep_trailing_newline=False
	pieces, err := lexJinja(src)
	if err != nil {
		return "", err
	}
	// Left side of each tag: "-" strips all whitespace before it;
	// lstrip_blocks strips spaces and tabs back to the start of the line
	// for statements and comments.
	for i, p := range pieces {
		if p.kind == 't' || i == 0 || pieces[i-1].kind != 't' {
			continue
		}
		prev := &pieces[i-1]
		switch {
		case p.left == '-':
			prev.body = strings.TrimRightFunc(prev.body, unicode.IsSpace)
		case p.left != '+' && p.kind != '{':
			lineStart := strings.LastIndexByte(prev.body, '\n') + 1
			atLineStart := lineStart > 0 || i-1 == 0 || prev.endNewline
			if atLineStart && strings.Trim(prev.body[lineStart:], " \t") == "" {
				prev.body = prev.body[:lineStart]
			}
		}
	}
	var b strings.Builder
	for _, p := range pieces {
		switch p.kind {
		case 't':
			if p.body != "" {
				b.WriteString(`{{ "`)
				b.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(p.body))
				b.WriteString(`" }}`)
			}
		case '{':
			b.WriteString("{{" + p.body + "}}")
		case '%':
			switch strings.TrimSpace(p.body) {
			case "generation", "endgeneration": // transformers' AssistantTracker: no output of its own
			default:
				b.WriteString("{%" + p.body + "%}")
			}
		}
	}
	return b.String(), nil
}

// lexJinja splits src into text and tags, applying the right-hand rules as
// it goes: "-" strips the whitespace after a tag, trim_blocks one newline
// after a statement or comment (unless "+").
func lexJinja(src string) ([]jinjaPiece, error) {
	var pieces []jinjaPiece
	pending := byte(0) // right-hand rule of the previous tag: '-', 'n' (trim one newline) or 0
	addText := func(s string) {
		consumed := false
		switch pending {
		case '-':
			s = strings.TrimLeftFunc(s, unicode.IsSpace)
		case 'n':
			s, consumed = strings.CutPrefix(s, "\n")
		}
		pending = 0
		pieces = append(pieces, jinjaPiece{kind: 't', body: s, endNewline: consumed})
	}
	for i := 0; i < len(src); {
		open := indexTagOpen(src, i)
		if open < 0 {
			addText(src[i:])
			break
		}
		addText(src[i:open])
		kind := src[open+1]
		closer := map[byte]string{'{': "}}", '%': "%}", '#': "#}"}[kind]
		j := open + 2
		p := jinjaPiece{kind: kind}
		if j < len(src) && (src[j] == '-' || src[j] == '+') {
			p.left = src[j]
			j++
		}
		end, err := tagEnd(src, j, kind, closer)
		if err != nil {
			return nil, err
		}
		body := src[j:end]
		if n := len(body); n > 0 && (body[n-1] == '-' || body[n-1] == '+' && kind != '{') {
			p.right = body[n-1]
			body = body[:n-1]
		}
		p.body = body
		i = end + 2
		word := strings.TrimSpace(body)
		if kind == '%' && (word == "raw" || word == "endraw") {
			// Raw markers render nothing but keep their whitespace rules,
			// like comments.
			p.kind = '#'
		}
		pieces = append(pieces, p)
		switch {
		case p.right == '-':
			pending = '-'
		case kind != '{' && p.right != '+':
			pending = 'n'
		}
		if kind == '%' && word == "raw" {
			// Everything up to {% endraw %} is text.
			k := indexEndRaw(src, i)
			if k < 0 {
				return nil, fmt.Errorf("chat template: {%% raw %%} without {%% endraw %%}")
			}
			addText(src[i:k])
			i = k
		}
	}
	return pieces, nil
}

// indexTagOpen finds the next "{{", "{%" or "{#" at or after i.
func indexTagOpen(src string, i int) int {
	for {
		k := strings.IndexByte(src[i:], '{')
		if k < 0 || i+k+1 >= len(src) {
			return -1
		}
		i += k
		if c := src[i+1]; c == '{' || c == '%' || c == '#' {
			return i
		}
		i++
	}
}

// tagEnd returns the offset of the closing delimiter of a tag whose content
// starts at i; quoted strings in expressions and statements may contain it.
func tagEnd(src string, i int, kind byte, closer string) (int, error) {
	for i < len(src) {
		c := src[i]
		if kind != '#' && (c == '\'' || c == '"') {
			i++
			for i < len(src) && src[i] != c {
				if src[i] == '\\' {
					i++
				}
				i++
			}
			i++
			continue
		}
		if strings.HasPrefix(src[i:], closer) {
			return i, nil
		}
		i++
	}
	return 0, fmt.Errorf("chat template: a tag opened with %q is not closed with %q", "{"+string(kind), closer)
}

// indexEndRaw finds the {% endraw %} tag (with optional markers) from i.
func indexEndRaw(src string, i int) int {
	for {
		k := strings.Index(src[i:], "{%")
		if k < 0 {
			return -1
		}
		i += k
		rest := strings.TrimLeft(src[i+2:], "-+ \t\n")
		if strings.HasPrefix(rest, "endraw") {
			return i
		}
		i += 2
	}
}
