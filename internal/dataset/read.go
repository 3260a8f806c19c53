package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/gobench/gobench/internal/jsonlist"
	"github.com/gobench/gobench/internal/readlimit"
)

// maxValueBytes bounds one value of a dataset file: a custom JSONL line or
// one ShareGPT conversation. Files are streamed, so memory follows what is
// kept (the prompts) and this bound, never the file: --dataset-path
// /dev/zero or a pipe that never ends fails instead of growing until the
// kernel kills the process. Real values are kilobytes (the ShareGPT file
// vLLM's documentation uses, about 650 MB, holds about 94,000
// conversations, 7 KB each); 64 MiB of text is over ten million tokens,
// more than any model's context window.
const maxValueBytes = 64 << 20

// errValueTooLarge is readLine's error past its bound, the same as jsonlist's.
var errValueTooLarge = jsonlist.ErrTooLarge

// customRow is one line of a custom JSONL file.
type customRow struct {
	line         int
	prompt       string
	outputTokens json.RawMessage // nil when absent
	audio        json.RawMessage // custom_audio's clip; nil when absent
}

// readCustom reads the rows of a custom JSONL file, naming the flag, the
// file and the line of any problem.
func readCustom(path string) ([]customRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--dataset-path: %w", err)
	}
	defer f.Close()
	return parseCustom(f, "--dataset-path "+path, maxValueBytes)
}

// parseCustom parses custom JSONL from in, one line at a time, no line
// longer than maxLine bytes; name names the input in messages.
func parseCustom(in io.Reader, name string, maxLine int) ([]customRow, error) {
	r := bufio.NewReaderSize(in, 64<<10)
	var rows []customRow
	hasPrompt := false
	for line := 1; ; line++ {
		b, err := readLine(r, maxLine)
		var start *notObjectStart
		switch {
		case errors.Is(err, errValueTooLarge):
			return nil, fmt.Errorf("%s:%d: the line is longer than %s, which no prompt is", name, line, readlimit.Size(int64(maxLine)))
		case errors.As(err, &start):
			return nil, fmt.Errorf("%s:%d: not a JSON object: it starts with %s", name, line, readlimit.Quote(start.c))
		}
		if len(bytes.TrimSpace(b)) > 0 {
			row, err := parseRow(b, name, line)
			if err != nil {
				return nil, err
			}
			hasPrompt = hasPrompt || row.line > 0
			rows = append(rows, row)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
	}
	if !hasPrompt {
		return nil, fmt.Errorf("%s: JSONL file must contain a 'prompt' column.", name)
	}
	for _, row := range rows {
		if row.line < 0 {
			return nil, fmt.Errorf("%s:%d: the line has no \"prompt\"", name, -row.line)
		}
	}
	return rows, nil
}

// parseRow parses one line of a custom JSONL file. A row without "prompt"
// gets the negated line number: it is an error only if the file has the
// column at all (vLLM checks the column first).
func parseRow(b []byte, name string, line int) (customRow, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return customRow{}, fmt.Errorf("%s:%d: not a JSON object: %v", name, line, err)
	}
	row := customRow{line: line, outputTokens: m["output_tokens"], audio: m["audio"]}
	p, ok := m["prompt"]
	if !ok {
		row.line = -line
		return row, nil
	}
	if err := json.Unmarshal(p, &row.prompt); err != nil {
		return customRow{}, fmt.Errorf("%s:%d: \"prompt\" must be a string, got %.40s", name, line, p)
	}
	return row, nil
}

// notObjectStart is readLine's error for a long line that cannot be a JSON
// object.
type notObjectStart struct{ c byte }

func (e *notObjectStart) Error() string { return "not a JSON object" }

// readLine returns the next line of r, its newline included, failing with
// errValueTooLarge past limit bytes. A line longer than r's buffer whose first
// character (after JSON whitespace) is not '{' fails with a
// *notObjectStart as soon as that is seen, so that a stream without
// newlines (/dev/zero) fails after one buffer.
func readLine(r *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > limit {
			return nil, errValueTooLarge
		}
		line = append(growCapped(line, len(chunk), limit), chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
		if t := bytes.TrimLeft(line, " \t\r\n"); len(t) > 0 && t[0] != '{' {
			return nil, &notObjectStart{c: t[0]}
		}
	}
}

// growCapped makes room in b for n more bytes, doubling its capacity but
// never past limit: append's own growth, on the way to the bound, would
// allocate about five times it.
func growCapped(b []byte, n, limit int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	return slices.Grow(b, max(n, min(cap(b), limit-len(b))))
}

// shareGPTEntry is the part of a ShareGPT conversation the dataset keeps:
// the first two turns' values (prompt and completion), not the rest.
type shareGPTEntry struct {
	turns [2]json.RawMessage
	media bool // the entry has an image or a video
	// image and video are the entry's fields of those names (nil when
	// absent), read when the entry is sampled.
	image, video json.RawMessage
	index        int // position in the file, for messages
}

// readShareGPT reads the entries with at least two turns, keeping their file
// order, streaming the file, decoding on up to workers goroutines.
func readShareGPT(path string, workers int) ([]shareGPTEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--dataset-path: %w", err)
	}
	defer f.Close()
	return decodeShareGPT(f, "--dataset-path "+path, maxValueBytes, workers)
}

// decodeShareGPT decodes a ShareGPT list from in, none of its
// conversations larger than limit bytes; name names the input in messages,
// which give the line and column. One goroutine finds the conversations
// (elements) while up to workers decode the ones found before; the entries
// and the error are the serial loop's: a conversation's error comes before
// any found after it.
func decodeShareGPT(in io.Reader, name string, limit, workers int) ([]shareGPTEntry, error) {
	l := jsonlist.New(in, name, limit)
	if err := l.Open("not a ShareGPT JSON file (a JSON list of conversations)"); err != nil {
		return nil, err
	}
	stop := make(chan struct{})
	defer close(stop)
	var out []shareGPTEntry
	for b := range readElements(l, stop) {
		type decoded struct {
			e    shareGPTEntry
			keep bool
			err  error
		}
		d := make([]decoded, len(b.values))
		forEach(len(b.values), workers, func(j int) {
			d[j].e, d[j].keep, d[j].err = shareGPTConversation(b.values[j].Data)
		})
		for j := range d {
			if d[j].err != nil {
				return nil, l.ValueError(b.values[j], b.first+j, d[j].err)
			}
			if d[j].keep {
				d[j].e.index = b.first + j
				out = append(out, d[j].e)
			}
		}
		i := b.first + len(b.values)
		switch {
		case errors.Is(b.err, errValueTooLarge):
			return nil, fmt.Errorf("%s:%d: conversation %d is larger than %s, which no conversation is", name, b.errLine, i, readlimit.Size(int64(limit)))
		case b.err != nil:
			return nil, b.err
		case b.end:
			return out, nil
		}
	}
	return out, nil
}

// elementBatch is a run of a list's elements, copied out of the reader;
// the last batch ends the list (end) or holds the error that stopped the
// reading (err, at line errLine for an element too large).
type elementBatch struct {
	first   int // the index of values[0] in the list
	values  []jsonlist.Value
	end     bool
	err     error
	errLine int
}

// elementBatchBytes and elementBatchLen bound a batch: large enough that
// the hand-over costs nothing per element, small enough that the decoders
// start at once and the copies stay a few megabytes.
const (
	elementBatchBytes = 1 << 20
	elementBatchLen   = 256
)

// readElements reads l's elements on a goroutine of its own, in batches,
// until the list ends, an error, or stop closes.
func readElements(l *jsonlist.Reader, stop <-chan struct{}) <-chan elementBatch {
	ch := make(chan elementBatch, 2)
	go func() {
		defer close(ch)
		b := elementBatch{}
		size := 0
		for i := 0; ; i++ {
			v, ok, err := l.Element(i == 0)
			if err != nil || !ok {
				b.end, b.err, b.errLine = true, err, v.Line
			} else {
				v.Data = bytes.Clone(v.Data)
				b.values = append(b.values, v)
				size += len(v.Data)
			}
			if b.end || len(b.values) == elementBatchLen || size >= elementBatchBytes {
				select {
				case ch <- b:
				case <-stop:
					return
				}
				if b.end {
					return
				}
				b, size = elementBatch{first: i + 1}, 0
			}
		}
	}()
	return ch
}

// shareGPTConversation keeps what the dataset reads of one entry; keep is
// false for entries vLLM drops: not objects (`"conversations" in entry` is
// false), or fewer than two turns.
func shareGPTConversation(raw []byte) (e shareGPTEntry, keep bool, err error) {
	if e, keep, ok := scanShareGPTConversation(raw); ok {
		return e, keep, nil
	}
	return decodeShareGPTConversation(raw)
}

// decodeShareGPTConversation is shareGPTConversation by json.Unmarshal.
func decodeShareGPTConversation(raw []byte) (e shareGPTEntry, keep bool, err error) {
	if raw[0] != '{' {
		var skip json.RawMessage // still valid JSON, as json.load requires
		return e, false, json.Unmarshal(raw, &skip)
	}
	var c struct {
		Conversations []struct {
			Value json.RawMessage `json:"value"`
		} `json:"conversations"`
		Image json.RawMessage `json:"image"`
		Video json.RawMessage `json:"video"`
	}
	if err := json.Unmarshal(raw, &c); err != nil || len(c.Conversations) < 2 {
		return e, false, err
	}
	e.turns = [2]json.RawMessage{c.Conversations[0].Value, c.Conversations[1].Value}
	e.media = !isNull(c.Image) || !isNull(c.Video)
	e.image, e.video = c.Image, c.Video
	return e, true, nil
}
