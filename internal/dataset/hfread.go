package dataset

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/readlimit"
	"github.com/parquet-go/parquet-go"
)

// hfRow is one example of a Hugging Face dataset: its columns as the
// datasets library hands them to vLLM's sample() (strings, numbers, lists
// as []any, structs as map[string]any, binary as string), and where it
// comes from, for messages.
type hfRow struct {
	cols  map[string]any
	where string
}

// rowIter yields the rows of a dataset one at a time; ok is false at the
// end.
type rowIter func() (row hfRow, ok bool, err error)

// hfFormats maps a data file's extension to its reader, as the datasets
// library picks its packaged builder by extension.
var hfFormats = map[string]func(path string) (rowIter, io.Closer, error){
	".parquet": openParquet,
	".jsonl":   openJSONLines,
	".json":    openJSON,
	".csv":     openCSV,
}

// isDataFile reports whether ext (lower case, with its dot) names a data
// file gobench reads (hfFormats): hffiles.Find picks the files by it.
func isDataFile(ext string) bool {
	_, ok := hfFormats[ext]
	return ok
}

// openRows opens one data file.
func openRows(path string) (rowIter, io.Closer, error) {
	ext := strings.ToLower(filepath.Ext(path))
	open, ok := hfFormats[ext]
	if !ok {
		if ext == ".arrow" {
			return nil, nil, fmt.Errorf("%s: Arrow IPC files are %w (convert to Parquet or JSON Lines)", path, exitcode.ErrNotSupported)
		}
		return nil, nil, fmt.Errorf("%s: not a data file gobench reads (.parquet, .jsonl, .json, .csv)", path)
	}
	return open(path)
}

// parquetBatch is how many rows a Parquet file is read at a time.
const parquetBatch = 64

// openParquet reads a Parquet file's rows through the file's own schema
// (nested lists and structs become []any and map[string]any).
func openParquet(path string) (rowIter, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--dataset-path: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("--dataset-path: %w", err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: not a Parquet file: %w", path, err)
	}
	r := parquet.NewGenericReader[map[string]any](pf, pf.Schema())
	var buf []map[string]any
	n, pos, idx := 0, 0, 0
	next := func() (hfRow, bool, error) {
		if len(buf) == 0 {
			buf = make([]map[string]any, parquetBatch)
		}
		if pos == n {
			for i := range buf {
				buf[i] = map[string]any{}
			}
			var err error
			n, err = r.Read(buf)
			pos = 0
			if n == 0 {
				if err == nil || errors.Is(err, io.EOF) {
					return hfRow{}, false, nil
				}
				return hfRow{}, false, fmt.Errorf("%s: %w", path, err)
			}
		}
		pos++
		idx++
		return hfRow{cols: buf[pos-1], where: fmt.Sprintf("%s row %d", path, idx-1)}, true, nil
	}
	return next, closers{r, f}, nil
}

// closers closes several things in order.
type closers []io.Closer

func (c closers) Close() error {
	var errs []error
	for _, x := range c {
		errs = append(errs, x.Close())
	}
	return errors.Join(errs...)
}

// openJSONLines reads one JSON object per line, each bounded by
// maxValueBytes.
func openJSONLines(path string) (rowIter, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--dataset-path: %w", err)
	}
	r := bufio.NewReaderSize(f, 64<<10)
	line := 0
	next := func() (hfRow, bool, error) {
		for {
			line++
			b, err := readLine(r, maxValueBytes)
			var start *notObjectStart
			switch {
			case errors.Is(err, errValueTooLarge):
				return hfRow{}, false, fmt.Errorf("%s:%d: the line is longer than %s", path, line, readlimit.Size(maxValueBytes))
			case errors.As(err, &start):
				return hfRow{}, false, fmt.Errorf("%s:%d: not a JSON object: it starts with %s", path, line, readlimit.Quote(start.c))
			case err != nil && !errors.Is(err, io.EOF):
				return hfRow{}, false, fmt.Errorf("read %s: %w", path, err)
			}
			if len(strings.TrimSpace(string(b))) > 0 {
				row, perr := parseJSONRow(b, fmt.Sprintf("%s:%d", path, line))
				return row, perr == nil, perr
			}
			if err != nil {
				return hfRow{}, false, nil
			}
		}
	}
	return next, f, nil
}

// parseJSONRow parses one JSON object into a row.
func parseJSONRow(b []byte, where string) (hfRow, error) {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return hfRow{}, fmt.Errorf("%s: not a JSON object: %w", where, err)
	}
	return hfRow{cols: m, where: where}, nil
}

// openJSON reads a .json file: a list of objects, streamed one object at
// a time, or (like the datasets library's json builder) JSON Lines.
func openJSON(path string) (rowIter, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--dataset-path: %w", err)
	}
	r := bufio.NewReaderSize(f, 64<<10)
	first, err := peekNonSpace(r)
	if err != nil || first != '[' {
		f.Close()
		return openJSONLines(path)
	}
	d := json.NewDecoder(io.LimitReader(r, 1<<40))
	if _, err := d.Token(); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	i := 0
	next := func() (hfRow, bool, error) {
		if !d.More() {
			return hfRow{}, false, nil
		}
		var m map[string]any
		if err := d.Decode(&m); err != nil {
			return hfRow{}, false, fmt.Errorf("%s: item %d: %w", path, i, err)
		}
		i++
		return hfRow{cols: m, where: fmt.Sprintf("%s item %d", path, i-1)}, true, nil
	}
	return next, f, nil
}

// peekNonSpace returns the first byte of r after JSON whitespace, leaving
// it unread.
func peekNonSpace(r *bufio.Reader) (byte, error) {
	for {
		b, err := r.Peek(1)
		if err != nil {
			return 0, err
		}
		if !strings.ContainsRune(" \t\r\n", rune(b[0])) {
			return b[0], nil
		}
		if _, err := r.Discard(1); err != nil {
			return 0, err
		}
	}
}

// openCSV reads a CSV file with a header line; every value is a string
// (vLLM's classes read text columns; numbers are parsed where a class
// compares them).
func openCSV(path string) (rowIter, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--dataset-path: %w", err)
	}
	r := csv.NewReader(bufio.NewReaderSize(f, 64<<10))
	header, err := r.Read()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: no CSV header: %w", path, err)
	}
	next := func() (hfRow, bool, error) {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return hfRow{}, false, nil
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			return hfRow{}, false, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		m := make(map[string]any, len(header))
		for i, h := range header {
			m[h] = rec[i]
		}
		return hfRow{cols: m, where: fmt.Sprintf("%s:%d", path, line)}, true, nil
	}
	return next, f, nil
}

// concatFiles yields the rows of the files one after the other, each file
// opened when the previous one ends.
func concatFiles(files []string) (rowIter, io.Closer) {
	var cur rowIter
	var closer io.Closer
	i := 0
	next := func() (hfRow, bool, error) {
		for {
			if cur == nil {
				if i == len(files) {
					return hfRow{}, false, nil
				}
				it, c, err := openRows(files[i])
				if err != nil {
					return hfRow{}, false, err
				}
				cur, closer = it, c
				i++
			}
			row, ok, err := cur()
			if ok || err != nil {
				return row, ok, err
			}
			closer.Close()
			cur, closer = nil, nil
		}
	}
	return next, closerFunc(func() error {
		if closer != nil {
			return closer.Close()
		}
		return nil
	})
}

// closerFunc is a func as an io.Closer.
type closerFunc func() error

func (f closerFunc) Close() error { return f() }
