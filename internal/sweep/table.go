package sweep

import (
	"encoding/csv"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultkey"
	"github.com/gobench/gobench/internal/texttable"
)

// Point is one row of a sweep's summary table: a run's label (its
// combination and run number, or its load in the short form) and its
// result object as saved.
type Point struct {
	Label  string
	Result *pyjson.Object
}

// TableBase is the name, without extension, of the table files a sweep
// writes beside its results (never summary.json, which vLLM's plot reads).
const TableBase = "sweep_table"

// column is one column of the table: its heading and the result key it
// shows.
type column struct{ head, key string }

// latencyMetrics are the metrics whose statistics the table shows.
var latencyMetrics = []struct{ name, key string }{{"TTFT", "ttft"}, {"TPOT", "tpot"}, {"ITL", "itl"}, {"E2EL", "e2el"}}

// columns are the load, the outcome, the throughputs, then the median and
// every percentile the points hold of each latency metric (in ms), in the
// result's order.
func columns(points []Point) []column {
	cols := []column{
		{"request_rate", resultkey.RequestRate}, {"max_concurrency", resultkey.MaxConcurrency},
		{"completed", resultkey.Completed}, {"failed", resultkey.Failed},
		{"req/s", resultkey.RequestThroughput}, {"goodput req/s", resultkey.RequestGoodput},
		{"out tok/s", resultkey.OutputThroughput},
	}
	for _, m := range latencyMetrics {
		seen := map[string]bool{}
		for _, p := range points {
			for _, k := range p.Result.Keys() {
				stat, ok := strings.CutSuffix(k, "_"+m.key+"_ms")
				if ok && (stat == "median" || strings.HasPrefix(stat, "p")) && !seen[k] {
					seen[k] = true
					cols = append(cols, column{m.name + " " + strings.Replace(stat, "median", "p50", 1), k})
				}
			}
		}
	}
	return cols
}

// cell is a value as the text table shows it: numbers with two decimals
// (integers whole), "-" when absent or None.
func cell(v any) string {
	switch x := v.(type) {
	case int:
		return strconv.Itoa(x)
	case float64:
		return strconv.FormatFloat(x, 'f', 2, 64)
	case nil:
		return "-" // absent, or None: no limit, no --goodput
	}
	return pyfmt.Str(v)
}

// WriteTable prints the table of points to w.
func WriteTable(w io.Writer, title string, points []Point) {
	cols := columns(points)
	header := []string{"point"}
	for _, c := range cols {
		header = append(header, c.head)
	}
	rows := make([][]string, len(points))
	for i, p := range points {
		rows[i] = []string{p.Label}
		for _, c := range cols {
			v, _ := p.Result.Get(c.key)
			rows[i] = append(rows[i], cell(v))
		}
	}
	fmt.Fprintf(w, "%s\n", title)
	for _, l := range texttable.Lines(header, rows, false, "") {
		fmt.Fprintln(w, l)
	}
}

// tableCSV is the table as CSV: a point column, then the result keys of
// the columns, with the values as the result holds them (Python's text).
func tableCSV(points []Point) ([]byte, error) {
	cols := columns(points)
	var b strings.Builder
	w := csv.NewWriter(&b)
	header := []string{"point"}
	for _, c := range cols {
		header = append(header, c.key)
	}
	if err := w.Write(header); err != nil {
		return nil, err
	}
	for _, p := range points {
		row := []string{p.Label}
		for _, c := range cols {
			v, ok := p.Result.Get(c.key)
			switch {
			case !ok || v == nil:
				row = append(row, "")
			case isFloat(v):
				row = append(row, pyfmt.Float(v.(float64)))
			default:
				row = append(row, pyfmt.Str(v))
			}
		}
		if err := w.Write(row); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return []byte(b.String()), w.Error()
}

func isFloat(v any) bool { _, ok := v.(float64); return ok }

// tableJSON is the table as a JSON list of objects: "point", then each
// column's key and value (absent keys left out).
func tableJSON(points []Point) ([]byte, error) {
	cols := columns(points)
	list := make([]any, len(points))
	for i, p := range points {
		o := pyjson.NewObject()
		o.Set("point", p.Label)
		for _, c := range cols {
			if v, ok := p.Result.Get(c.key); ok {
				o.Set(c.key, v)
			}
		}
		list[i] = o
	}
	return indented(list, 4)
}

// SaveTable writes the table as base.csv and base.json in dir and returns
// their paths.
func SaveTable(dir, base string, points []Point) ([]string, error) {
	c, err := tableCSV(points)
	if err != nil {
		return nil, fmt.Errorf("sweep table: %w", err)
	}
	j, err := tableJSON(points)
	if err != nil {
		return nil, fmt.Errorf("sweep table: %w", err)
	}
	paths := []string{filepath.Join(dir, base+".csv"), filepath.Join(dir, base+".json")}
	for i, data := range [][]byte{c, j} {
		if err := writeFile(paths[i], data); err != nil {
			return nil, fmt.Errorf("sweep table: %w", err)
		}
	}
	return paths, nil
}

// finish writes vLLM's summary.csv of every run and gobench's table, and
// prints the table.
func (s *sweeper) finish() error {
	if len(s.all) == 0 {
		fmt.Fprintln(s.env.Stderr, "No run completed: nothing to summarise.")
		return nil
	}
	records := make([]*pyjson.Object, len(s.all))
	for i, p := range s.all {
		records[i] = p.Result
	}
	data, err := pandasCSV(records)
	if err != nil {
		return fmt.Errorf("summary.csv: %w", err)
	}
	if err := writeFile(filepath.Join(s.dir, "summary.csv"), data); err != nil {
		return err
	}
	WriteTable(s.env.Stdout, "Sweep summary ("+s.dir+"):", s.all)
	_, err = SaveTable(s.dir, TableBase, s.all)
	return err
}

// runLabel names a run in the table: its serve and bench combinations
// (their names) and its run number.
func runLabel(sc, bc Comb, run int) string {
	var parts []string
	for _, c := range []Comb{sc, bc} {
		if c.Len() > 0 {
			parts = append(parts, c.Name())
		}
	}
	return strings.Join(append(parts, "run="+strconv.Itoa(run)), " ")
}

// number is a numeric value of o (0 when absent or not a number).
func number(o *pyjson.Object, key string) float64 {
	v, _ := o.Get(key)
	switch x := v.(type) {
	case int:
		return float64(x)
	case float64:
		return x
	}
	return 0
}
