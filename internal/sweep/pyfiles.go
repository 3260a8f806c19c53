package sweep

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/pyjson"
)

// appendIndented appends v as Python's json.dump(v, f, indent=4) writes it
// (how vLLM writes run=N.json and summary.json; its failure files
// have indent=2): one item per line, four
// spaces per level, "," at line ends and ": " after keys, empty containers
// as [] and {}; scalars as pyjson.AppendPython writes them.
func appendIndented(dst []byte, v any, depth int, unit string) ([]byte, error) {
	pad := func(b []byte, d int) []byte { return append(append(b, '\n'), strings.Repeat(unit, d)...) }
	switch x := v.(type) {
	case []any:
		if len(x) == 0 {
			return append(dst, "[]"...), nil
		}
		dst = append(dst, '[')
		for i, it := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendIndented(pad(dst, depth+1), it, depth+1, unit); err != nil {
				return nil, err
			}
		}
		return append(pad(dst, depth), ']'), nil
	case *pyjson.Object:
		if x.Len() == 0 {
			return append(dst, "{}"...), nil
		}
		dst = append(dst, '{')
		for i, k := range x.Keys() {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = pyjson.AppendPython(pad(dst, depth+1), k); err != nil {
				return nil, err
			}
			it, _ := x.Get(k)
			if dst, err = appendIndented(append(dst, ": "...), it, depth+1, unit); err != nil {
				return nil, err
			}
		}
		return append(pad(dst, depth), '}'), nil
	}
	return pyjson.AppendPython(dst, v)
}

// indented is v as json.dump(v, f, indent=width) writes it.
func indented(v any, width int) ([]byte, error) {
	return appendIndented(nil, v, 0, strings.Repeat(" ", width))
}

// pandasCSV is the text of pandas.DataFrame.from_records(records).to_csv()
// (vLLM's summary.csv): the columns are every key in the order of first
// appearance, after an unnamed index column of row numbers; a column whose
// values are all integers and present holds integers, a numeric column
// otherwise floats (Python's repr, so 8 becomes 8.0 when another row lacks
// the key), anything else Python's str of each value, a missing one empty.
func pandasCSV(records []*pyjson.Object) ([]byte, error) {
	var cols []string
	seen := map[string]bool{}
	for _, r := range records {
		for _, k := range r.Keys() {
			if !seen[k] {
				seen[k] = true
				cols = append(cols, k)
			}
		}
	}
	kinds := make([]columnKind, len(cols))
	for i, c := range cols {
		kinds[i] = kindOf(records, c)
	}
	var b strings.Builder
	w := csv.NewWriter(&b)
	if err := w.Write(append([]string{""}, cols...)); err != nil {
		return nil, err
	}
	for i, r := range records {
		row := []string{fmt.Sprint(i)}
		for j, c := range cols {
			v, ok := r.Get(c)
			row = append(row, kinds[j].cell(v, ok))
		}
		if err := w.Write(row); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return []byte(b.String()), w.Error()
}

// columnKind is the dtype pandas infers for a column.
type columnKind int

const (
	objectColumn columnKind = iota
	intColumn
	floatColumn
)

// kindOf is the dtype of column c over records.
func kindOf(records []*pyjson.Object, c string) columnKind {
	numeric, allInt, present := true, true, false
	for _, r := range records {
		v, ok := r.Get(c)
		if !ok || v == nil {
			allInt = false // a missing value is NaN: the column turns float
			continue
		}
		present = true
		switch v.(type) {
		case int, json.Number:
		case float64:
			allInt = false
		default:
			numeric = false
		}
	}
	switch {
	case !present || !numeric:
		return objectColumn
	case allInt:
		return intColumn
	}
	return floatColumn
}

// cell is one value of a column of kind k; ok is false for a missing key.
func (k columnKind) cell(v any, ok bool) string {
	if !ok || v == nil {
		return ""
	}
	if k == floatColumn {
		switch x := v.(type) {
		case int:
			return pyfmt.Float(float64(x))
		case float64:
			return pyfmt.Float(x)
		}
	}
	return pyfmt.Str(v)
}
