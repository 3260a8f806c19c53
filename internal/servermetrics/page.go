package servermetrics

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/prometheus/common/expfmt"
)

// What one page may cost. A vLLM server's page has a few thousand samples
// (one family per metric, one series per engine, model and label value);
// a page can hold a million (a process that labels by request or by
// user), which expfmt would hold whole as maps (over a gigabyte for 62 MB).
// Families gobench does not read are dropped line by line before expfmt
// sees the page, and what is kept is bounded.
const (
	// maxLineBytes bounds one sample line (its labels): vLLM's longest,
	// vllm:cache_config_info, is under a kilobyte.
	maxLineBytes = 64 << 10
	// maxFamilySamples bounds the samples of one family (a histogram's
	// buckets count one each).
	maxFamilySamples = 50_000
	// maxSamples and maxKeptBytes bound the samples and bytes kept of a
	// page.
	maxSamples   = 200_000
	maxKeptBytes = 16 << 20
	// droppedNoteFrom is the number of dropped samples from which the
	// report says so: a vLLM page drops a few dozen (Python's process
	// and garbage-collector metrics), which is not worth a note.
	droppedNoteFrom = 10_000
)

// limits are the bounds of one page (tests pass small ones).
type limits struct {
	line, family, samples, bytes int
}

// pageLimits are the bounds Parse applies.
func pageLimits() limits {
	return limits{line: maxLineBytes, family: maxFamilySamples, samples: maxSamples, bytes: maxKeptBytes}
}

// pageFilter keeps the lines of the families gobench reads.
type pageFilter struct {
	lim      limits
	prefixes []string
	out      []byte
	// lines maps each kept line to its line number in the page, so that
	// expfmt's errors name the page's line.
	lines []int
	notes []string
	// typed holds the kept # TYPE lines' types, sampled the names of kept
	// samples, perFamily the kept samples of each family.
	typed     map[string]string
	helped    map[string]bool
	sampled   map[string]bool
	perFamily map[string]int
	capped    []string
	kept      int
	dropped   int
	long      int
	overTotal int
}

// filterPage returns the lines of data that gobench reads, what was
// dropped (notes) and the line numbers of the kept lines. A dropped
// sample line is still checked for the text format's syntax, so a
// malformed page is an error wherever the malformed line is.
func filterPage(data []byte, lim limits) (kept []byte, lines []int, notes []string, err error) {
	f := &pageFilter{lim: lim, prefixes: readPrefixes(), typed: map[string]string{}, helped: map[string]bool{},
		sampled: map[string]bool{}, perFamily: map[string]int{}}
	n := 0
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		n++
		if err := f.line(line, n); err != nil {
			return nil, nil, nil, err
		}
	}
	return f.out, f.lines, f.summary(), nil
}

// line files one line of the page.
func (f *pageFilter) line(text []byte, n int) error {
	line := bytes.TrimLeft(bytes.TrimRight(text, "\r"), " \t")
	switch {
	case len(line) == 0:
		return nil
	case line[0] == '#':
		f.comment(line, n)
		return nil
	case len(line) > f.lim.line:
		f.long++
		return nil
	}
	raw := sampleName(line)
	if !f.reads(raw) {
		f.dropped++
		if msg := sampleSyntax(line); msg != "" {
			return expfmt.ParseError{Line: n, Msg: msg}
		}
		return nil
	}
	name := string(raw)
	family := familyOf(name)
	switch {
	case f.kept >= f.lim.samples || len(f.out)+len(line) >= f.lim.bytes:
		f.overTotal++
		return nil
	case f.perFamily[family] >= f.lim.family:
		if f.perFamily[family] == f.lim.family {
			f.capped = append(f.capped, family)
			f.perFamily[family]++
		}
		return nil
	}
	f.perFamily[family]++
	f.kept++
	f.sampled[name] = true
	f.keep(line, n)
	return nil
}

// comment keeps the # HELP, # TYPE and # UNIT lines of kept families and
// # EOF. A second # TYPE line of a family, or one after its samples, which
// expfmt refuses (the whole page with it), is dropped with a note.
func (f *pageFilter) comment(line []byte, n int) {
	var buf [3][]byte
	fields := tokens(buf[:0], line[1:])
	switch {
	case len(fields) == 1 && string(fields[0]) == "EOF":
		f.keep(line, n)
	case len(fields) < 2 || !f.reads(fields[1]):
	case string(fields[0]) == "HELP":
		if name := string(fields[1]); !f.helped[name] {
			f.helped[name] = true
			f.keep(line, n)
		}
	case string(fields[0]) == "TYPE":
		typ := ""
		if len(fields) > 2 {
			typ = string(fields[2])
		}
		f.typeLine(string(fields[1]), typ, line, n)
	case string(fields[0]) == "UNIT":
		f.keep(line, n)
	}
}

// typeLine keeps the first # TYPE line of a family that comes before its
// samples.
func (f *pageFilter) typeLine(name, typ string, line []byte, n int) {
	switch first, seen := f.typed[name]; {
	case seen:
		f.notes = append(f.notes, fmt.Sprintf("%s: a second # TYPE line (%s after %s): the first is read", name, typ, first))
	case f.sampled[name]:
		f.notes = append(f.notes, fmt.Sprintf("%s: a # TYPE line (%s) after its samples: ignored", name, typ))
	default:
		f.typed[name] = typ
		f.keep(line, n)
	}
}

func (f *pageFilter) keep(line []byte, n int) {
	f.out = append(append(f.out, line...), '\n')
	f.lines = append(f.lines, n)
}

// reads reports whether gobench reads the family of a sample or comment
// name.
func (f *pageFilter) reads(name []byte) bool {
	for _, p := range f.prefixes {
		if bytes.HasPrefix(name, []byte(p)) {
			return true
		}
	}
	return false
}

// summary is the notes, with what the bounds cost.
func (f *pageFilter) summary() []string {
	notes := f.notes
	if f.dropped >= droppedNoteFrom {
		notes = append(notes, fmt.Sprintf("dropped %s samples of families gobench does not read (it reads %s and %s)",
			thousands(f.dropped), KnownPatterns(), ProcessStart))
	}
	for _, fam := range f.capped {
		notes = append(notes, fmt.Sprintf("%s had more than %s samples: the first %s were read", fam,
			thousands(f.lim.family), thousands(f.lim.family)))
	}
	if f.overTotal > 0 {
		notes = append(notes, fmt.Sprintf("the page had more than %s samples (or %s bytes) of families gobench reads: %s more were not read",
			thousands(f.lim.samples), thousands(f.lim.bytes), thousands(f.overTotal)))
	}
	if f.long > 0 {
		notes = append(notes, fmt.Sprintf("%s sample lines longer than %s bytes were not read", thousands(f.long), thousands(f.lim.line)))
	}
	return notes
}

// sampleName is a sample line's metric name: up to its labels or value,
// or the quoted name that opens its labels ({"name", ...}).
func sampleName(line []byte) []byte {
	if line[0] != '{' {
		i := bytes.IndexAny(line, "{ \t")
		if i < 0 {
			i = len(line)
		}
		return line[:i]
	}
	rest := bytes.TrimLeft(line[1:], " \t")
	if len(rest) == 0 || rest[0] != '"' {
		return nil
	}
	end := quoteEnd(rest, 0)
	if end < 0 {
		return nil
	}
	return rest[1:end]
}

// familyOf is a sample name without the suffix of a histogram's, a
// summary's or a counter's samples.
func familyOf(name string) string {
	for _, s := range []string{"_bucket", "_count", "_sum", "_total", "_created", "_gcount", "_gsum"} {
		if base, ok := strings.CutSuffix(name, s); ok {
			return base
		}
	}
	return name
}

// sampleSyntax checks what expfmt would of a sample line, without
// building anything: a name, labels whose quotes and braces close, a
// number, and at most a timestamp (and an OpenMetrics exemplar after
// "#"). It returns what is wrong, or "".
func sampleSyntax(line []byte) string {
	i := 0
	if line[0] != '{' {
		for i < len(line) && isNameByte(line[i]) {
			i++
		}
		if i == 0 {
			return fmt.Sprintf("invalid metric name start %q", line[0])
		}
	}
	if i < len(line) && line[i] == '{' {
		if i = labelsEnd(line, i); i < 0 {
			return "unexpected end of label set"
		}
	}
	var buf [3][]byte
	tokens := tokens(buf[:0], line[i:])
	switch {
	case len(tokens) == 0:
		return "expected a value after the metric name"
	case !isFloat(tokens[0]):
		return fmt.Sprintf("expected float as value, got %q", tokens[0])
	case len(tokens) > 1 && tokens[1][0] != '#' && !isFloat(tokens[1]):
		return fmt.Sprintf("expected timestamp, got %q", tokens[1])
	case len(tokens) > 2 && tokens[2][0] != '#':
		return fmt.Sprintf("expected timestamp or new record, got %q", tokens[2])
	}
	return ""
}

func isNameByte(b byte) bool {
	return b == '_' || b == ':' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// labelsEnd is the index after the } that closes the label set opening at
// line[open], or -1.
func labelsEnd(line []byte, open int) int {
	for i := open + 1; i < len(line); i++ {
		switch line[i] {
		case '"':
			if i = quoteEnd(line, i); i < 0 {
				return -1
			}
		case '}':
			return i + 1
		}
	}
	return -1
}

// quoteEnd is the index of the quote that closes the string opening at
// s[open], or -1.
func quoteEnd(s []byte, open int) int {
	for i := open + 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// tokens appends the first cap(dst) blank-separated tokens of s to dst
// (a caller's array, so that nothing is allocated per line).
func tokens(dst [][]byte, s []byte) [][]byte {
	out := dst
	for len(s) > 0 && len(out) < cap(out) {
		s = bytes.TrimLeft(s, " \t")
		if len(s) == 0 {
			break
		}
		end := bytes.IndexAny(s, " \t")
		if end < 0 {
			end = len(s)
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

// isFloat reports whether expfmt reads b as a number (strconv's floats,
// without the hexadecimal and underscore forms it refuses).
func isFloat(b []byte) bool {
	if bytes.ContainsAny(b, "pP_") {
		return false
	}
	_, err := strconv.ParseFloat(string(b), 64)
	return err == nil
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
