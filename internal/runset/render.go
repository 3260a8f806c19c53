package runset

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
	"github.com/gobench/gobench/internal/texttable"
)

// WriteText prints the set's statistics as a table, after a line per run
// (its file and the seed of its arrivals). Metrics that are 0 in every run
// are left out but those whose zero is a finding (failed); the set file
// keeps them all.
func (s *Set) WriteText(w io.Writer) error { return s.write(w, false) }

// WriteMarkdown prints the same as WriteText, as a list and a GitHub
// table (serve --num-runs --format markdown).
func (s *Set) WriteMarkdown(w io.Writer) error { return s.write(w, true) }

func (s *Set) write(w io.Writer, markdown bool) error {
	var b strings.Builder
	done := len(s.Complete())
	title := fmt.Sprintf(" Repeated runs: %d of %d ", done, s.NumRuns)
	if markdown {
		b.WriteString("###" + title + "\n\n")
	} else {
		pad := max(0, 50-len(title))
		b.WriteString(strings.Repeat("=", pad/2) + title + strings.Repeat("=", pad-pad/2) + "\n")
	}
	for _, r := range s.Runs {
		note := ""
		if r.EndReason != Completed {
			note = ", " + r.EndReason + ": left out of the statistics"
		}
		if markdown {
			b.WriteString("- ")
		}
		fmt.Fprintf(&b, "Run %d: %s (arrivals seed %d%s)\n", r.Number, r.File, r.ScheduleSeed, note)
	}
	if markdown {
		b.WriteString("\n")
	}
	if done == 0 {
		b.WriteString("No run completed: no statistics.\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	conf := strconv.FormatFloat(100*s.Confidence, 'f', -1, 64) + "% CI of the mean"
	header := []string{"Metric", "Mean", "Std", "Min", "Max", "CV", conf}
	var rows [][]string
	for _, m := range s.Metrics {
		if m.Min == 0 && m.Max == 0 && !resultkey.ZeroIsMeaningful(m.Key) {
			continue
		}
		rows = append(rows, []string{m.Key, num(m.Mean), num(m.Std), num(m.Min), num(m.Max), cv(m.CV), interval(m.Low, m.High)})
	}
	for _, line := range texttable.Lines(header, rows, markdown, "") {
		b.WriteString(line + "\n")
	}
	if done < 2 {
		b.WriteString("(one completed run: no spread and no interval)\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// num prints a value as compare does; NaN (no spread) as "-".
func num(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return resultfile.FormatValue(v)
}

// cv prints a coefficient of variation in percent.
func cv(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return strconv.FormatFloat(100*v, 'f', 1, 64) + "%"
}

// interval prints [low, high], or "-" without one.
func interval(low, high float64) string {
	if math.IsNaN(low) || math.IsNaN(high) {
		return "-"
	}
	return "[" + resultfile.FormatFloat(low) + ", " + resultfile.FormatFloat(high) + "]"
}
