package dataset

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/google/go-cmp/cmp"
)

// jsonOf is a value as plain JSON (what encoding/json decodes), for
// comparing pyjson values with a golden file.
func jsonOf(t *testing.T, v any) any {
	t.Helper()
	b, err := pyjson.AppendCompact(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCustomImageMatchesVLLM compares with samples of a copy of vLLM's
// CustomImageDataset (tools/gen-dataset-vectors/gen_randommm_vectors.py):
// the shuffle, both line forms (prompt with image_files; interleaved
// content, whose text parts are counted and whose image_url keeps its
// extra keys), paths turned into file:// URLs, URLs passed through, and
// oversampling.
func TestCustomImageMatchesVLLM(t *testing.T) {
	t.Parallel()
	var cases []struct {
		Seed       int64 `json:"seed"`
		NumPrompts int   `json:"num_prompts"`
		OutputLen  int   `json:"output_len"`
		Shuffle    bool  `json:"shuffle"`
		Samples    []map[string]any
	}
	readJSON(t, "custom_image_golden.json", &cases)
	for _, c := range cases {
		opts := Options{Name: "custom_image", Path: filepath.Join("testdata", "custom_image9.jsonl"), NumPrompts: c.NumPrompts,
			Seed: c.Seed, RequestIDPrefix: "ci-", CustomOutputLen: c.OutputLen, DisableShuffle: !c.Shuffle}
		got, err := Load(opts, newFake(), nil, io.Discard)
		if err != nil {
			t.Fatalf("seed %d: %v", c.Seed, err)
		}
		if diff := cmp.Diff(c.Samples, mediaGolden(t, got)); diff != "" {
			t.Errorf("seed %d (-vllm +gobench):\n%s", c.Seed, diff)
		}
	}
}

// mediaGolden is samples as the multimodal goldens record them.
func mediaGolden(t *testing.T, samples []Sample) []map[string]any {
	t.Helper()
	gs := make([]map[string]any, len(samples))
	for i, s := range samples {
		var parts any
		if s.PromptParts != nil {
			parts = jsonOf(t, s.PromptParts)
		}
		media := jsonOf(t, append([]*pyjson.Object{}, s.MultiModal...))
		gs[i] = map[string]any{"prompt": s.Prompt, "parts": parts, "prompt_len": float64(s.PromptLen),
			"expected_output_len": float64(s.ExpectedOutputLen), "request_id": s.RequestID, "media": media}
	}
	return gs
}

// TestShareGPTMediaMatchesVLLM compares with a copy of vLLM's
// ShareGPTDataset with its "image" and "video" fields (the image first, an
// empty one skipped, paths as file:// URLs), with and without
// --enable-multimodal-chat, and oversampling.
func TestShareGPTMediaMatchesVLLM(t *testing.T) {
	t.Parallel()
	var cases []struct {
		Seed                 int64 `json:"seed"`
		NumPrompts           int   `json:"num_prompts"`
		OutputLen            *int  `json:"output_len"`
		EnableMultimodalChat bool  `json:"enable_multimodal_chat"`
		Samples              []map[string]any
	}
	readJSON(t, "sharegpt_mm_golden.json", &cases)
	for _, c := range cases {
		opts := Options{Name: "sharegpt", Path: filepath.Join("testdata", "sharegpt_mm14.json"), NumPrompts: c.NumPrompts,
			Seed: c.Seed, RequestIDPrefix: "s-", SharegptOutputLen: c.OutputLen, EnableMultimodalChat: c.EnableMultimodalChat}
		got, err := Load(opts, newFake(), nil, io.Discard)
		if err != nil {
			t.Fatalf("seed %d: %v", c.Seed, err)
		}
		if diff := cmp.Diff(c.Samples, mediaGolden(t, got)); diff != "" {
			t.Errorf("seed %d (-vllm +gobench):\n%s", c.Seed, diff)
		}
	}
}

// TestCustomImageClientSide: with --custom-ensure-client-side-data a local
// image is read and sent as a PNG data URL of the same pixels, a data URL
// is kept, and without a tokenizer the prompt counts 1 token.
func TestCustomImageClientSide(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(2, 1, color.RGBA{G: 90, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	pic := filepath.Join(dir, "a.png")
	if err := os.WriteFile(pic, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "d.jsonl")
	line := `{"prompt": "p", "image_files": ["` + pic + `", "file://` + pic + `", "data:image/png;base64,QQ=="]}` + "\n"
	if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := Options{Name: "custom_image", Path: path, NumPrompts: 1, CustomOutputLen: 4, CustomEnsureClientSideData: true}
	got, err := Load(opts, nil, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].PromptLen != 1 || got[0].ExpectedOutputLen != 4 || len(got[0].MultiModal) != 3 {
		t.Fatalf("sample %+v", got[0])
	}
	for i, m := range got[0].MultiModal[:2] {
		inner, _ := m.Get("image_url")
		u, _ := inner.(*pyjson.Object).Get("url")
		data, ok := strings.CutPrefix(u.(string), "data:image/png;base64,")
		if !ok {
			t.Fatalf("image %d: %.60s is not a PNG data URL", i, u)
		}
		b, _ := base64.StdEncoding.DecodeString(data)
		dec, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if r, g, _, _ := dec.At(2, 1).RGBA(); r != 0 || g>>8 != 90 {
			t.Errorf("image %d: pixel (2, 1) is %v", i, dec.At(2, 1))
		}
		if _, ok := dec.(*image.RGBA); !ok || dec.At(0, 0) != (color.RGBA{255, 255, 255, 255}) {
			t.Errorf("image %d: %T, pixel (0, 0) %v: want RGB, transparency over white", i, dec, dec.At(0, 0))
		}
	}
	if s := MediaSummary(got[0].MultiModal[2]); s != "image_url data:image/png;base64 (4 bytes)" {
		t.Errorf("data URL: %s", s)
	}
}

// TestCustomImageErrors checks vLLM's refusals of bad lines, with the file
// and line named, and gobench's of what it does not do.
func TestCustomImageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		name, line string
		opts       func(o *Options)
		want       string
		usage      bool
	}{
		{"fields", `{"prompt": "p"}`, nil, ":1: Each custom image dataset line must contain either 'prompt' and 'image_files' fields, or a 'content' field.", false},
		{"json", `{"prompt": `, nil, ":1: Invalid JSON in custom image dataset line 1", false},
		{"not an object", `[1]`, nil, "must contain a JSON object", false},
		{"empty files", `{"prompt": "p", "image_files": []}`, nil, ":1: 'image_files' must be a non-empty list.", false},
		{"prompt type", `{"prompt": 3, "image_files": ["a"]}`, nil, "'prompt' must be a string.", false},
		{"part type", `{"content": [{"type": "audio"}]}`, nil, "Content parts must have type 'text', 'image', or 'image_url'. Found: 'audio'.", false},
		{"part text", `{"content": [{"type": "text", "text": 1}]}`, nil, "Text content parts must contain a string 'text'.", false},
		{"empty content", `{"content": []}`, nil, "'content' must contain at least one item.", false},
		{"url", `{"content": [{"type": "image_url", "image_url": {"detail": "x"}}]}`, nil, "must contain a string 'image_url.url'.", false},
		{"image input", `{"prompt": "p", "image_files": [{"bytes": "x"}]}`, nil, "Invalid image input", false},
		{"missing file", `{"prompt": "p", "image_files": ["/nonexistent/x.png"]}`, func(o *Options) { o.CustomEnsureClientSideData = true },
			"Invalid image URL: file:///nonexistent/x.png", false},
		{"http", `{"prompt": "p", "image_files": ["https://h/x.png"]}`, func(o *Options) { o.CustomEnsureClientSideData = true },
			"gobench does not download images", true},
		{"output len", `{"prompt": "p", "image_files": ["a"]}`, func(o *Options) { o.CustomOutputLen = -1 }, "--custom-output-len -1", true},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".jsonl")
		if err := os.WriteFile(path, []byte(c.line+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		opts := Options{Name: "custom_image", Path: path, NumPrompts: 1, CustomOutputLen: 8}
		if c.opts != nil {
			c.opts(&opts)
		}
		_, err := Load(opts, newFake(), nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
			continue
		}
		if c.usage && exitcode.Of(err) != exitcode.BadUsage {
			t.Errorf("%s: exit status %d, want %d", c.name, exitcode.Of(err), exitcode.BadUsage)
		}
	}
}

// TestShareGPTMultimodalChat: with --enable-multimodal-chat vLLM's
// ShareGPTDataset sends each prompt as a prebuilt user message whose text
// part has the keys "text" then "type".
func TestShareGPTMultimodalChat(t *testing.T) {
	t.Parallel()
	opts := Options{Name: "sharegpt", Path: filepath.Join("testdata", "sharegpt40.json"), NumPrompts: 3, EnableMultimodalChat: true}
	got, err := Load(opts, newFake(), nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	plain := opts
	plain.EnableMultimodalChat = false
	want, err := Load(plain, newFake(), nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range got {
		b, _ := pyjson.AppendCompact(nil, s.PromptParts)
		msg := `[{"role":"user","content":[{"text":` + jsonString(want[i].Prompt) + `,"type":"text"}]}]`
		if s.Prompt != "" || string(b) != msg || s.PromptLen != want[i].PromptLen {
			t.Errorf("sample %d: prompt %q, parts %s, len %d; want parts %s, len %d", i, s.Prompt, b, s.PromptLen, msg, want[i].PromptLen)
		}
	}
}

func jsonString(s string) string {
	return string(pyjson.AppendCompactString(nil, s))
}

// TestMediaSummary: the dry run's description of each kind of part.
func TestMediaSummary(t *testing.T) {
	t.Parallel()
	audio := pyjson.NewObject()
	inner := pyjson.NewObject()
	inner.Set("data", "UklGRg==")
	inner.Set("format", "wav")
	audio.Set("type", "input_audio")
	audio.Set("input_audio", inner)
	str := pyjson.NewObject()
	str.Set("type", "image_url")
	str.Set("image_url", "https://h/x.png")
	msg := pyjson.NewObject()
	msg.Set("role", "user")
	msg.Set("content", []*pyjson.Object{mediaPart("video_url", "file://v.mp4"), audio})
	got := MediaSummaries([]*pyjson.Object{msg, str}, []*pyjson.Object{mediaPart("image_url", "data:image/png;base64,QUJD")})
	want := []string{"video_url file://v.mp4", "input_audio wav (8 bytes)", "image_url https://h/x.png", "image_url data:image/png;base64 (4 bytes)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
