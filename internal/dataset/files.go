package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/jsonscan"
	"github.com/gobench/gobench/internal/tokenizer"
)

// ErrChatTemplate is returned when a dataset would apply the tokenizer's
// chat template and the tokenizer has none (transformers raises there too).
// The command line can fix it, so it exits with status 2.
var ErrChatTemplate = exitcode.With(errors.New("the tokenizer has no chat template to apply: pass --skip-chat-template to send the prompts as they are"), exitcode.BadUsage)

// Custom builds vLLM's custom dataset (CustomDataset): a JSONL file with a
// "prompt" per line and an optional "output_tokens", shuffled with
// random.seed(seed) unless --disable-shuffle, output lengths from
// --custom-output-len or (with -1) each row, then oversampled.
func Custom(opts Options, tok tokenizer.Tokenizer, g *Globals, warn io.Writer) ([]Sample, error) {
	if opts.Path == "" {
		return nil, errors.New("--dataset-name custom needs --dataset-path to a .jsonl file")
	}
	if !strings.HasSuffix(opts.Path, ".jsonl") {
		return nil, fmt.Errorf("--dataset-path %s: Only JSONL format is supported for CustomDataset.", opts.Path)
	}
	if _, err := customChat(opts, tok); err != nil {
		return nil, err
	}
	rows, n, err := customRows(opts, g, warn)
	if err != nil {
		return nil, err
	}
	return customSamples(rows, n, opts, opts.CustomOutputLen, tok, g, warn)
}

// customChat is the tokenizer's chat template, which the custom sampler
// applies unless --skip-chat-template; nil without a tokenizer or with
// that flag.
func customChat(opts Options, tok tokenizer.Tokenizer) (tokenizer.ChatTemplater, error) {
	if tok == nil || opts.SkipChatTemplate {
		return nil, nil
	}
	c, ok := tok.(tokenizer.ChatTemplater)
	if !ok {
		return nil, fmt.Errorf("--dataset-name %s: tokenizer %s: %w", opts.Name, tok.Name(), ErrChatTemplate)
	}
	return c, nil
}

// takeCount is how many samples vLLM's CustomDataset.sample takes of
// total: --num-prompts, or every one when it is 0 or less, as vLLM logs.
func takeCount(opts Options, total int, warn io.Writer) int {
	if opts.NumPrompts > 0 {
		return opts.NumPrompts
	}
	fmt.Fprintf(warn, "num_requests is set to 0 or negative, so using all available samples: %d\n", total)
	return total
}

// customSamples is vLLM's CustomDataset.sample over rows already loaded
// (and shuffled): the first n rows (takeCount), chat-formatted unless
// --skip-chat-template, counted with the tokenizer, with outputLen tokens
// (-1: each row's output_tokens), then oversampled to n. spec_bench and
// speed_bench sample through it, as their vLLM classes do.
func customSamples(rows []customRow, n int, opts Options, outputLen int, tok tokenizer.Tokenizer, g *Globals, warn io.Writer) ([]Sample, error) {
	chat, err := customChat(opts, tok)
	if err != nil {
		return nil, err
	}
	var samples []Sample
	for i, row := range rows {
		if len(samples) >= n {
			break
		}
		s := Sample{Prompt: row.prompt, RequestID: opts.RequestIDPrefix + strconv.Itoa(i)}
		if chat != nil {
			// vLLM: apply_chat_template([{"role": "user", "content": p}],
			// add_generation_prompt=True, tokenize=False).
			p, err := chat.ApplyChatTemplate([]tokenizer.Message{{Role: "user", Content: row.prompt}}, true, opts.ChatTemplateKwargs)
			if errors.Is(err, tokenizer.ErrNoChatTemplate) {
				return nil, fmt.Errorf("--dataset-name %s: %w (%w)", opts.Name, ErrChatTemplate, err)
			}
			if err != nil {
				return nil, fmt.Errorf("--dataset-name %s: %s:%d: %w", opts.Name, opts.Path, row.line, err)
			}
			s.Prompt = p
		}
		switch tok {
		case nil:
			// vLLM without a tokenizer: one token in, one token out.
			s.PromptLen, s.ExpectedOutputLen = 1, 1
		default:
			// tokenizer(prompt).input_ids, special tokens included (even
			// when the template already wrote a BOS, as vLLM counts it).
			s.PromptLen = len(tok.Encode(s.Prompt, true))
			if outputLen == -1 {
				if row.outputTokens == nil {
					return nil, fmt.Errorf("%s:%d: If no output length is provided the custom dataset must contain an 'output_tokens' field.", opts.Path, row.line)
				}
				v, err := pyInt(row.outputTokens)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: Invalid value for 'output_tokens' in custom dataset: '%s'. Must be an integer.", opts.Path, row.line, bytes.Trim(row.outputTokens, `"`))
				}
				s.ExpectedOutputLen = v
			} else {
				s.ExpectedOutputLen = outputLen
			}
		}
		samples = append(samples, s)
	}
	o := opts
	o.NumPrompts = n
	return oversample(samples, o, g.Random, warn)
}

// pyInt converts an output_tokens value as Python's int() does on what pandas
// loaded: an integral number, a float (truncated), or a string of digits.
func pyInt(raw json.RawMessage) (int, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, err
	}
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, errors.New("not finite")
		}
		return int(x), nil
	case string:
		return strconv.Atoi(strings.TrimSpace(x))
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	}
	return 0, fmt.Errorf("not a number: %s", raw)
}

// ShareGPT builds vLLM's sharegpt dataset: entries with at least two turns,
// shuffled with random.seed(seed) unless --disable-shuffle; the first turn
// is the prompt and the second's token count the output length (or
// --sharegpt-output-len); is_valid_sequence filters; ids count accepted
// entries; then oversampling.
func ShareGPT(opts Options, tok tokenizer.Tokenizer, g *Globals, warn io.Writer) ([]Sample, error) {
	return shareGPT(opts, tok, g, warn, runtime.GOMAXPROCS(0))
}

// shareGPTTurns is one entry's prompt and output length, tokenized ahead
// of its turn on all cores.
type shareGPTTurns struct {
	prompt               string
	promptLen, outputLen int
	err                  error
}

// shareGPT is ShareGPT with the entries tokenized on up to workers
// goroutines, a window at a time, then taken in order as the serial loop
// takes them; the samples do not depend on workers.
func shareGPT(opts Options, tok tokenizer.Tokenizer, g *Globals, warn io.Writer, workers int) ([]Sample, error) {
	if opts.Path == "" {
		return nil, errors.New("--dataset-name sharegpt needs --dataset-path to a ShareGPT JSON file")
	}
	entries, err := readShareGPT(opts.Path, workers)
	if err != nil {
		return nil, err
	}
	shuffle(entries, opts, g.Random)
	var samples []Sample
	for lo := 0; lo < len(entries) && len(samples) < opts.NumPrompts; {
		hi := min(len(entries), lo+min(genWindow, max(workers, opts.NumPrompts-len(samples))))
		turns := make([]shareGPTTurns, hi-lo)
		forEach(hi-lo, workers, func(j int) { turns[j] = shareGPTTokenize(entries[lo+j], opts, tok) })
		for j, t := range turns {
			if len(samples) >= opts.NumPrompts {
				break
			}
			if t.err != nil {
				return nil, t.err
			}
			if !validSequence(t.promptLen, t.outputLen, opts.SharegptOutputLen != nil) {
				continue
			}
			s, err := shareGPTSample(entries[lo+j], t, opts, len(samples))
			if err != nil {
				return nil, err
			}
			samples = append(samples, s)
		}
		lo = hi
	}
	if len(samples) == 0 && len(entries) > 0 {
		out := "each completion's length"
		if opts.SharegptOutputLen != nil {
			out = "output_len=" + strconv.Itoa(*opts.SharegptOutputLen)
		}
		return nil, fmt.Errorf("%s: no valid ShareGPT sample: every conversation was filtered out with %s (vLLM keeps 4 <= prompt_len <= 1024, output_len >= 4 unless --sharegpt-output-len is set, and prompt_len + output_len <= 2048)", opts.Path, out)
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("%s: no conversation with at least two turns", opts.Path)
	}
	return oversample(samples, opts, g.Random, warn)
}

// shareGPTTokenize reads an entry's two turns and counts their tokens (the
// second's unless --sharegpt-output-len).
func shareGPTTokenize(e shareGPTEntry, opts Options, tok tokenizer.Tokenizer) shareGPTTurns {
	prompt, err := turn(e, 0, opts.Path)
	if err != nil {
		return shareGPTTurns{err: err}
	}
	completion, err := turn(e, 1, opts.Path)
	if err != nil {
		return shareGPTTurns{err: err}
	}
	t := shareGPTTurns{prompt: prompt, promptLen: len(tok.Encode(prompt, true))}
	if opts.SharegptOutputLen != nil {
		t.outputLen = *opts.SharegptOutputLen
	} else {
		t.outputLen = len(tok.Encode(completion, true))
	}
	return t
}

// shareGPTSample is the sample of an accepted entry, the number-th.
func shareGPTSample(e shareGPTEntry, t shareGPTTurns, opts Options, number int) (Sample, error) {
	s := Sample{
		Prompt:            t.prompt,
		PromptLen:         t.promptLen,
		ExpectedOutputLen: t.outputLen,
		RequestID:         opts.RequestIDPrefix + strconv.Itoa(number),
	}
	if e.media {
		var err error
		if s.MultiModal, err = shareGPTMedia(e.image, e.video); err != nil {
			return Sample{}, fmt.Errorf("%s: entry %d: %w", opts.Path, e.index, err)
		}
	}
	if opts.EnableMultimodalChat {
		// vLLM sends the prompt and its media as a prebuilt chat
		// message then.
		s.Prompt, s.PromptParts = "", multimodalChat(t.prompt, s.MultiModal)
	}
	return s, nil
}

// validSequence is vLLM's is_valid_sequence with its default bounds.
func validSequence(promptLen, outputLen int, skipMinOutput bool) bool {
	const minLen, maxPrompt, maxTotal = 4, 1024, 2048
	return !(promptLen < minLen || (!skipMinOutput && outputLen < minLen) || promptLen > maxPrompt || promptLen+outputLen > maxTotal)
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null" || string(t) == `""` || string(t) == "false"
}

func turn(e shareGPTEntry, i int, path string) (string, error) {
	// Most turns are strings, which jsonscan decodes as json.Unmarshal
	// does without scanning them twice; the rest (null, errors) are left
	// to json.Unmarshal.
	sc := jsonscan.New(e.turns[i])
	if sc.Peek() == '"' {
		if raw, esc, err := sc.Str(); err == nil && sc.End() == nil {
			return jsonscan.Text(raw, esc), nil
		}
	}
	var s string
	if err := json.Unmarshal(e.turns[i], &s); err != nil {
		return "", fmt.Errorf("%s: entry %d: conversations[%d].value must be a string, got %.40s", path, e.index, i, e.turns[i])
	}
	return s, nil
}
