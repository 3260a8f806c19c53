package dataset

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gobench/gobench/internal/readlimit"
	"github.com/gobench/gobench/internal/tokenizer"
)

// SpecBench builds vLLM's spec_bench dataset (SpecBench,
// vllm/benchmarks/datasets/datasets.py@11dfa3169): a JSONL file of
// Spec-Bench questions (hemingkx/Spec-Bench's question.jsonl), each line's
// first turn ("turns"[0]) a prompt, only the lines of
// --spec-bench-category when given, shuffled, then sampled as the custom
// dataset samples (chat template, --spec-bench-output-len tokens out,
// oversampling). vLLM's dispatcher passes the class no seed, so the
// shuffle and the oversampling always use seed 0, whatever --seed says.
func SpecBench(opts Options, tok tokenizer.Tokenizer, g *Globals, warn io.Writer) ([]Sample, error) {
	var rows []customRow
	hasTurns, missing := false, 0
	err := readJSONL(opts.Path, "--dataset-path "+opts.Path, func(line int, m map[string]json.RawMessage) error {
		raw, ok := m["turns"]
		hasTurns = hasTurns || ok
		if !categoryMatches(m, opts.SpecBenchCategory) {
			return nil
		}
		if !ok {
			// An error only if the file has the column at all (vLLM
			// checks the column first).
			missing = cmp.Or(missing, line)
			return nil
		}
		var turns []json.RawMessage
		if err := json.Unmarshal(raw, &turns); err != nil || len(turns) == 0 {
			return fmt.Errorf("--dataset-path %s:%d: \"turns\" must be a non-empty list, got %.40s", opts.Path, line, raw)
		}
		row := customRow{line: line}
		if err := json.Unmarshal(turns[0], &row.prompt); err != nil {
			return fmt.Errorf("--dataset-path %s:%d: \"turns\"[0] must be a string, got %.40s", opts.Path, line, turns[0])
		}
		rows = append(rows, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !hasTurns {
		return nil, fmt.Errorf("--dataset-path %s: JSONL file must contain a 'turns' column.", opts.Path)
	}
	if missing > 0 {
		return nil, fmt.Errorf("--dataset-path %s:%d: the line has no \"turns\"", opts.Path, missing)
	}
	return fixedSeedSamples(rows, opts, opts.SpecBenchOutputLen, tok, g, warn)
}

// fixedSeedSamples shuffles rows and samples them as the custom dataset
// does, with seed 0: vLLM's dispatcher gives spec_bench and speed_bench no
// random_seed, so BenchmarkDataset's default (0) seeds both the shuffle and
// the oversampling.
func fixedSeedSamples(rows []customRow, opts Options, outputLen int, tok tokenizer.Tokenizer, g *Globals, warn io.Writer) ([]Sample, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("--dataset-path %s: no row to sample (check the category)", opts.Path)
	}
	o := opts
	o.Seed = 0
	shuffle(rows, o, g.Random)
	return customSamples(rows, takeCount(o, len(rows), warn), o, outputLen, tok, g, warn)
}

// categoryMatches is vLLM's `(not category) or (category == row["category"])`:
// a row without a category never matches a given one.
func categoryMatches(m map[string]json.RawMessage, category string) bool {
	if category == "" {
		return true
	}
	var c string
	return json.Unmarshal(m["category"], &c) == nil && c == category
}

// readJSONL streams a JSONL file of objects, calling fn with each
// non-blank line's number and fields; name names the file in messages.
func readJSONL(path, name string, fn func(line int, m map[string]json.RawMessage) error) error {
	return readJSONLines(path, name, func(line int, b []byte) error {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return fmt.Errorf("%s:%d: not a JSON object: %w", name, line, err)
		}
		return fn(line, m)
	})
}

// readJSONLines streams the non-blank lines of a JSONL file to fn, each
// bounded as the custom dataset's are (maxValueBytes), so that /dev/zero
// or an endless pipe fails instead of exhausting memory.
func readJSONLines(path, name string, fn func(line int, b []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("--dataset-path: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	for line := 1; ; line++ {
		b, err := readLine(r, maxValueBytes)
		var start *notObjectStart
		switch {
		case errors.Is(err, errValueTooLarge):
			return fmt.Errorf("%s:%d: the line is longer than %s", name, line, readlimit.Size(maxValueBytes))
		case errors.As(err, &start):
			return fmt.Errorf("%s:%d: not a JSON object: it starts with %s", name, line, readlimit.Quote(start.c))
		}
		if len(bytes.TrimSpace(b)) > 0 {
			if ferr := fn(line, b); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
	}
}
