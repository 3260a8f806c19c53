package dataset

import (
	"bytes"
	"encoding/base64"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/parquet-go/parquet-go"
)

type pqImage struct {
	Bytes []byte  `parquet:"bytes"`
	Path  *string `parquet:"path,optional"`
}

type pqStar struct {
	Question string  `parquet:"question"`
	Image    pqImage `parquet:"image"`
}

type pqAudio struct {
	Audio pqImage `parquet:"audio"`
}

// writeParquet writes rows as a Parquet file in a new directory named
// for the split, and returns the directory.
func writeParquet[T any](t *testing.T, split string, rows []T) string {
	t.Helper()
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, split+"-00000-of-00001.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestHFImageBytes: an image stored as PNG bytes in Parquet (the datasets
// library's Image feature) is sent as a JPEG data URL of the same picture,
// its transparency over white (vLLM's convert_image_mode to RGB); WebP
// (not decoded) fails naming the row.
func TestHFImageBytes(t *testing.T) {
	t.Parallel()
	img := image.NewNRGBA(image.Rect(0, 0, 16, 8))
	for x := range 16 {
		for y := range 8 {
			img.Set(x, y, color.NRGBA{R: 200, G: 10, B: 10, A: 255})
		}
	}
	img.Set(0, 0, color.NRGBA{A: 0}) // transparent: white
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	dir := writeParquet(t, "val", []pqStar{{Question: "What is it?\nOptions: A", Image: pqImage{Bytes: buf.Bytes()}}})
	opts := Options{Name: "hf", Path: dir, HFName: "Lin-Chen/MMStar", NumPrompts: 1, Backend: "openai-chat", BlazeditMaxDistance: 1}
	got, err := Load(opts, newFake(), nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Prompt != "What is it?" || len(got[0].MultiModal) != 1 {
		t.Fatalf("sample %+v", got[0])
	}
	part, _ := got[0].MultiModal[0].Get("image_url")
	url, _ := part.(interface{ Get(string) (any, bool) }).Get("url")
	data, ok := strings.CutPrefix(url.(string), "data:image/jpeg;base64,")
	if !ok {
		t.Fatalf("url %.40s", url)
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatal(err)
	}
	back, err := jpeg.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if back.Bounds() != img.Bounds() {
		t.Errorf("bounds %v, want %v", back.Bounds(), img.Bounds())
	}
	if r, g, b, _ := back.At(8, 4).RGBA(); r>>8 < 170 || g>>8 > 50 || b>>8 > 50 {
		t.Errorf("pixel (8, 4) = %d %d %d, want about red", r>>8, g>>8, b>>8)
	}

	webp := writeParquet(t, "val", []pqStar{{Question: "q", Image: pqImage{Bytes: []byte("RIFF\x00\x00\x00\x00WEBPVP8 ")}}})
	opts.Path = webp
	_, err = Load(opts, newFake(), nil, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "row 0: the image cannot be decoded") || !errors.Is(err, exitcode.ErrNotSupported) {
		t.Errorf("webp: err = %v", err)
	}
}

// TestHFAudioBytes: WAV bytes in Parquet (the Audio feature undecoded)
// become the sample's clip with its duration; FLAC fails naming the row.
func TestHFAudioBytes(t *testing.T) {
	t.Parallel()
	wav, err := os.ReadFile(filepath.Join("testdata", "hf", "asr", "clips", "c3.wav"))
	if err != nil {
		t.Fatal(err)
	}
	dir := writeParquet(t, "train", []pqAudio{{Audio: pqImage{Bytes: wav}}, {Audio: pqImage{Bytes: []byte("fLaC\x00\x00\x00\x22")}}})
	opts := Options{Name: "hf", Path: dir, HFName: "openslr/librispeech_asr", NumPrompts: 1, Backend: "openai-chat",
		DisableShuffle: true, ASRMaxAudioLenSec: 100}
	got, err := Load(opts, newFake(), nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	// c3.wav: 1175 stereo frames at 2 kHz.
	if a := got[0].Audio; a == nil || !bytes.Equal(a.WAV, wav) || a.Duration != 1175.0/2000 {
		t.Errorf("audio %+v", got[0].Audio)
	}
	opts.NumPrompts = 2
	_, err = Load(opts, newFake(), nil, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "row 1: the audio is FLAC, which is not supported yet (only WAV is read)") {
		t.Errorf("flac: err = %v", err)
	}
}
