package cli

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// TestPoolingBackendsWithImages runs the embedding backends that handle
// media end to end on custom_image's requests (a local image sent as a
// data URL), so the media paths of the request bodies meet the
// simulator. The simulator counts 64 prompt tokens per image, in a chat
// message or as an Infinity image input (docs in internal/sim), which shows
// what each backend sent: CLIP blanks the text (the image alone), vlm2vec
// replaces it with its instruction, -chat keeps it, Infinity's CLIP sends
// the image's URL alone as the input.
func TestPoolingBackendsWithImages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	for i := range 16 {
		img.Set(i%4, i/4, color.RGBA{R: 255, A: 255})
	}
	f, err := os.Create(filepath.Join(dir, "a.png"))
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// vLLM reads a relative image path from the working directory.
	abs := filepath.Join(dir, "a.png")
	lines := `{"prompt": "what is this", "image_files": ["` + abs + `"]}` + "\n" + `{"prompt": "and this", "image_files": ["` + abs + `"]}` + "\n"
	path := filepath.Join(dir, "d.jsonl")
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	tokens := map[string]float64{}
	for _, b := range []string{"openai-embeddings-clip", "openai-embeddings-vlm2vec", "openai-embeddings-chat", "infinity-embeddings-clip"} {
		got := simServeJSON(t, "--backend", b, "--dataset-name", "custom_image", "--dataset-path", path, "--num-prompts", "4",
			"--custom-ensure-client-side-data")
		if got["completed"] != 4.0 {
			t.Fatalf("%s: completed %v, errors %v", b, got["completed"], got["errors"])
		}
		tokens[b], _ = got["total_input_tokens"].(float64)
	}
	if tokens["openai-embeddings-clip"] != 4*64 || tokens["infinity-embeddings-clip"] != 4*64 {
		t.Errorf("input tokens %v: want 256 for CLIP and for Infinity's CLIP (the image alone)", tokens)
	}
	if tokens["openai-embeddings-chat"] <= tokens["openai-embeddings-clip"] || tokens["openai-embeddings-vlm2vec"] <= tokens["openai-embeddings-clip"] {
		t.Errorf("input tokens %v: -chat and vlm2vec send text beside the image", tokens)
	}
}
