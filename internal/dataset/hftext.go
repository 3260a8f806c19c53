package dataset

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/tokenizer"
)

// The text classes of vLLM's hf dataset, each a port of its sample()
// (vllm/benchmarks/datasets/datasets.py@003cf0297). Request ids count
// either every row read (enumerate(self.data)) or the accepted ones (ind),
// as each class does.

// str reads a text column; Python's f-strings would print None for a null,
// which no real dataset has, so a null or another type is an error naming
// the row.
func (row hfRow) str(key string) (string, error) {
	v, ok := row.cols[key]
	if !ok {
		return "", fmt.Errorf("%s: no column %q", row.where, key)
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: column %q must be text, got %s", row.where, key, typeName(v))
	}
	return s, nil
}

// float reads a number column (a CSV file's text is parsed).
func (row hfRow) float(key string) (float64, error) {
	switch v := row.cols[key].(type) {
	case float64:
		return v, nil
	case float32:
		return float64(v), nil
	case int64:
		return float64(v), nil
	case int32:
		return float64(v), nil
	case int:
		return float64(v), nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err == nil {
			return f, nil
		}
	}
	return 0, fmt.Errorf("%s: column %q must be a number, got %s", row.where, key, typeName(row.cols[key]))
}

// list reads a list column.
func (row hfRow) list(key string) ([]any, error) {
	l, ok := row.cols[key].([]any)
	if !ok {
		return nil, fmt.Errorf("%s: column %q must be a list, got %s", row.where, key, typeName(row.cols[key]))
	}
	return l, nil
}

// typeName names a value's type as the data has it.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null (or no such column)"
	case string:
		return "text"
	case []any:
		return "a list"
	case map[string]any:
		return "a struct"
	}
	return fmt.Sprintf("%T", v)
}

// isValidSequence is vLLM's is_valid_sequence with min_len 4.
func isValidSequence(promptLen, outputLen, maxPrompt, maxTotal int) bool {
	return promptLen >= 4 && outputLen >= 4 && promptLen <= maxPrompt && promptLen+outputLen <= maxTotal
}

// eachRow calls f with every row and its index until f says stop.
func eachRow(rows rowIter, f func(i int, row hfRow) (stop bool, err error)) error {
	for i := 0; ; i++ {
		row, ok, err := rows()
		if err != nil || !ok {
			return err
		}
		stop, err := f(i, row)
		if err != nil || stop {
			return err
		}
	}
}

// textColumn is HumanEvalDataset and GSM8KDataset: a text column,
// chat-formatted, ids by row.
func textColumn(col string, def int) func(r *hfRun, rows rowIter) ([]Sample, error) {
	return func(r *hfRun, rows rowIter) ([]Sample, error) {
		return promptPerRow(r, rows, def, func(row hfRow) (string, error) { return row.str(col) })
	}
}

// firstTurnColumn is MTBenchDataset: the first item of a list column.
func firstTurnColumn(col string, def int) func(r *hfRun, rows rowIter) ([]Sample, error) {
	return func(r *hfRun, rows rowIter) ([]Sample, error) {
		return promptPerRow(r, rows, def, func(row hfRow) (string, error) {
			l, err := row.list(col)
			if err != nil {
				return "", err
			}
			if len(l) == 0 {
				return "", fmt.Errorf("%s: column %q is empty", row.where, col)
			}
			s, ok := l[0].(string)
			if !ok {
				return "", fmt.Errorf("%s: %s[0] must be text, got %s", row.where, col, typeName(l[0]))
			}
			return s, nil
		})
	}
}

// promptPerRow is the shape of the single-turn classes: one
// chat-formatted prompt per row, ids by row, the output length fixed. The
// prompts are counted on all cores once read.
func promptPerRow(r *hfRun, rows rowIter, def int, prompt func(hfRow) (string, error)) ([]Sample, error) {
	out := r.outputLen(def)
	var samples []Sample
	err := eachRow(rows, func(i int, row hfRow) (bool, error) {
		if len(samples) >= r.opts.NumPrompts {
			return true, nil
		}
		p, err := prompt(row)
		if err != nil {
			return false, err
		}
		if p, err = r.userPrompt(p, row.where); err != nil {
			return false, err
		}
		samples = append(samples, Sample{Prompt: p, ExpectedOutputLen: out, RequestID: r.id(i)})
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	r.countPrompts(samples)
	return samples, nil
}

// instructCoder is InstructCoderDataset: the first --num-prompts rows
// (take(n)), the code then the instruction.
func instructCoder(r *hfRun, rows rowIter) ([]Sample, error) {
	return promptPerRow(r, rows, 200, func(row hfRow) (string, error) {
		in, err := row.str("input")
		if err != nil {
			return "", err
		}
		instr, err := row.str("instruction")
		if err != nil {
			return "", err
		}
		return in + "\n\n" + instr + " Just output the code, do not include any explanation.", nil
	})
}

// conversation is ConversationDataset (and MultiModalConversationDataset,
// the same code): rows with at least two turns; the first is the prompt
// (no chat template), the second's length the output unless
// --hf-output-len; is_valid_sequence filters when the output is the
// completion's; a row with an "image" column carries it (process_image);
// ids count accepted rows.
func conversation(r *hfRun, rows rowIter) ([]Sample, error) {
	return promptCompletion(r, rows, 1024, 2048, func(row hfRow) (pair, error) {
		conv, err := row.list("conversations")
		if err != nil || len(conv) < 2 {
			return pair{}, err
		}
		var turns [2]string
		for k := range turns {
			m, ok := conv[k].(map[string]any)
			v, ok2 := m["value"].(string)
			if !ok || !ok2 {
				return pair{}, fmt.Errorf("%s: conversations[%d].value must be text", row.where, k)
			}
			turns[k] = v
		}
		return pair{prompt: turns[0], completion: turns[1], keep: true}, nil
	})
}

// aimo is AIMODataset: problem and solution, with is_valid_sequence's
// max_prompt_len=2048, max_total_len=32000.
func aimo(r *hfRun, rows rowIter) ([]Sample, error) {
	return promptCompletion(r, rows, 2048, 32000, func(row hfRow) (pair, error) {
		p, err := row.str("problem")
		if err != nil {
			return pair{}, err
		}
		c, err := row.str("solution")
		return pair{prompt: p, completion: c, keep: err == nil, noImage: true}, err
	})
}

// pair is one row of ConversationDataset or AIMODataset: its prompt and
// completion; keep=false skips the row (the filter before the loop);
// noImage: the class never reads an "image" column (AIMO).
type pair struct {
	prompt, completion string
	keep, noImage      bool
}

// promptCompletion is the shape of ConversationDataset and AIMODataset:
// prompt and completion counted with special tokens, the sample kept by
// pairSample's rule.
func promptCompletion(r *hfRun, rows rowIter, maxPrompt, maxTotal int, read func(hfRow) (pair, error)) ([]Sample, error) {
	count := func(b *readPair) { b.promptLen, b.completionLen = r.count(b.pr.prompt), r.count(b.pr.completion) }
	take := func(b readPair, number int) (Sample, bool, error) {
		return pairSample(r, b, maxPrompt, maxTotal, number)
	}
	return batched(r, rows, read, count, take)
}

// batched is the loop of the classes whose choice of rows depends on token
// counts. The rows are read a batch at a time and counted on all cores
// (count, for the rows read kept), then taken in order as the serial loop
// takes them (take, given the number of samples so far). A batch is never
// more rows than samples are missing, each row giving at most one, so no
// row is read that the serial loop would not read; and, like it (eachRow),
// one more row is read once the samples are complete.
func batched(r *hfRun, rows rowIter, read func(hfRow) (pair, error), count func(*readPair),
	take func(readPair, int) (Sample, bool, error)) ([]Sample, error) {
	var samples []Sample
	for {
		if len(samples) >= r.opts.NumPrompts {
			// The serial loop reads the next row before it stops.
			if _, _, err := rows(); err != nil {
				return nil, err
			}
			return samples, nil
		}
		batch, done, readErr := readPairs(rows, min(genWindow, r.opts.NumPrompts-len(samples)), read)
		forEach(len(batch), r.workers, func(j int) {
			if b := &batch[j]; b.err == nil && b.pr.keep {
				count(b)
			}
		})
		for _, b := range batch {
			s, ok, err := take(b, len(samples))
			if err != nil {
				return nil, err
			}
			if ok {
				samples = append(samples, s)
			}
		}
		if readErr != nil {
			return nil, readErr
		}
		if done {
			return samples, nil
		}
	}
}

// readPair is one row read by promptCompletion, its pair and their
// counts.
type readPair struct {
	row                      hfRow
	pr                       pair
	err                      error // read's
	promptLen, completionLen int
}

// readPairs reads up to n rows and their pairs, stopping after a pair
// that read refuses; done says the rows ended, err is their own error.
func readPairs(rows rowIter, n int, read func(hfRow) (pair, error)) (batch []readPair, done bool, err error) {
	for len(batch) < n {
		row, ok, err := rows()
		if err != nil || !ok {
			return batch, true, err
		}
		pr, err := read(row)
		batch = append(batch, readPair{row: row, pr: pr, err: err})
		if err != nil {
			return batch, true, nil
		}
	}
	return batch, false, nil
}

// pairSample is the number-th sample of a row of promptCompletion, if the
// row gives one.
func pairSample(r *hfRun, b readPair, maxPrompt, maxTotal, number int) (Sample, bool, error) {
	if b.err != nil || !b.pr.keep {
		return Sample{}, false, b.err
	}
	dynamic := r.opts.HFOutputLen == nil
	out := b.completionLen
	if !dynamic {
		out = *r.opts.HFOutputLen
	}
	if out <= 0 {
		// vLLM: assert isinstance(output_len, int) and output_len > 0.
		return Sample{}, false, fmt.Errorf("%s: the output length must be positive (got %d)", b.row.where, out)
	}
	if dynamic && !isValidSequence(b.promptLen, b.completionLen, maxPrompt, maxTotal) {
		return Sample{}, false, nil
	}
	s := Sample{Prompt: b.pr.prompt, PromptLen: b.promptLen, ExpectedOutputLen: out, RequestID: r.id(number)}
	if img, ok := b.row.cols["image"]; ok && !b.pr.noImage {
		part, err := processImage(img, b.row.where)
		if err != nil {
			return Sample{}, false, err
		}
		s.MultiModal = []*pyjson.Object{part}
	}
	return s, true, nil
}

// blazeditPrompt is BlazeditDataset's prompt (from blazedit's
// create_refined_dataset.py).
const blazeditPrompt = "Given a code file, please apply the change requests and generate the new file.\n\nOriginal file:\n```python\n%s\n```\n\nChange request:\n%s\n\nPlease generate the new code file in the \"New file\" section below."

// blazedit is BlazeditDataset: rows whose norm_distance is within
// --blazedit-min-distance and --blazedit-max-distance; ids by row, skipped
// rows included.
func blazedit(r *hfRun, rows rowIter) ([]Sample, error) {
	out := r.outputLen(4000)
	var samples []Sample
	err := eachRow(rows, func(i int, row hfRow) (bool, error) {
		if len(samples) >= r.opts.NumPrompts {
			return true, nil
		}
		code, err := row.str("code")
		if err != nil {
			return false, err
		}
		change, err := row.str("change_request")
		if err != nil {
			return false, err
		}
		d, err := row.float("norm_distance")
		if err != nil {
			return false, err
		}
		if d < r.opts.BlazeditMinDistance || d > r.opts.BlazeditMaxDistance {
			return false, nil
		}
		p, err := r.userPrompt(fmt.Sprintf(blazeditPrompt, code, change), row.where)
		if err != nil {
			return false, err
		}
		samples = append(samples, Sample{Prompt: p, ExpectedOutputLen: out, RequestID: r.id(i)})
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	r.countPrompts(samples)
	return samples, nil
}

// zetaPrompt is vLLM's zeta_prompt for zed-industries/zeta.
const zetaPrompt = "### Instruction:\nYou are a code completion assistant and your task is to analyze user edits and then rewrite an excerpt that the user provides, suggesting the appropriate edits within the excerpt, taking into account the cursor location.\n\n### User Edits:\n\n%s\n\n### User Excerpt:\n\n%s\n\n### Response:\n\n"

// nextEdit is NextEditPredictionDataset with _format_zeta_prompt: the
// expected output is the reference from <|editable_region_start|> on (its
// last character when the marker is missing, as Python's output[-1:]);
// no chat template; ids by row; the count is checked after appending.
func nextEdit(r *hfRun, rows rowIter) ([]Sample, error) {
	var samples []Sample
	var outputs []string // the expected outputs, counted with the prompts
	err := eachRow(rows, func(i int, row hfRow) (bool, error) {
		var f [3]string
		for k, col := range []string{"events", "input", "output"} {
			s, err := row.str(col)
			if err != nil {
				return false, err
			}
			f[k] = s
		}
		p := fmt.Sprintf(zetaPrompt, f[0], f[1])
		expected := f[2]
		if k := strings.Index(expected, "<|editable_region_start|>"); k >= 0 {
			expected = expected[k:]
		} else if expected != "" {
			_, n := utf8.DecodeLastRuneInString(expected)
			expected = expected[len(expected)-n:]
		}
		samples = append(samples, Sample{Prompt: p, RequestID: r.id(i)})
		outputs = append(outputs, expected)
		return len(samples) >= r.opts.NumPrompts, nil
	})
	if err != nil {
		return nil, err
	}
	forEach(len(samples), r.workers, func(j int) {
		samples[j].PromptLen, samples[j].ExpectedOutputLen = r.count(samples[j].Prompt), r.count(outputs[j])
	})
	return samples, nil
}

// mlperf is MLPerfDataset: the system prompt and the question through the
// chat template (always), the output length from the reference answer's
// tokens without special tokens unless --hf-output-len, is_valid_sequence
// with its defaults (on the output length used, --hf-output-len's too);
// ids count accepted rows. Its rows are counted on all cores (batched).
func mlperf(r *hfRun, rows rowIter) ([]Sample, error) {
	read := func(row hfRow) (pair, error) {
		var f [3]string
		for k, col := range []string{"system_prompt", "question", "output"} {
			s, err := row.str(col)
			if err != nil {
				return pair{}, err
			}
			f[k] = s
		}
		p, err := r.chat([]tokenizer.Message{{Role: "system", Content: f[0]}, {Role: "user", Content: f[1]}}, row.where)
		return pair{prompt: p, completion: f[2], keep: err == nil}, err
	}
	count := func(b *readPair) {
		b.promptLen = r.count(b.pr.prompt)
		if r.opts.HFOutputLen == nil {
			b.completionLen = len(r.tok.Encode(b.pr.completion, false))
		}
	}
	take := func(b readPair, number int) (Sample, bool, error) {
		if b.err != nil {
			return Sample{}, false, b.err
		}
		out := r.outputLen(b.completionLen)
		if !isValidSequence(b.promptLen, out, 1024, 2048) {
			return Sample{}, false, nil
		}
		return Sample{Prompt: b.pr.prompt, PromptLen: b.promptLen, ExpectedOutputLen: out, RequestID: r.id(number)}, true, nil
	}
	return batched(r, rows, read, count, take)
}
