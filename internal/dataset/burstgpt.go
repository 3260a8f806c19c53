package dataset

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/numpyrand"
	"github.com/gobench/gobench/internal/tokenizer"
)

// maxCSVLine bounds one line of a BurstGPT CSV file (real lines are about
// 50 bytes), so that a file without newlines fails at once.
const maxCSVLine = 64 << 10

// burstRow is the part of a BurstGPT row vLLM uses: the third and fourth
// columns (request and response tokens).
type burstRow struct{ in, out int }

// BurstGPT builds vLLM's burstgpt dataset (BurstGPTDataset,
// vllm/benchmarks/datasets/datasets.py@11dfa3169): the rows of the
// BurstGPT CSV trace whose Model is "GPT-4" and whose Response tokens are
// positive, --num-prompts of them drawn as pandas' DataFrame.sample(n,
// random_state=seed) draws them (NumPy's legacy RandomState: a permutation,
// or with replacement when the file has fewer rows), each prompt the
// decoded token ids (i + j) mod vocab_size for j below the row's request
// tokens, which are its prompt length, and the row's response tokens its
// output length. The trace's timestamps are not used (vLLM ignores them).
func BurstGPT(opts Options, tok tokenizer.Tokenizer, g *Globals, warn io.Writer) ([]Sample, error) {
	rows, err := readBurstGPT(opts.Path)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("--dataset-path %s: no row with Model GPT-4 and positive Response tokens", opts.Path)
	}
	picked := pandasSample(len(rows), opts.NumPrompts, uint32(opts.Seed))
	vocab := tok.VocabSize()
	samples := make([]Sample, len(picked))
	for i, k := range picked {
		r := rows[k]
		ids := make([]int, r.in)
		for j := range ids {
			ids[j] = (i + j) % vocab
		}
		samples[i] = Sample{Prompt: tok.Decode(ids), PromptLen: r.in, ExpectedOutputLen: r.out,
			RequestID: opts.RequestIDPrefix + strconv.Itoa(i)}
	}
	return samples, nil
}

// pandasSample is the row positions DataFrame.sample(n=n,
// random_state=seed, replace=n > rows) picks: RandomState(seed).choice,
// which is permutation(rows)[:n] without replacement and randint(0, rows,
// n) with it.
func pandasSample(rows, n int, seed uint32) []int {
	rng := numpyrand.NewLegacy(seed)
	out := make([]int, n)
	if n > rows {
		for i := range out {
			out[i] = int(rng.RandInt(0, int64(rows)))
		}
		return out
	}
	// RandomState.shuffle of arange(rows): for i from rows-1 down to 1,
	// swap with random_interval(i), NumPy's masked rejection draw.
	perm := make([]int, rows)
	for i := range perm {
		perm[i] = i
	}
	for i := rows - 1; i > 0; i-- {
		j := int(rng.RandInt(0, int64(i)+1))
		perm[i], perm[j] = perm[j], perm[i]
	}
	copy(out, perm)
	return out
}

// readBurstGPT reads the kept rows of a BurstGPT CSV file: a header naming
// "Model" and "Response tokens", then rows whose third and fourth columns
// are numbers.
func readBurstGPT(path string) ([]burstRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--dataset-path: %w", err)
	}
	defer f.Close()
	name := "--dataset-path " + path
	r := bufio.NewReaderSize(f, maxCSVLine)
	var rows []burstRow
	model, resp := -1, -1
	for line := 1; ; line++ {
		b, err := readLine(r, maxCSVLine)
		var start *notObjectStart
		if errors.Is(err, errValueTooLarge) || errors.As(err, &start) {
			return nil, fmt.Errorf("%s:%d: the line is longer than %d bytes: not a BurstGPT CSV file", name, line, maxCSVLine)
		}
		if t := bytes.TrimSpace(b); len(t) > 0 {
			rec, cerr := csv.NewReader(bytes.NewReader(t)).Read()
			if cerr != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, line, cerr)
			}
			if model < 0 {
				model, resp = slices.Index(rec, "Model"), slices.Index(rec, "Response tokens")
				if model < 0 || resp < 0 || len(rec) < 4 {
					return nil, fmt.Errorf("%s:%d: the header must name the columns Model and Response tokens (BurstGPT's CSV)", name, line)
				}
			} else if row, keep, rerr := burstRecord(rec, model, resp); rerr != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, line, rerr)
			} else if keep {
				rows = append(rows, row)
			}
		}
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
	}
}

// burstRecord applies vLLM's filter (Model == "GPT-4", Response tokens > 0)
// and reads the third and fourth columns as Python's int() reads what pandas
// loaded (an integer, or a float truncated).
func burstRecord(rec []string, model, resp int) (burstRow, bool, error) {
	if len(rec) <= max(model, resp, 3) {
		return burstRow{}, false, fmt.Errorf("%d columns, fewer than the header's", len(rec))
	}
	if rec[model] != "GPT-4" || strings.TrimSpace(rec[resp]) == "" {
		// pandas reads an empty cell as NaN, which is not > 0.
		return burstRow{}, false, nil
	}
	r, err := csvNumber(rec[resp], "Response tokens")
	if err != nil || !(r > 0) {
		return burstRow{}, false, err
	}
	in, err := csvNumber(rec[2], "the third column (Request tokens)")
	if err != nil {
		return burstRow{}, false, err
	}
	out, err := csvNumber(rec[3], "the fourth column (Response tokens)")
	if err != nil {
		return burstRow{}, false, err
	}
	if in < 0 || in > MaxTokens || out > MaxTokens {
		return burstRow{}, false, fmt.Errorf("token counts %v and %v: outside 0 to %d", in, out, MaxTokens)
	}
	return burstRow{in: int(in), out: int(out)}, true, nil
}

// csvNumber parses one numeric cell.
func csvNumber(cell, what string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(cell), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s must be a number, got %q", what, cell)
	}
	return v, nil
}
