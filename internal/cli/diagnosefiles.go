package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/gobench/gobench/internal/atomicfile"
	"github.com/gobench/gobench/internal/diagnose"
	"github.com/gobench/gobench/internal/readlimit"
	"github.com/gobench/gobench/internal/serverapi"
)

// readMetricsFile reads one --metrics-file page, bounded as a live scrape
// is; a file that cannot be read is a command-line error naming it.
func readMetricsFile(path string) ([]byte, error) {
	data, err := readlimit.File(path, serverapi.DefaultMaxBody)
	if err != nil {
		return nil, argErrorf("argument --metrics-file: %v", err)
	}
	return data, nil
}

// checkSaveDir proves the --save-scrapes directory writable before the
// window is waited for.
func checkSaveDir(dir string) error {
	p, err := atomicfile.Prepare(dir, "gobench-scrape")
	if err != nil {
		return argErrorf("argument --save-scrapes: %v", err)
	}
	p.Abort()
	return nil
}

// saveScrapes writes both ends' pages as start-N.prom and end-N.prom (N
// the source's number), each with the line that records its source and
// time, and says how to read them again.
func saveScrapes(dir string, col *diagnose.Collection, w io.Writer) error {
	var starts, ends []string
	save := func(end string, pages [][]byte, names *[]string) error {
		at := col.StartedAt
		if end == "end" {
			at = col.EndedAt
		}
		for i, page := range pages {
			path := filepath.Join(dir, fmt.Sprintf("%s-%d.prom", end, i+1))
			p, err := atomicfile.Prepare(dir, filepath.Base(path))
			if err != nil {
				return fmt.Errorf("--save-scrapes: %w", err)
			}
			if err := p.Replace(path, diagnose.Saved(page, col.Sources[i], at)); err != nil {
				return fmt.Errorf("--save-scrapes: %w", err)
			}
			*names = append(*names, path)
		}
		return nil
	}
	if err := save("start", col.Start, &starts); err != nil {
		return err
	}
	if err := save("end", col.End, &ends); err != nil {
		return err
	}
	fmt.Fprintf(w, "Saved %d pages in %s; diagnose them again with:\n  gobench diagnose --metrics-file %s --metrics-file %s\n",
		len(starts)+len(ends), dir, strings.Join(starts, ","), strings.Join(ends, ","))
	return nil
}
