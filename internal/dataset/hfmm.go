package dataset

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gobench/gobench/internal/pyjson"
)

// The multimodal classes of vLLM's hf dataset, ports of their sample()
// (vllm/benchmarks/datasets/datasets.py@003cf0297); the media go into
// Sample.MultiModal (chat content parts) or Sample.Audio.

// visionArenaPrompts are VisionArenaDataset's parsers, by hf_name.
var visionArenaPrompts = map[string][]string{
	"lmarena-ai/VisionArena-Chat":        {"conversation"},
	"lmarena-ai/vision-arena-bench-v0.1": {"turns"},
}

// nested reads row[col][0][0]["content"] as text.
func nested(row hfRow, col string) (string, error) {
	l, err := row.list(col)
	if err == nil && len(l) > 0 {
		if inner, ok := l[0].([]any); ok && len(inner) > 0 {
			if m, ok := inner[0].(map[string]any); ok {
				if s, ok := m["content"].(string); ok {
					return s, nil
				}
			}
		}
	}
	if err == nil {
		err = fmt.Errorf("%s: %s[0][0][\"content\"] must be text", row.where, col)
	}
	return "", err
}

// visionArena is VisionArenaDataset: the first user turn and the first
// image; prompt_len is tokenizer.encode(prompt); ids by row.
func visionArena(r *hfRun, rows rowIter) ([]Sample, error) {
	cols, ok := visionArenaPrompts[r.name]
	if !ok {
		return nil, fmt.Errorf("Unsupported dataset path: %s", r.name)
	}
	out := r.outputLen(128)
	var samples []Sample
	err := eachRow(rows, func(i int, row hfRow) (bool, error) {
		if len(samples) >= r.opts.NumPrompts {
			return true, nil
		}
		p, err := nested(row, cols[0])
		if err != nil {
			return false, err
		}
		imgs, err := row.list("images")
		if err != nil || len(imgs) == 0 {
			return false, fmt.Errorf("%s: no image in column \"images\"", row.where)
		}
		part, err := processImage(imgs[0], row.where)
		if err != nil {
			return false, err
		}
		samples = append(samples, Sample{Prompt: p, ExpectedOutputLen: out, RequestID: r.id(i),
			MultiModal: []*pyjson.Object{part}})
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	r.countPrompts(samples)
	return samples, nil
}

// mmstar is MMStarDataset: the question before "Options:", stripped, and
// the image; ids by row.
func mmstar(r *hfRun, rows rowIter) ([]Sample, error) {
	out := r.outputLen(128)
	var samples []Sample
	err := eachRow(rows, func(i int, row hfRow) (bool, error) {
		if len(samples) >= r.opts.NumPrompts {
			return true, nil
		}
		q := ""
		if _, ok := row.cols["question"]; ok {
			s, err := row.str("question")
			if err != nil {
				return false, err
			}
			q = s
		}
		q, _, _ = strings.Cut(q, "Options:")
		q = strings.TrimSpace(q)
		part, err := processImage(row.cols["image"], row.where)
		if err != nil {
			return false, err
		}
		samples = append(samples, Sample{Prompt: q, ExpectedOutputLen: out, RequestID: r.id(i),
			MultiModal: []*pyjson.Object{part}})
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	r.countPrompts(samples)
	return samples, nil
}

// whisperPrompt is ASRDataset's decoder prompt for a tokenizer whose name
// holds "openai" (Whisper).
const whisperPrompt = "<|startoftranscript|><|en|><|transcribe|><|notimestamps|>"

// asr is ASRDataset: one clip per row (WAV), the clips outside
// --asr-min-audio-len-sec and --asr-max-audio-len-sec skipped (with vLLM's
// warning), the prompt Whisper's control tokens for an "openai" tokenizer
// and empty otherwise; ids count accepted clips; then vLLM's duration
// statistics.
func asr(r *hfRun, rows rowIter) ([]Sample, error) {
	out := r.outputLen(1024)
	prompt := ""
	if strings.Contains(r.tok.Name(), "openai") {
		prompt = whisperPrompt
	}
	promptLen := r.count(prompt)
	var samples []Sample
	var durations []float64
	skipped := 0
	err := eachRow(rows, func(_ int, row hfRow) (bool, error) {
		if len(samples) >= r.opts.NumPrompts {
			return true, nil
		}
		a, err := readAudio(row.cols["audio"], row.where)
		if err != nil {
			return false, err
		}
		if a.Duration < r.opts.ASRMinAudioLenSec || a.Duration > r.opts.ASRMaxAudioLenSec {
			skipped++
			return false, nil
		}
		durations = append(durations, a.Duration)
		samples = append(samples, Sample{Prompt: prompt, PromptLen: promptLen, ExpectedOutputLen: out, RequestID: r.id(len(samples)), Audio: a})
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	if skipped > 0 {
		fmt.Fprintf(r.warn, "%d samples discarded from dataset due to their length being greater than what Whisper supports.\n", skipped)
	}
	fmt.Fprintf(r.warn, "Number of audio samples: %d\n", len(durations))
	if len(durations) > 0 {
		sum := 0.0
		for _, d := range durations {
			sum += d
		}
		sorted := slices.Sorted(slices.Values(durations))
		n := len(sorted)
		median := (sorted[(n-1)/2] + sorted[n/2]) / 2
		fmt.Fprintf(r.warn, "Audio duration statistics (s): avg=%.2f, min=%.2f, max=%.2f, median=%.2f\n", sum/float64(n), sorted[0], sorted[n-1], median)
	}
	return samples, nil
}
