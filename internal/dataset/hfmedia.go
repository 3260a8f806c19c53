package dataset

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"strings"

	// The image formats Pillow opens that the standard library decodes.
	_ "image/gif"
	_ "image/png"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/readlimit"
)

// imagePart is a chat content part {"type": "image_url", "image_url":
// {"url": url}}.
func imagePart(url string) *pyjson.Object {
	inner := pyjson.NewObject()
	inner.Set("url", url)
	o := pyjson.NewObject()
	o.Set("type", "image_url")
	o.Set("image_url", inner)
	return o
}

// processImage is vLLM's process_image (datasets.py@003cf0297): an image
// stored as bytes ({"bytes": ...}, the datasets library's Image feature)
// is converted to RGB (transparency over white, as vLLM's
// convert_image_mode does) and sent as a base64 JPEG data URL; a string
// is a URL, a data URL, or a local path (sent as file://). The JPEG
// encoder is Go's, not Pillow's: the pixels are the same picture, the
// bytes differ.
func processImage(v any, where string) (*pyjson.Object, error) {
	switch x := v.(type) {
	case string:
		if strings.HasPrefix(x, "http://") || strings.HasPrefix(x, "https://") || strings.HasPrefix(x, "file://") || strings.HasPrefix(x, "data:image/") {
			return imagePart(x), nil
		}
		return imagePart("file://" + x), nil
	case map[string]any:
		b, ok := bytesOf(x["bytes"])
		if !ok {
			return nil, fmt.Errorf("%s: the image has no bytes (path %v): only images stored in the data are read", where, x["path"])
		}
		img, _, err := image.Decode(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: the image cannot be decoded (PNG, JPEG and GIF are read; WebP and others are %w): %w", where, exitcode.ErrNotSupported, err)
		}
		rgb := image.NewRGBA(img.Bounds())
		draw.Draw(rgb, rgb.Bounds(), &image.Uniform{C: color.White}, image.Point{}, draw.Src)
		draw.Draw(rgb, rgb.Bounds(), img, img.Bounds().Min, draw.Over)
		var out bytes.Buffer
		if err := jpeg.Encode(&out, rgb, &jpeg.Options{Quality: 75}); err != nil {
			return nil, fmt.Errorf("%s: encode the image as JPEG: %w", where, err)
		}
		return imagePart("data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(out.Bytes())), nil
	}
	return nil, fmt.Errorf("%s: Invalid image input %s. Must be a PIL.Image.Image, str (URL, file path, or base64 data URL), or dictionary with raw image bytes.", where, typeName(v))
}

// bytesOf reads a binary value (Parquet gives binary columns as strings).
func bytesOf(v any) ([]byte, bool) {
	switch b := v.(type) {
	case []byte:
		return b, true
	case string:
		return []byte(b), true
	}
	return nil, false
}

// maxAudioBytes bounds an audio file read from a local path.
const maxAudioBytes = 1 << 30

// readAudio is ASRDataset's reading of the audio column: embedded bytes
// ({"bytes": ...}) or a local file ({"path": ...} or a string), which must
// be WAV (vLLM's soundfile also reads FLAC, MP3 and OGG; gobench refuses
// them, naming the row). It returns the file and its duration.
func readAudio(v any, where string) (*Audio, error) {
	path, isPath := v.(string)
	var data []byte
	if m, ok := v.(map[string]any); ok {
		if b, ok := bytesOf(m["bytes"]); ok {
			data = b
		} else {
			path, isPath = m["path"].(string)
		}
	}
	switch {
	case data != nil:
	case isPath && path != "":
		b, err := readlimit.File(path, maxAudioBytes)
		if err != nil {
			return nil, fmt.Errorf("%s: audio: %w", where, err)
		}
		data = b
	default:
		return nil, fmt.Errorf("%s: ASR samples must provide decoded audio arrays, embedded audio bytes, or a local audio path.", where)
	}
	d, err := wavDuration(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return &Audio{WAV: data, Duration: d}, nil
}

// wavDuration reads a RIFF/WAVE file's frame count over its sample rate
// (soundfile's len(y) / sr).
func wavDuration(b []byte) (float64, error) {
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		kind := "not RIFF/WAVE"
		switch {
		case bytes.HasPrefix(b, []byte("fLaC")):
			kind = "FLAC"
		case bytes.HasPrefix(b, []byte("OggS")):
			kind = "Ogg"
		case bytes.HasPrefix(b, []byte("ID3")) || (len(b) > 1 && b[0] == 0xFF && b[1]&0xE0 == 0xE0):
			kind = "MP3"
		}
		return 0, fmt.Errorf("the audio is %s, which is %w (only WAV is read)", kind, exitcode.ErrNotSupported)
	}
	var blockAlign, rate uint32
	for p := 12; p+8 <= len(b); {
		id, size := string(b[p:p+4]), int(binary.LittleEndian.Uint32(b[p+4:p+8]))
		body := b[p+8:]
		switch {
		case id == "fmt " && size >= 16 && len(body) >= 16:
			rate = binary.LittleEndian.Uint32(body[4:8])
			blockAlign = uint32(binary.LittleEndian.Uint16(body[12:14]))
		case id == "data" && blockAlign > 0 && rate > 0:
			size = min(size, len(body))
			return float64(size/int(blockAlign)) / float64(rate), nil
		}
		p += 8 + size + size%2
	}
	return 0, fmt.Errorf("the WAV audio has no usable fmt and data chunks")
}
