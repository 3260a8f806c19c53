// Command benchtable prints `make bench`'s one table: every figure the
// benchmark tools measured (tools/simbench for the client's CPU per event,
// tools/membench for memory, tools/genbench for dataset generation and
// start-up, and whatever else writes rows), each beside its target
// and whether this run met it.
//
// The tools write the rows (package benchrow), one JSON object per line,
// to the file given by their -rows flag (appending, so several tools share
// one file):
//
//	{"group":"cpu","figure":"gobench, 512 streams","value":6.8,"unit":"µs/event",
//	 "target":"<= 7 µs/event","met":true,"note":"sim and client on this 2-core machine"}
//
// met is null for a figure that has no target (a reference such as the
// bare epoll loop, or a figure shown for context). The table is a record of
// one machine at one moment: benchtable prints the machine's cores and load
// average beside it and asserts nothing.
package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gobench/gobench/tools/internal/benchrow"
)

func main() {
	if len(os.Args) < 2 || strings.HasPrefix(os.Args[1], "-") {
		fmt.Fprintln(os.Stderr, "usage: benchtable ROWS.jsonl...")
		os.Exit(2)
	}
	var rows []benchrow.Row
	for _, name := range os.Args[1:] {
		r, err := readFile(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchtable:", err)
			os.Exit(1)
		}
		rows = append(rows, r...)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("\nmake bench: %d figures on %d cores (load average %s)\n\n", len(rows), runtime.NumCPU(), loadAvg(load))
	if err := write(os.Stdout, rows); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

// groups is the order the table shows the groups in; a group not listed
// follows them in the order its rows came.
var groups = []string{"cpu", "memory", "generation", "startup", "skew"}

// readFile reads the rows of one file, naming the file and line of a row
// that is not one.
func readFile(name string) ([]benchrow.Row, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("rows: %w", err)
	}
	defer f.Close()
	return benchrow.Read(f, name)
}

// write prints rows grouped, each group's rows in the order they came.
// A note is printed once, under the table, and each row names its note by
// number: the tools give most rows the same few notes (what the figure is
// measured against, the machine's load), which would otherwise make every
// line of the table a paragraph wide.
func write(w io.Writer, rows []benchrow.Row) error {
	order := append([]string{}, groups...)
	for _, r := range rows {
		if !slices.Contains(order, r.Group) {
			order = append(order, r.Group)
		}
	}
	var notes []string
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "group\tfigure\tmeasured\ttarget\tmet\tnote")
	for _, g := range order {
		for _, r := range rows {
			if r.Group != g {
				continue
			}
			ref := ""
			if r.Note != "" {
				i := slices.Index(notes, r.Note)
				if i < 0 {
					i, notes = len(notes), append(notes, r.Note)
				}
				ref = fmt.Sprintf("[%d]", i+1)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Group, r.Figure, measured(r), dash(r.Target), met(r.Met), ref)
		}
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("lay out the table: %w", err)
	}
	if len(notes) > 0 {
		buf.WriteString("\n")
	}
	for i, n := range notes {
		fmt.Fprintf(&buf, "[%d] %s\n", i+1, n)
	}
	// An empty last cell leaves padding at the end of its line.
	for line := range strings.Lines(buf.String()) {
		if _, err := io.WriteString(w, strings.TrimRight(line, " \n")+"\n"); err != nil {
			return fmt.Errorf("write the table: %w", err)
		}
	}
	return nil
}

// measured formats a value with as many decimals as its size needs.
func measured(r benchrow.Row) string {
	v := r.Value
	prec := 1
	switch a := math.Abs(v); {
	case a >= 100:
		prec = 0
	case a < 10:
		prec = 2
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if r.Unit != "" {
		s += " " + r.Unit
	}
	return s
}

// met is the met column: yes, NO, or a dash for a figure without a target.
func met(m *bool) string {
	switch {
	case m == nil:
		return "-"
	case *m:
		return "yes"
	default:
		return "NO"
	}
}

// dash is s, or a dash for an empty cell.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// loadAvg is the first three fields of /proc/loadavg, or "unknown".
func loadAvg(b []byte) string {
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
