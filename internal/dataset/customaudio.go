package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/readlimit"
	"github.com/gobench/gobench/internal/tokenizer"
	"github.com/gobench/gobench/internal/wav"
)

// maxClipBytes bounds one WAV file of the custom_audio dataset: 512 MiB is
// 50 minutes of 44.1 kHz stereo 16-bit audio, or 4.6 hours at 16 kHz mono
// (what speech models take), far beyond a clip a transcription request
// sends; past it a path to a device or a pipe fails instead of exhausting
// memory.
const maxClipBytes = 512 << 20

// audioBackend is the backend that uploads custom_audio's clips.
const audioBackend = "openai-audio"

// CustomAudio builds vLLM's custom_audio dataset (CustomAudioDataset,
// vllm/benchmarks/datasets/datasets.py@003cf029): a JSONL file of rows
// {"prompt": ..., "audio": "clip.wav", "output_tokens": n}, read, shuffled
// and cut as the custom dataset's (same seed, same order, same ids), each
// row's WAV file read (bounded) and sent as it is, its duration recorded
// for RTFx. The prompt goes through the tokenizer's chat template unless
// --skip-chat-template or the tokenizer has none (then it stays as it is,
// where the custom dataset fails); prompt_len counts it. vLLM reads the
// file with soundfile and re-encodes it as 16-bit PCM WAV; gobench uploads
// the file's own bytes and refuses encodings other than WAV.
func CustomAudio(opts Options, tok tokenizer.Tokenizer, g *Globals, warn io.Writer) ([]Sample, error) {
	if opts.Backend != audioBackend {
		return nil, fmt.Errorf("--dataset-name custom_audio with --backend %s: the clips are uploaded by --backend %s; sending them in chat messages (vLLM's --enable-multimodal-chat) is %w",
			opts.Backend, audioBackend, exitcode.ErrNotSupported)
	}
	if !strings.HasSuffix(opts.Path, ".jsonl") {
		return nil, fmt.Errorf("--dataset-path %s: Only JSONL format is supported for CustomDataset.", opts.Path)
	}
	rows, n, err := customRows(opts, g, warn)
	if err != nil {
		return nil, err
	}
	clips := make(map[string]*Audio)
	var samples []Sample
	for i, row := range rows {
		if len(samples) >= n {
			break
		}
		s, err := audioSample(opts, tok, row, clips)
		if err != nil {
			return nil, exitcode.With(err, exitcode.BadUsage)
		}
		s.RequestID = opts.RequestIDPrefix + strconv.Itoa(i)
		samples = append(samples, s)
	}
	o := opts
	o.NumPrompts = n
	return oversample(samples, o, g.Random, warn)
}

// customRows reads the rows of a custom JSONL file in vLLM's
// CustomDataset order (random.seed(seed), then random.shuffle unless
// --disable-shuffle) and says how many to take: --num-prompts, or every
// row when it is 0 or less, as vLLM logs.
func customRows(opts Options, g *Globals, warn io.Writer) ([]customRow, int, error) {
	rows, err := readCustom(opts.Path)
	if err != nil {
		return nil, 0, err
	}
	shuffle(rows, opts, g.Random)
	n := takeCount(opts, len(rows), warn)
	return rows, n, nil
}

// audioSample builds the sample of one row; clips holds the WAV files
// read so far, by path, so a clip named by several rows is read once.
func audioSample(opts Options, tok tokenizer.Tokenizer, row customRow, clips map[string]*Audio) (Sample, error) {
	where := opts.Path + ":" + strconv.Itoa(row.line)
	clip, err := readClip(row.audio, where, clips)
	if err != nil {
		return Sample{}, err
	}
	s := Sample{Prompt: row.prompt, Audio: clip}
	if chat, ok := tok.(tokenizer.ChatTemplater); ok && !opts.SkipChatTemplate {
		// vLLM applies the template only when the tokenizer has one.
		p, err := chat.ApplyChatTemplate([]tokenizer.Message{{Role: "user", Content: row.prompt}}, true, opts.ChatTemplateKwargs)
		switch {
		case err == nil:
			s.Prompt = p
		case !errors.Is(err, tokenizer.ErrNoChatTemplate):
			return Sample{}, fmt.Errorf("%s: %w", where, err)
		}
	}
	s.PromptLen = len(tok.Encode(s.Prompt, true))
	s.ExpectedOutputLen = opts.CustomOutputLen
	if opts.CustomOutputLen == -1 {
		if row.outputTokens == nil {
			return Sample{}, fmt.Errorf("%s: If no output length is provided the custom dataset must contain an 'output_tokens' field.", where)
		}
		if s.ExpectedOutputLen, err = pyInt(row.outputTokens); err != nil {
			return Sample{}, fmt.Errorf("%s: 'output_tokens' must be an integer, got %s", where, bytes.TrimSpace(row.outputTokens))
		}
	}
	return s, nil
}

// readClip reads the WAV file a row's "audio" names (a path, relative to
// the working directory as vLLM's soundfile.read takes it).
func readClip(raw json.RawMessage, where string, clips map[string]*Audio) (*Audio, error) {
	if raw == nil {
		return nil, fmt.Errorf(`%s: the row has no "audio" (the path of its WAV file)`, where)
	}
	var path string
	if err := json.Unmarshal(raw, &path); err != nil {
		if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '{' {
			return nil, fmt.Errorf(`%s: "audio" as an object (samples and a sampling rate) is %w: give the path of a WAV file`, where, exitcode.ErrNotSupported)
		}
		return nil, fmt.Errorf(`%s: "audio" must be the path of a WAV file, got %.60s`, where, raw)
	}
	if c, ok := clips[path]; ok {
		return c, nil
	}
	if err := sniffClip(path); err != nil {
		return nil, fmt.Errorf("%s: audio: %w", where, err)
	}
	b, err := readlimit.File(path, maxClipBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: audio: %w", where, err)
	}
	d, err := wav.Duration(b)
	if err != nil {
		return nil, fmt.Errorf("%s: audio: %s: %w", where, path, err)
	}
	c := &Audio{WAV: b, Duration: d}
	clips[path] = c
	return c, nil
}

// sniffClip checks the first bytes of the file at path, so that a file
// that is not WAV (a device such as /dev/zero among them) is refused
// before up to maxClipBytes of it are read.
func sniffClip(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, wav.HeaderSize)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return err
	}
	if err := wav.Header(head[:n]); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
