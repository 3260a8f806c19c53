package dataset

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobench/gobench/internal/exitcode"
)

// wavChunk is one RIFF chunk of a test file.
type wavChunk struct {
	id   string
	size int // the size the header claims; -1 means len(data)
	data []byte
}

// riff writes a RIFF/WAVE file of chunks, padding odd ones.
func riff(chunks ...wavChunk) []byte {
	b := []byte("RIFF\x00\x00\x00\x00WAVE")
	for _, c := range chunks {
		size := c.size
		if size < 0 {
			size = len(c.data)
		}
		b = append(b, c.id...)
		b = binary.LittleEndian.AppendUint32(b, uint32(size))
		b = append(b, c.data...)
		if len(c.data)%2 == 1 {
			b = append(b, 0)
		}
	}
	binary.LittleEndian.PutUint32(b[4:], uint32(len(b)-8))
	return b
}

// fmtChunk is a "fmt " chunk: format tag, channels, sample rate, bits per
// sample; extensible (tag 0xFFFE) chunks carry sub as their sub-format.
func fmtChunk(tag, channels uint16, rate uint32, bits, sub uint16) wavChunk {
	align := channels * bits / 8
	le := binary.LittleEndian
	c := le.AppendUint16(nil, tag)
	c = le.AppendUint16(c, channels)
	c = le.AppendUint32(c, rate)
	c = le.AppendUint32(c, rate*uint32(align))
	c = le.AppendUint16(c, align)
	c = le.AppendUint16(c, bits)
	if tag == wavExtensible {
		c = le.AppendUint16(c, 22)
		c = le.AppendUint16(c, bits)
		c = le.AppendUint32(c, 0)
		c = le.AppendUint16(c, sub)
		c = append(c, "\x00\x00\x00\x00\x10\x00\x80\x00\x00\xAA\x00\x38\x9B\x71"...)
	}
	return wavChunk{id: "fmt ", size: -1, data: c}
}

// pcm16 is a mono 16-bit PCM file of frames silent frames at rate Hz.
func pcm16(rate uint32, frames int) []byte {
	return riff(fmtChunk(wavPCM, 1, rate, 16, 0), wavChunk{id: "data", size: -1, data: make([]byte, 2*frames)})
}

func TestWavDuration(t *testing.T) {
	t.Parallel()
	data := func(n int) wavChunk { return wavChunk{id: "data", size: -1, data: make([]byte, n)} }
	tests := []struct {
		name string
		file []byte
		want float64
		err  string
	}{
		{"pcm16 mono", pcm16(16000, 8000), 0.5, ""},
		{"pcm24 stereo", riff(fmtChunk(wavPCM, 2, 44100, 24, 0), data(6*44100*2)), 2, ""},
		{"float32", riff(fmtChunk(wavFloat, 1, 8000, 32, 0), data(4*2000)), 0.25, ""},
		{"extensible pcm", riff(fmtChunk(wavExtensible, 1, 16000, 16, wavPCM), data(2*4000)), 0.25, ""},
		{"mu-law", riff(fmtChunk(wavMuLaw, 1, 8000, 8, 0), data(8000)), 1, ""},
		{"chunks before, odd padding, partial frame", riff(wavChunk{id: "LIST", size: -1, data: []byte("odd")},
			fmtChunk(wavPCM, 1, 1000, 16, 0), data(2*500+1)), 0.5, ""},
		{"data claims more than the file has", riff(fmtChunk(wavPCM, 1, 1000, 16, 0), wavChunk{id: "data", size: 1 << 30, data: make([]byte, 200)}), 0.1, ""},
		{"flac", []byte("fLaC\x00\x00\x00\x22"), 0, "not a WAV file (RIFF/WAVE): it is FLAC"},
		{"mp3", []byte("ID3\x04\x00\x00\x00\x00\x00\x00"), 0, "it is MP3"},
		{"text", []byte("hello"), 0, "not a WAV file (RIFF/WAVE): gobench uploads WAV clips only"},
		{"adpcm", riff(fmtChunk(0x0002, 1, 8000, 4, 0), data(100)), 0, "format tag 0x0002 (Microsoft ADPCM)"},
		{"extensible mp3", riff(fmtChunk(wavExtensible, 1, 8000, 16, 0x0055), data(100)), 0, "format tag 0x0055 (MP3)"},
		{"no data", riff(fmtChunk(wavPCM, 1, 8000, 16, 0)), 0, `no "data" chunk`},
		{"no fmt", riff(wavChunk{id: "LIST", size: -1, data: []byte("ab")}), 0, `no "fmt " chunk`},
		{"data first", riff(data(4), fmtChunk(wavPCM, 1, 8000, 16, 0)), 0, `"data" chunk before its "fmt " chunk`},
		{"zero rate", riff(fmtChunk(wavPCM, 1, 0, 16, 0), data(4)), 0, "format is broken: 1 channels, 0 Hz"},
		{"short fmt", riff(wavChunk{id: "fmt ", size: -1, data: []byte{1, 0, 1, 0}}, data(4)), 0, "shorter than 16 bytes"},
	}
	for _, tt := range tests {
		got, err := wavDuration(tt.file)
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("%s: %v, %v; want %v", tt.name, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: error %v, want it to contain %q", tt.name, err, tt.err)
		}
	}
}

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
		{"flac", "openai-audio", []string{`{"prompt": "p", "audio": "%CLIP_song.flac%"}`}, "audio.jsonl:1: audio ", false},
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
