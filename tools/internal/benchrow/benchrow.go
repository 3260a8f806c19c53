// Package benchrow is the one format of `make bench`'s rows: every
// benchmark tool (tools/simbench, tools/genbench, tools/membench) appends
// its figures to the file its -rows flag names, one JSON object per line,
// and tools/benchtable reads them all into one table.
package benchrow

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Row is one measured figure beside its target.
type Row struct {
	// Group is the table's section: cpu, memory, generation, startup, ...
	Group string `json:"group"`
	// Figure names what was measured, e.g. "gobench serve, 512 streams".
	Figure string `json:"figure"`
	// Value is the figure in Unit.
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
	// Target is the target as stated ("<= 7 µs/event"), or
	// why the figure has none ("for comparison").
	Target string `json:"target"`
	// Met is whether Value meets Target; nil for a figure without one.
	Met *bool `json:"met"`
	// Note says what the figure was measured against, in one short line.
	Note string `json:"note"`
}

// Judged returns a pointer to met, for Row.Met.
func Judged(met bool) *bool { return &met }

// Append appends rows to the file name, one JSON line each, in one write,
// so that tools run one after another share the file.
func Append(name string, rows []Row) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("-rows %s: %w", name, err)
		}
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("-rows: %w", err)
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("-rows %s: %w", name, err)
	}
	return f.Close()
}

// Read reads the rows of r, which name names in errors (with the line);
// blank lines are skipped, and a line that is not a row (an unknown key,
// no group, figure or value) is an error.
func Read(r io.Reader, name string) ([]Row, error) {
	var rows []Row
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var raw struct {
			Row
			Value *float64 `json:"value"`
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("%s:%d: not a row: %w", name, line, err)
		}
		if raw.Group == "" || raw.Figure == "" || raw.Value == nil {
			return nil, fmt.Errorf("%s:%d: a row needs group, figure and value", name, line)
		}
		raw.Row.Value = *raw.Value
		rows = append(rows, raw.Row)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return rows, nil
}
