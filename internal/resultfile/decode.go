package resultfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/gobench/gobench/internal/pyjson"
)

// field is one top-level key of a result object with its undecoded value.
// Values are decoded lazily: a detailed file holds megabytes of per-request
// lists that most commands never look at.
type field struct {
	key string
	raw json.RawMessage
}

// sanitize rewrites the bare tokens NaN, Infinity and -Infinity that
// Python's json.dump writes for non-finite floats (vLLM does, for example
// for --burstiness inf) into the strings "NaN", "Infinity" and "-Infinity",
// so that the rest is standard JSON. Text inside strings is left alone. The
// input is returned unchanged (not copied) when it has no such token.
func sanitize(data []byte) []byte {
	toks := pyjson.FindNonFinite(data)
	if len(toks) == 0 {
		return data
	}
	out := make([]byte, 0, len(data)+2*len(toks))
	last := 0
	for _, t := range toks {
		out = append(out, data[last:t.Start]...)
		out = append(out, '"')
		out = append(out, t.Token...)
		out = append(out, '"')
		last = t.Start + len(t.Token)
	}
	return append(out, data[last:]...)
}

// splitObjects decodes data as a sequence of JSON objects separated by
// whitespace: one object for a --save-result file, one per line for an
// --append-result (JSON Lines) file. Each object comes back as its fields
// in file order; a repeated key keeps its first position and its last
// value, as a Python dict would.
func splitObjects(data []byte) ([][]field, error) {
	dec := json.NewDecoder(bytes.NewReader(sanitize(data)))
	var objs [][]field
	for {
		fields, err := nextObject(dec)
		if err == io.EOF {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("run %d: %w", len(objs), err)
		}
		objs = append(objs, fields)
	}
}

// nextObject decodes the next JSON object of dec; io.EOF when there is
// none left.
func nextObject(dec *json.Decoder) ([]field, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("%w: found %s where a JSON object should start", ErrNotResult, describeToken(tok))
	}
	fields, err := readFields(dec)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF // the object was cut short
	}
	return fields, err
}

// damage is a line of a JSON Lines file that holds no complete object: a
// record cut short by a failed append, or garbage.
type damage struct {
	line int // from 1
	err  error
}

// splitRuns decodes the objects of data as splitObjects does, tolerating
// damaged lines in a JSON Lines file. Read line by line, every non-blank
// line must hold one complete object; when one does not, the file is read
// whole instead (a pretty-printed object spans lines), and when that fails
// too while some lines held a complete object, those objects are the runs
// and the other lines are returned as damaged. A file with no complete line
// gets the error of reading it whole.
func splitRuns(data []byte) ([][]field, []damage, error) {
	var objs [][]field
	var damaged []damage
	for n, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		fields, err := oneObject(line)
		if err != nil {
			damaged = append(damaged, damage{line: n + 1, err: err})
			continue
		}
		objs = append(objs, fields)
	}
	if len(damaged) == 0 {
		return objs, nil, nil
	}
	whole, err := splitObjects(data)
	switch {
	case err == nil:
		return whole, nil, nil
	case len(objs) == 0:
		return nil, nil, err
	}
	return objs, damaged, nil
}

// oneObject decodes a line that holds exactly one JSON object.
func oneObject(line []byte) ([]field, error) {
	dec := json.NewDecoder(bytes.NewReader(sanitize(line)))
	fields, err := nextObject(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more text after the object")
	}
	return fields, nil
}

// readFields reads the members of an object whose '{' was consumed.
func readFields(dec *json.Decoder) ([]field, error) {
	var fields []field
	pos := map[string]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("object key is %s", describeToken(tok))
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("key %q: %w", key, err)
		}
		if i, seen := pos[key]; seen {
			fields[i].raw = raw
			continue
		}
		pos[key] = len(fields)
		fields = append(fields, field{key: key, raw: raw})
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return nil, err
	}
	return fields, nil
}

func describeToken(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		return fmt.Sprintf("%q", string(t))
	case string:
		return "a string"
	case nil:
		return "null"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}

// nonFinite maps the spellings of non-finite floats found in result files
// to their values: gobench's and vLLM's strings ("inf", as Python's
// str(float)) and the bare tokens of Python's json.dump after sanitize.
var nonFinite = map[string]float64{
	"inf": math.Inf(1), "-inf": math.Inf(-1), "nan": math.NaN(),
	"Infinity": math.Inf(1), "-Infinity": math.Inf(-1), "NaN": math.NaN(),
}

// errNotNumber is returned by parseNumber for a value that is not a number.
var errNotNumber = errors.New("not a number")

// parseNumber decodes a JSON number, or one of the non-finite spellings
// above written as a string, exactly (strconv.ParseFloat on the file's
// text, which for Python's shortest repr gives back the very float64 that
// was written).
func parseNumber(raw []byte) (float64, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0, errNotNumber
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, err
		}
		if v, ok := nonFinite[s]; ok {
			return v, nil
		}
		return 0, errNotNumber
	}
	if c := raw[0]; c != '-' && (c < '0' || c > '9') {
		return 0, errNotNumber
	}
	return strconv.ParseFloat(string(raw), 64)
}

// number is a float64 that also decodes the non-finite spellings, for the
// per-request lists.
type number float64

// UnmarshalJSON implements json.Unmarshaler; null decodes as NaN.
func (n *number) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = number(math.NaN())
		return nil
	}
	v, err := parseNumber(b)
	if err != nil {
		return fmt.Errorf("%s: %w", truncate(b), err)
	}
	*n = number(v)
	return nil
}

func truncate(b []byte) string {
	const limit = 40
	if len(b) > limit {
		return string(b[:limit]) + "..."
	}
	return string(b)
}
