package cli

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/golden"
)

// randomMMArgs ask for two media items per request, from an image bucket
// and a two-frame video bucket, at most two images and one video each.
var randomMMArgs = []string{"--backend", "openai-chat", "--endpoint", "/v1/chat/completions", "--dataset-name", "random-mm",
	"--random-input-len", "16", "--random-output-len", "4", "--random-mm-base-items-per-request", "2",
	"--random-mm-bucket-config", "{(16, 16, 1): 0.5, (8, 8, 2): 0.5}", "--random-mm-limit-mm-per-prompt", `{"image": 2, "video": 1}`,
	"--seed", "3", "--request-id-prefix", "mm-"}

// simServeJSON runs serve against the simulator and returns its result
// object.
func simServeJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	return serveJSON(t, append([]string{"serve", "--sim", "--sim-ttft", "0.005", "--sim-itl", "0.001", "--disable-tqdm",
		"--no-server-metrics"}, args...)...)
}

// TestRandomMMAgainstSim runs random-mm end to end: every request
// answered, and the server's prompt token counts (which vLLM's chat client
// takes from the usage) include the simulator's 64 tokens per image and
// 256 per video, so the media reached it.
func TestRandomMMAgainstSim(t *testing.T) {
	t.Parallel()
	for _, extra := range [][]string{nil, {"--enable-multimodal-chat"}} {
		got := simServeJSON(t, append(append([]string{"--num-prompts", "4"}, randomMMArgs...), extra...)...)
		if got["completed"] != 4.0 || got["failed"] != 0.0 {
			t.Fatalf("%v: completed %v, failed %v", extra, got["completed"], got["failed"])
		}
		// With seed 3: 4 prompts of 15 text tokens, 7 images and 1 video.
		if in := got["total_input_tokens"]; in != float64(4*15+7*64+256) {
			t.Errorf("%v: total_input_tokens %v, want %d", extra, in, 4*15+7*64+256)
		}
	}
}

// TestRandomMMDryRun: --dry-run shows each request's media by type, media
// type and size, not their bytes.
func TestRandomMMDryRun(t *testing.T) {
	t.Parallel()
	args := append([]string{"serve", "--dry-run", "--model", "m", "--tokenizer", "gobench-builtin", "--num-prompts", "3"}, randomMMArgs...)
	stdout, stderr, code := runMain(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if len(stdout) > 4000 {
		t.Errorf("the dry run prints %d bytes: media are not shortened", len(stdout))
	}
	golden.Check(t, []byte(stdout))
}

// TestMultiModalRefusals: vLLM's refusals, exit status 2 with the flag or
// file named.
func TestMultiModalRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	remote := filepath.Join(dir, "remote.jsonl")
	writeFile(t, remote, `{"prompt": "p", "image_files": ["https://example.com/a.png"]}`+"\n")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"random-mm needs openai-chat", []string{"--dataset-name", "random-mm"}, "only supported on 'openai-chat' backend"},
		{"bucket config", append(append([]string{}, randomMMArgs...), "--random-mm-bucket-config", "{(2, 2): 1}"),
			"--random-mm-bucket-config: Invalid bucket key (2, 2)"},
		{"remote image", []string{"--backend", "openai-chat", "--dataset-name", "custom_image", "--dataset-path", remote,
			"--custom-ensure-client-side-data"}, "gobench does not download images"},
	} {
		args := append([]string{"serve", "--dry-run", "--model", "m", "--tokenizer", "gobench-builtin", "--num-prompts", "2"}, c.args...)
		_, stderr, code := runMain(t, args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", c.name, code, stderr, c.want)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// customImageFile writes a PNG and a custom_image JSONL file that uses it
// in both of vLLM's line forms, beside a data URL and, when remote, an
// http URL.
func customImageFile(t *testing.T, remote bool) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	img.Set(1, 1, color.RGBA{R: 200, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	pic := filepath.Join(dir, "pic.png")
	writeFile(t, pic, buf.String())
	url := "data:image/png;base64,iVBORw0KGgo="
	if remote {
		url = "http://example.com/x.png"
	}
	path = filepath.Join(dir, "images.jsonl")
	writeFile(t, path, strings.Join([]string{
		`{"prompt": "how many red pixels", "image_files": ["` + pic + `"]}`,
		``,
		`{"prompt": "compare", "image_files": ["` + pic + `", "data:image/png;base64,iVBORw0KGgo="]}`,
		`{"content": [{"type": "text", "text": "look "}, {"type": "image", "image": "` + pic + `"}, {"type": "text", "text": "and here"},` +
			` {"type": "image_url", "image_url": {"url": "` + url + `", "detail": "low"}}]}`,
	}, "\n")+"\n")
	return dir, path
}

// TestCustomImage runs custom_image (and its deprecated name custom_mm)
// against the simulator, with the images sent as references and, with
// --custom-ensure-client-side-data, the local ones as PNG data URLs; the
// dry run shows which.
func TestCustomImage(t *testing.T) {
	t.Parallel()
	dir, path := customImageFile(t, true)
	_, local := customImageFile(t, false)
	for _, extra := range [][]string{nil, {"--custom-ensure-client-side-data"}, {"--enable-multimodal-chat"}} {
		path := path
		if len(extra) > 0 && extra[0] == "--custom-ensure-client-side-data" {
			path = local
		}
		args := append([]string{"--backend", "openai-chat", "--endpoint", "/v1/chat/completions", "--dataset-name", "custom_image",
			"--dataset-path", path, "--num-prompts", "5", "--custom-output-len", "3"}, extra...)
		got := simServeJSON(t, args...)
		if got["completed"] != 5.0 || got["failed"] != 0.0 {
			t.Errorf("%v: completed %v, failed %v", extra, got["completed"], got["failed"])
		}
	}
	for name, extra := range map[string][]string{"references": nil, "client-side": {"--custom-ensure-client-side-data"}} {
		t.Run(name, func(t *testing.T) {
			path, dir := path, dir
			if extra != nil {
				dir, path = customImageFile(t, false)
			}
			args := append([]string{"serve", "--dry-run", "--model", "m", "--tokenizer", "gobench-builtin", "--backend", "openai-chat",
				"--dataset-name", "custom_mm", "--dataset-path", path, "--num-prompts", "4", "--seed", "1", "--request-id-prefix", "img-"}, extra...)
			stdout, stderr, code := runMain(t, args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			if !strings.Contains(stderr, "custom_mm is deprecated") {
				t.Errorf("no deprecation warning:\n%s", stderr)
			}
			golden.Check(t, []byte(strings.ReplaceAll(stdout, dir, "DIR")))
		})
	}
}

// TestShareGPTMedia: ShareGPT conversations with an "image" or "video"
// send it after the prompt, as vLLM does; the simulator counts it.
func TestShareGPTMedia(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sg.json")
	writeFile(t, path, `[{"conversations": [{"value": "the cat sat on the mat"}, {"value": "a b ab"}], "image": "https://h/1.png"},
 {"conversations": [{"value": "the cat sat on the mat again"}, {"value": "a b ab"}], "video": "clips/2.mp4"}]`)
	args := []string{"--backend", "openai-chat", "--dataset-name", "sharegpt", "--dataset-path", path, "--num-prompts", "2",
		"--sharegpt-output-len", "4", "--disable-shuffle", "--request-id-prefix", "s-"}
	stdout, stderr, code := runMain(t, append([]string{"serve", "--dry-run", "--model", "m", "--tokenizer", "gobench-builtin"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{`"media": ["image_url https://h/1.png"]`, `"media": ["video_url file://clips/2.mp4"]`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("dry run lacks %s:\n%s", want, stdout)
		}
	}
	got := simServeJSON(t, args...)
	if in, _ := got["total_input_tokens"].(float64); got["completed"] != 2.0 || in < 64+256 {
		t.Fatalf("completed %v, total_input_tokens %v: want 2, and the image's 64 and the video's 256 counted", got["completed"], in)
	}
	plain := simServeJSON(t, "--dataset-name", "sharegpt", "--backend", "openai-chat", "--dataset-path", path, "--num-prompts", "2",
		"--sharegpt-output-len", "4", "--disable-shuffle", "--enable-multimodal-chat")
	if got["total_input_tokens"] != plain["total_input_tokens"] {
		t.Errorf("input tokens %v, with --enable-multimodal-chat %v: the same media", got["total_input_tokens"], plain["total_input_tokens"])
	}
}
