package dataset

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/wav"
)

// pcm16 is a mono 16-bit PCM file of frames silent frames at rate Hz.
func pcm16(rate, frames int) []byte { return wav.PCM16(rate, 1, make([]int16, frames)) }

// audioDir writes clips and a custom_audio JSONL file of lines (with
// %CLIP_name% replaced by the clip's path) into a temporary directory.
func audioDir(t *testing.T, clips map[string][]byte, lines ...string) string {
	t.Helper()
	dir := t.TempDir()
	var pairs []string
	for name, b := range clips {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, "%CLIP_"+name+"%", p)
	}
	jsonl := filepath.Join(dir, "audio.jsonl")
	body := strings.NewReplacer(pairs...).Replace(strings.Join(lines, "\n") + "\n")
	if err := os.WriteFile(jsonl, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return jsonl
}

// TestCustomAudio: the rows come in the custom dataset's order and ids for
// the same seed (same reading, shuffle and oversampling, which the custom
// goldens prove against vLLM), each with its clip's bytes and duration; a
// clip named twice is read once.
func TestCustomAudio(t *testing.T) {
	t.Parallel()
	one, two := pcm16(16000, 16000), pcm16(8000, 4000)
	var lines []string
	for i := range 6 {
		clip := []string{"one.wav", "two.wav"}[i%2]
		lines = append(lines, fmt.Sprintf(`{"prompt": "ab cab %d", "audio": "%%CLIP_%s%%", "output_tokens": %d}`, i, clip, 10+i))
	}
	path := audioDir(t, map[string][]byte{"one.wav": one, "two.wav": two}, lines...)
	for _, n := range []int{4, 9, 0} {
		opts := DefaultOptions()
		opts.Name, opts.Path, opts.Backend, opts.NumPrompts, opts.Seed, opts.CustomOutputLen, opts.RequestIDPrefix = "custom_audio", path, "openai-audio", n, 7, -1, "a-"
		got, err := Load(opts, newFake(), nil, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		opts.Name, opts.SkipChatTemplate = "custom", true
		text, err := Load(opts, newFake(), nil, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(text) {
			t.Fatalf("n=%d: %d samples, custom gives %d", n, len(got), len(text))
		}
		read := map[float64]*Audio{}
		for i, s := range got {
			if s.Audio == nil {
				t.Fatalf("n=%d: sample %d has no clip", n, i)
			}
			wantClip, wantDur := one, 1.0
			if strings.HasSuffix(s.Prompt, "1") || strings.HasSuffix(s.Prompt, "3") || strings.HasSuffix(s.Prompt, "5") {
				wantClip, wantDur = two, 0.5
			}
			if string(s.Audio.WAV) != string(wantClip) || s.Audio.Duration != wantDur {
				t.Errorf("n=%d: sample %d (%q): clip of %d bytes, %v s", n, i, s.Prompt, len(s.Audio.WAV), s.Audio.Duration)
			}
			if c, ok := read[s.Audio.Duration]; ok && c != s.Audio {
				t.Errorf("n=%d: sample %d: a clip named twice was read twice", n, i)
			}
			read[s.Audio.Duration] = s.Audio
			s.Audio = nil
			if diff := cmp.Diff(text[i], s); diff != "" {
				t.Errorf("n=%d: sample %d differs from the custom dataset's (-custom +custom_audio):\n%s", n, i, diff)
			}
		}
	}
}

// TestCustomAudioErrors: every refusal names the flag or the file and the
// line, and those about the rows exit with status 2.
func TestCustomAudioErrors(t *testing.T) {
	t.Parallel()
	clips := map[string][]byte{"ok.wav": pcm16(16000, 160), "song.flac": []byte("fLaC\x00\x00\x00\x22")}
	tests := []struct {
		name    string
		backend string
		lines   []string
		want    string
		notSupp bool
	}{
		{"chat backend", "openai-chat", []string{`{"prompt": "p", "audio": "%CLIP_ok.wav%"}`}, "--dataset-name custom_audio with --backend openai-chat", true},
		{"no audio", "openai-audio", []string{`{"prompt": "p", "audio": "%CLIP_ok.wav%", "output_tokens": 5}`, `{"prompt": "q"}`}, `audio.jsonl:2: the row has no "audio"`, false},
		{"flac", "openai-audio", []string{`{"prompt": "p", "audio": "%CLIP_song.flac%"}`}, "audio.jsonl:1: audio: ", false},
		{"device", "openai-audio", []string{`{"prompt": "p", "audio": "/dev/zero"}`}, "audio.jsonl:1: audio: /dev/zero: not a WAV file", false},
		{"missing file", "openai-audio", []string{`{"prompt": "p", "audio": "/nonexistent/x.wav"}`}, "audio.jsonl:1: audio: open /nonexistent/x.wav", false},
		{"array", "openai-audio", []string{`{"prompt": "p", "audio": {"array": [0.0], "sampling_rate": 16000}}`}, `audio.jsonl:1: "audio" as an object`, true},
		{"number", "openai-audio", []string{`{"prompt": "p", "audio": 3}`}, `audio.jsonl:1: "audio" must be the path of a WAV file, got 3`, false},
		{"output_tokens", "openai-audio", []string{`{"prompt": "p", "audio": "%CLIP_ok.wav%", "output_tokens": "x"}`}, "audio.jsonl:1: 'output_tokens' must be an integer", false},
	}
	for _, tt := range tests {
		opts := DefaultOptions()
		opts.Name, opts.Path, opts.Backend, opts.NumPrompts, opts.CustomOutputLen = "custom_audio", audioDir(t, clips, tt.lines...), tt.backend, 2, -1
		_, err := Load(opts, newFake(), nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to contain %q", tt.name, err, tt.want)
			continue
		}
		if errors.Is(err, exitcode.ErrNotSupported) != tt.notSupp || exitcode.Of(err) != exitcode.BadUsage {
			t.Errorf("%s: %v: not supported %v, status %d", tt.name, err, errors.Is(err, exitcode.ErrNotSupported), exitcode.Of(err))
		}
	}
}
