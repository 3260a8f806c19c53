package wav

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
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
func pcm16(rate, frames int) []byte { return PCM16(rate, 1, make([]int16, frames)) }

func TestDuration(t *testing.T) {
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
		got, err := Duration(tt.file)
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("%s: %v, %v; want %v", tt.name, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: error %v, want it to contain %q", tt.name, err, tt.err)
		}
	}
}

// TestPCM16: the writer's files read back with their length, and its
// header is the canonical one soundfile writes.
func TestPCM16(t *testing.T) {
	t.Parallel()
	b := PCM16(8000, 2, []int16{1, -1, 2, -2})
	if d, err := Duration(b); err != nil || d != 2.0/8000 {
		t.Errorf("duration %v, %v", d, err)
	}
	want := "RIFF\x2c\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x02\x00\x40\x1f\x00\x00\x00\x7d\x00\x00\x04\x00\x10\x00data\x08\x00\x00\x00\x01\x00\xff\xff\x02\x00\xfe\xff"
	if !bytes.Equal(b, []byte(want)) {
		t.Errorf("file %q, want %q", b, want)
	}
}
