package dataset

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/gobench/gobench/datasets"
	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/pyrandom"
	"github.com/gobench/gobench/internal/tokenizer"
)

// sonnetBase is the instruction every sonnet prompt starts with.
const sonnetBase = "Pick as many lines as you can from these poem lines:\n"

// maxSonnetMisses bounds the draws in a row that give a prompt longer than
// --sonnet-input-len: vLLM draws again forever, gobench says why it stops.
const maxSonnetMisses = 10_000

// ErrSonnetChatTemplate is vLLM's refusal of a tokenizer without a chat
// template: the sonnet dataset measures every prompt in its chat form.
var ErrSonnetChatTemplate = exitcode.With(errors.New("Tokenizer/model must have chat template for sonnet dataset."), exitcode.BadUsage)

// Sonnet builds vLLM's sonnet dataset (vllm/benchmarks/datasets/datasets.py@11dfa3169
// SonnetDataset and its get_samples branch): a fixed instruction, the
// first lines of the poem as a shared prefix, then lines drawn with
// random.choices from CPython's global random as main_async seeded it
// (never reseeded), redrawn while the chat-formatted prompt is longer
// than --sonnet-input-len. The prompt is sent chat-formatted, except with
// the openai-chat backend, which applies the template itself; prompt_len
// counts the formatted prompt either way. The file is --dataset-path, read
// as Python reads text (universal newlines), or the embedded copy of vLLM's
// benchmarks/sonnet.txt.
func Sonnet(opts Options, tok tokenizer.Tokenizer, g *Globals, _ io.Writer) ([]Sample, error) {
	return sonnet(opts, tok, g, runtime.GOMAXPROCS(0))
}

// sonnetAttempt is one draw of lines: the prompt, its chat form and that
// form's token count.
type sonnetAttempt struct {
	prompt, formatted string
	n                 int
	err               error
	// after is the global random's state after this attempt's draws.
	after pyrandom.Random
}

// sonnet is Sonnet with the prompts formatted and tokenized on up to
// workers goroutines; the samples, and the state the global random is
// left in, do not depend on workers. Every attempt draws the same number
// of lines whether or not it is kept, so the draws of a window of
// attempts are made in order first, the attempts formatted and counted in
// parallel, then taken in order; the global random is set back to its
// state after the last attempt taken.
func sonnet(opts Options, tok tokenizer.Tokenizer, g *Globals, workers int) ([]Sample, error) {
	lines, err := sonnetLines(opts.Path)
	if err != nil {
		return nil, err
	}
	format, err := sonnetFormat(tok)
	if err != nil {
		return nil, err
	}
	lineLens := make([]int, len(lines))
	forEach(len(lines), workers, func(j int) { lineLens[j] = len(tok.Encode(lines[j], true)) })
	total := 0
	for _, n := range lineLens {
		total += n
	}
	avgLen := float64(total) / float64(len(lines))
	_, baseOffset, err := format(sonnetBase)
	if err != nil {
		return nil, err
	}
	inputLen := opts.SonnetInputLen
	if inputLen <= baseOffset {
		return nil, exitcode.Usagef("argument --sonnet-input-len: 'input_len' must be higher than the base prompt length (%d).", baseOffset)
	}
	numInput := int(math.RoundToEven(float64(inputLen-baseOffset) / avgLen))
	numPrefix := max(int(math.RoundToEven(float64(opts.SonnetPrefixLen-baseOffset)/avgLen)), 0)
	prefix := strings.Join(lines[:min(numPrefix, len(lines))], "")
	draw := func(r *pyrandom.Random) string {
		var b strings.Builder
		b.WriteString(sonnetBase)
		b.WriteString(prefix)
		for range numInput - numPrefix { // random.choices(lines, k=...)
			b.WriteString(lines[int(math.Floor(r.Random()*float64(len(lines))))])
		}
		return b.String()
	}

	samples := make([]Sample, 0, opts.NumPrompts)
	for misses := 0; len(samples) < opts.NumPrompts; {
		attempts := make([]sonnetAttempt, min(genWindow, max(workers, opts.NumPrompts-len(samples))))
		r := *g.Random
		for j := range attempts {
			attempts[j].prompt = draw(&r)
			attempts[j].after = r
		}
		forEach(len(attempts), workers, func(j int) {
			a := &attempts[j]
			a.formatted, a.n, a.err = format(a.prompt)
		})
		for j := range attempts {
			a := &attempts[j]
			*g.Random = a.after
			if a.err != nil {
				return nil, a.err
			}
			if a.n > inputLen {
				if misses++; misses == maxSonnetMisses {
					return nil, fmt.Errorf("--dataset-name sonnet: %d draws in a row gave prompts longer than --sonnet-input-len %d tokens (vLLM would draw forever): raise --sonnet-input-len", misses, inputLen)
				}
				continue
			}
			misses = 0
			prompt := a.formatted
			if opts.Backend == "openai-chat" {
				prompt = a.prompt
			}
			samples = append(samples, Sample{Prompt: prompt, PromptLen: a.n, ExpectedOutputLen: opts.SonnetOutputLen,
				RequestID: opts.RequestIDPrefix + strconv.Itoa(len(samples))})
			if len(samples) == opts.NumPrompts {
				break
			}
		}
	}
	return samples, nil
}

// sonnetFormat returns the function that gives a prompt's chat form (one
// user message) and that form's token count.
func sonnetFormat(tok tokenizer.Tokenizer) (func(p string) (string, int, error), error) {
	chat, ok := tok.(tokenizer.ChatTemplater)
	if !ok {
		return nil, fmt.Errorf("--dataset-name sonnet: tokenizer %s: %w", tok.Name(), ErrSonnetChatTemplate)
	}
	return func(p string) (string, int, error) {
		f, err := chat.ApplyChatTemplate([]tokenizer.Message{{Role: "user", Content: p}}, true, nil)
		if errors.Is(err, tokenizer.ErrNoChatTemplate) {
			return "", 0, fmt.Errorf("--dataset-name sonnet: %w (%w)", ErrSonnetChatTemplate, err)
		}
		if err != nil {
			return "", 0, fmt.Errorf("--dataset-name sonnet: %w", err)
		}
		return f, len(tok.Encode(f, true)), nil
	}, nil
}

// sonnetLines returns the lines of the poem file as Python's readlines
// gives them in text mode: "\r\n" and "\r" read as "\n", each line keeping
// its "\n", the last one without if the file has no final newline.
func sonnetLines(path string) ([]string, error) {
	text := datasets.Sonnet
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("--dataset-path: %w", err)
		}
		text = string(b)
	}
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("--dataset-path %s: the sonnet dataset needs at least one line", path)
	}
	return lines, nil
}
