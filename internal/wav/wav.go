// Package wav reads what gobench needs of a WAV file: whether it is one
// that a speech server decodes as vLLM's upload would give it (PCM, float,
// A-law or µ-law samples in RIFF/WAVE) and its length in seconds, which
// vLLM's RTFx divides (soundfile.info(...).duration). The custom_audio
// dataset reads its clips with it and the simulator the uploads it
// answers.
package wav

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// The WAV format tags gobench uploads: what soundfile decodes without a
// codec of its own, so that the server reads the clip as vLLM's upload
// would give it.
const (
	wavPCM        = 0x0001
	wavFloat      = 0x0003
	wavALaw       = 0x0006
	wavMuLaw      = 0x0007
	wavExtensible = 0xFFFE
)

// wavFormat is what the "fmt " chunk of a WAV file says.
type wavFormat struct {
	tag        uint16
	channels   uint16
	sampleRate uint32
	blockAlign uint16
}

// Duration checks that b is a WAV file (RIFF/WAVE) of PCM, float, A-law
// or µ-law samples and returns its length in seconds: whole frames (data
// bytes / block align) over the sample rate, as soundfile.info(...).duration
// gives it (vLLM's input_audio_duration). A data chunk that claims more
// bytes than the file has counts what is there, as libsndfile does. Any
// other file is refused with a message saying what it looks like.
func Duration(b []byte) (float64, error) {
	if err := Header(b); err != nil {
		return 0, err
	}
	var f *wavFormat
	for p := 12; p+8 <= len(b); {
		id, size := string(b[p:p+4]), int64(binary.LittleEndian.Uint32(b[p+4:p+8]))
		body := b[p+8:]
		switch id {
		case "fmt ":
			var err error
			if f, err = parseWavFormat(body[:min(int64(len(body)), size)]); err != nil {
				return 0, err
			}
		case "data":
			if f == nil {
				return 0, errors.New(`the WAV file has its "data" chunk before its "fmt " chunk`)
			}
			n := min(size, int64(len(body)))
			return float64(n/int64(f.blockAlign)) / float64(f.sampleRate), nil
		}
		next := int64(p) + 8 + size + size%2 // chunks are padded to an even size
		if next > int64(len(b)) {
			break
		}
		p = int(next)
	}
	if f == nil {
		return 0, errors.New(`the WAV file has no "fmt " chunk`)
	}
	return 0, errors.New(`the WAV file has no "data" chunk`)
}

// HeaderSize is how many bytes of a file Header needs.
const HeaderSize = 12

// Header checks that b starts as a WAV file does (RIFF/WAVE), so that a
// file that is not one is refused, with what it looks like, before it is
// read whole.
func Header(b []byte) error {
	if len(b) < HeaderSize || !bytes.Equal(b[:4], []byte("RIFF")) || !bytes.Equal(b[8:12], []byte("WAVE")) {
		return fmt.Errorf("not a WAV file (RIFF/WAVE)%s: gobench uploads WAV clips only; convert it first (e.g. ffmpeg -i clip.flac clip.wav)", looksLike(b))
	}
	return nil
}

// parseWavFormat reads a "fmt " chunk and refuses encodings gobench does
// not upload.
func parseWavFormat(c []byte) (*wavFormat, error) {
	if len(c) < 16 {
		return nil, errors.New(`the WAV file's "fmt " chunk is shorter than 16 bytes`)
	}
	le := binary.LittleEndian
	f := &wavFormat{tag: le.Uint16(c), channels: le.Uint16(c[2:]), sampleRate: le.Uint32(c[4:]), blockAlign: le.Uint16(c[12:])}
	tag := f.tag
	if tag == wavExtensible && len(c) >= 26 {
		tag = le.Uint16(c[24:]) // the sub-format GUID starts with the tag
	}
	switch {
	case tag != wavPCM && tag != wavFloat && tag != wavALaw && tag != wavMuLaw:
		return nil, fmt.Errorf("the WAV file's samples are encoded with format tag 0x%04X (%s): gobench uploads PCM, float, A-law or µ-law WAV only; convert it first (e.g. ffmpeg -i in.wav -c:a pcm_s16le out.wav)", tag, wavTagName(tag))
	case f.channels == 0 || f.sampleRate == 0 || f.blockAlign == 0:
		return nil, fmt.Errorf("the WAV file's format is broken: %d channels, %d Hz, %d bytes a frame", f.channels, f.sampleRate, f.blockAlign)
	}
	return f, nil
}

// wavTagName names the WAV encodings a refused file is likeliest to use.
func wavTagName(tag uint16) string {
	switch tag {
	case 0x0002:
		return "Microsoft ADPCM"
	case 0x0011:
		return "IMA ADPCM"
	case 0x0031:
		return "GSM 6.10"
	case 0x0055:
		return "MP3"
	}
	return "not PCM"
}

// looksLike names the audio format b seems to be, for the message that
// refuses it.
func looksLike(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("fLaC")):
		return ": it is FLAC"
	case bytes.HasPrefix(b, []byte("OggS")):
		return ": it is Ogg"
	case bytes.HasPrefix(b, []byte("ID3")), len(b) > 1 && b[0] == 0xFF && b[1]&0xE0 == 0xE0:
		return ": it is MP3"
	case bytes.HasPrefix(b, []byte("RF64")):
		return ": it is RF64, a WAV larger than 4 GiB"
	case len(b) >= 12 && bytes.Equal(b[4:8], []byte("ftyp")):
		return ": it is MP4/M4A"
	}
	return ""
}

// PCM16 writes a 16-bit PCM WAV file of frames at rate Hz, channels
// interleaved: the form vLLM uploads (soundfile.write(..., format="WAV")
// writes 16-bit PCM by default), with the canonical 44-byte header. Tests
// make their clips with it.
func PCM16(rate, channels int, samples []int16) []byte {
	le := binary.LittleEndian
	data := 2 * len(samples)
	b := make([]byte, 0, 44+data)
	b = append(b, "RIFF"...)
	b = le.AppendUint32(b, uint32(36+data))
	b = append(b, "WAVEfmt "...)
	b = le.AppendUint32(b, 16)
	b = le.AppendUint16(b, wavPCM)
	b = le.AppendUint16(b, uint16(channels))
	b = le.AppendUint32(b, uint32(rate))
	b = le.AppendUint32(b, uint32(rate*channels*2))
	b = le.AppendUint16(b, uint16(channels*2))
	b = le.AppendUint16(b, 16)
	b = append(b, "data"...)
	b = le.AppendUint32(b, uint32(data))
	for _, s := range samples {
		b = le.AppendUint16(b, uint16(s))
	}
	return b
}
