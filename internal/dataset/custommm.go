package dataset

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/draw"
	_ "image/gif" // decodes GIF files for --custom-ensure-client-side-data
	_ "image/jpeg"
	"image/png"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/readlimit"
	"github.com/gobench/gobench/internal/tokenizer"
)

// maxImageFileBytes bounds one image file read with
// --custom-ensure-client-side-data.
const maxImageFileBytes = 64 << 20

// imageLine is one line of a custom_image file, kept for sampling.
type imageLine struct {
	line int
	obj  *pyjson.Object
}

// CustomMM builds custom_mm, vLLM's deprecated name of custom_image: the
// same dataset, after a warning.
func CustomMM(opts Options, tok tokenizer.Tokenizer, g *Globals, warn io.Writer) ([]Sample, error) {
	fmt.Fprintln(warn, "WARNING: --dataset-name custom_mm is deprecated and will be removed in vLLM v0.24; use custom_image.")
	return CustomImage(opts, tok, g, warn)
}

// CustomImage builds vLLM's custom_image dataset (CustomImageDataset,
// vllm/benchmarks/datasets/datasets.py@003cf0297, the nearest readable
// version of the pinned one): a JSONL file whose lines hold either
// "prompt" and "image_files" (a text prompt with its images after it) or
// "content" (interleaved text and image parts, sent as the message's
// content), shuffled with random.seed(seed) unless --disable-shuffle, then
// oversampled. An image is a URL (http, https, file, data:image) passed
// through, or a path sent as a file:// URL; with
// --custom-ensure-client-side-data local images are read and sent as PNG
// data URLs instead.
func CustomImage(opts Options, tok tokenizer.Tokenizer, g *Globals, warn io.Writer) ([]Sample, error) {
	if opts.Path == "" {
		return nil, exitcode.Usagef("--dataset-name %s needs --dataset-path to a .jsonl file", opts.Name)
	}
	if !strings.HasSuffix(opts.Path, ".jsonl") {
		return nil, exitcode.Usagef("--dataset-path %s: Only JSONL format is supported for CustomImageDataset.", opts.Path)
	}
	if opts.CustomOutputLen == -1 {
		return nil, exitcode.Usagef("--custom-output-len -1: %s lines carry no output length (vLLM would send max_completion_tokens -1); give a length", opts.Name)
	}
	lines, err := readImageLines(opts.Path)
	if err != nil {
		return nil, err
	}
	shuffle(lines, opts, g.Random)
	n := opts.NumPrompts
	if n <= 0 {
		n = len(lines)
		fmt.Fprintf(warn, "num_requests is set to 0 or negative, so using all available samples: %d\n", n)
	}
	m := mediaReader{ensure: opts.CustomEnsureClientSideData}
	var samples []Sample
	for i, l := range lines {
		if len(samples) >= n {
			break
		}
		s, err := imageSample(l.obj, tok, opts, &m)
		if err != nil {
			return nil, fmt.Errorf("--dataset-path %s:%d: %w", opts.Path, l.line, err)
		}
		s.RequestID = opts.RequestIDPrefix + strconv.Itoa(i)
		samples = append(samples, s)
	}
	o := opts
	o.NumPrompts = n
	return oversample(samples, o, g.Random, warn)
}

// imageSample is one request of custom_image.
func imageSample(obj *pyjson.Object, tok tokenizer.Tokenizer, opts Options, m *mediaReader) (Sample, error) {
	count := func(text string) int {
		if tok == nil {
			return 1
		}
		return len(tok.Encode(text, true))
	}
	s := Sample{ExpectedOutputLen: opts.CustomOutputLen}
	if raw, ok := obj.Get("content"); ok {
		content, text, err := m.contentParts(raw)
		if err != nil {
			return s, err
		}
		s.PromptLen = count(text)
		s.PromptParts = content
		if opts.EnableMultimodalChat {
			msg := pyjson.NewObject()
			msg.Set("role", "user")
			msg.Set("content", content)
			s.PromptParts = []*pyjson.Object{msg}
		}
		return s, nil
	}
	p, _ := obj.Get("prompt")
	prompt, ok := p.(string)
	if !ok {
		return s, errors.New("'prompt' must be a string.")
	}
	files, _ := obj.Get("image_files")
	list, ok := files.([]any)
	if !ok || len(list) == 0 {
		return s, errors.New("'image_files' must be a non-empty list.")
	}
	for _, f := range list {
		part, err := m.image(f)
		if err != nil {
			return s, err
		}
		s.MultiModal = append(s.MultiModal, part)
	}
	s.PromptLen = count(prompt)
	if opts.EnableMultimodalChat {
		s.PromptParts = multimodalChat(prompt, s.MultiModal)
	} else {
		s.Prompt = prompt
	}
	return s, nil
}

// readImageLines reads a custom_image JSONL file: blank lines are
// skipped, every other line is an object with "prompt" and "image_files"
// or with "content".
func readImageLines(path string) ([]imageLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, exitcode.With(fmt.Errorf("--dataset-path: %w", err), exitcode.BadUsage)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var out []imageLine
	for line := 1; ; line++ {
		b, err := readLine(r, maxValueBytes)
		if errors.Is(err, errValueTooLarge) {
			return nil, fmt.Errorf("--dataset-path %s:%d: the line is longer than %s", path, line, readlimit.Size(maxValueBytes))
		}
		var start *notObjectStart
		if errors.As(err, &start) {
			return nil, fmt.Errorf("--dataset-path %s:%d: Each custom image dataset line must contain a JSON object; it starts with %s", path, line, readlimit.Quote(start.c))
		}
		if t := bytes.TrimSpace(b); len(t) > 0 {
			v, derr := pyjson.Decode(t)
			if derr != nil {
				return nil, fmt.Errorf("--dataset-path %s:%d: Invalid JSON in custom image dataset line %d: %w", path, line, line, derr)
			}
			obj, isObj := v.(*pyjson.Object)
			if !isObj {
				return nil, fmt.Errorf("--dataset-path %s:%d: Each custom image dataset line must contain a JSON object. Found %s on line %d.", path, line, pyTypeName(v), line)
			}
			_, hasPrompt := obj.Get("prompt")
			_, hasFiles := obj.Get("image_files")
			if _, hasContent := obj.Get("content"); !hasContent && !(hasPrompt && hasFiles) {
				return nil, fmt.Errorf("--dataset-path %s:%d: Each custom image dataset line must contain either 'prompt' and 'image_files' fields, or a 'content' field. Invalid line: %d.", path, line, line)
			}
			out = append(out, imageLine{line: line, obj: obj})
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read --dataset-path %s: %w", path, err)
		}
	}
}

// mediaReader turns image references into content parts (vLLM's
// process_image), reading local files when asked to.
type mediaReader struct {
	ensure bool
}

// contentParts checks and converts an interleaved "content" list, and
// returns the text of its text parts joined (what vLLM counts).
func (m *mediaReader) contentParts(raw any) ([]*pyjson.Object, string, error) {
	list, ok := raw.([]any)
	if !ok {
		return nil, "", errors.New("'content' must be a list of text and image content dictionaries.")
	}
	if len(list) == 0 {
		return nil, "", errors.New("'content' must contain at least one item.")
	}
	var parts []*pyjson.Object
	var text strings.Builder
	for _, it := range list {
		part, ok := it.(*pyjson.Object)
		if !ok {
			return nil, "", fmt.Errorf("Each item in 'content' must be a dictionary. Found %s.", pyTypeName(it))
		}
		out, err := m.contentPart(part)
		if err != nil {
			return nil, "", err
		}
		if t, ok := out.Get("text"); ok {
			text.WriteString(t.(string))
		}
		parts = append(parts, out)
	}
	return parts, text.String(), nil
}

// contentPart is CustomImageDataset._process_content_part.
func (m *mediaReader) contentPart(part *pyjson.Object) (*pyjson.Object, error) {
	t, _ := part.Get("type")
	switch t {
	case "text":
		text, ok := part.Get("text")
		if s, isStr := text.(string); ok && isStr {
			o := pyjson.NewObject()
			o.Set("type", "text")
			o.Set("text", s)
			return o, nil
		}
		return nil, errors.New("Text content parts must contain a string 'text'.")
	case "image":
		img, ok := part.Get("image")
		if !ok {
			return nil, errors.New("Image content parts must contain an 'image' field.")
		}
		return m.image(img)
	case "image_url":
		v, _ := part.Get("image_url")
		switch u := v.(type) {
		case string:
			return m.image(u)
		case *pyjson.Object:
			url, ok := u.Get("url")
			if _, isStr := url.(string); !ok || !isStr {
				return nil, errors.New("Image URL content parts must contain a string 'image_url.url'.")
			}
			out, err := m.image(url)
			if err != nil {
				return nil, err
			}
			inner, _ := out.Get("image_url")
			merged := inner.(*pyjson.Object).Clone()
			for _, k := range u.Keys() {
				if k != "url" {
					x, _ := u.Get(k)
					merged.Set(k, x)
				}
			}
			out.Set("image_url", merged)
			return out, nil
		}
		return nil, errors.New("Image URL content parts must contain an 'image_url' string or dictionary.")
	}
	return nil, fmt.Errorf("Content parts must have type 'text', 'image', or 'image_url'. Found: %s.", pyfmt.Repr(t))
}

// image is vLLM's process_image for a string: a URL is kept, a path
// becomes file://path; with --custom-ensure-client-side-data a file is
// read and re-encoded as a PNG data URL (vLLM's fetch_image then
// encode_image_url), and http(s) images are refused.
func (m *mediaReader) image(v any) (*pyjson.Object, error) {
	ref, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("Invalid image input %s. Must be a PIL.Image.Image, str (URL, file path, or base64 data URL), or dictionary with raw image bytes.", pyfmt.Repr(v))
	}
	url := ref
	if !hasAnyPrefix(ref, "http://", "https://", "file://", "data:image/") {
		url = "file://" + ref
	}
	if !m.ensure || strings.HasPrefix(url, "data:image/") {
		return mediaPart("image_url", url), nil
	}
	if !strings.HasPrefix(url, "file://") {
		return nil, exitcode.With(fmt.Errorf("--custom-ensure-client-side-data: image %s: gobench does not download images; save it and reference the file: %w", url, exitcode.ErrNotSupported), exitcode.BadUsage)
	}
	data, err := pngDataURL(strings.TrimPrefix(url, "file://"))
	if err != nil {
		return nil, fmt.Errorf("Invalid image URL: %s: %w", url, err)
	}
	return mediaPart("image_url", data), nil
}

// pngDataURL reads an image file (JPEG, PNG or GIF) and returns it as an
// RGB PNG data URL, as vLLM's encode_image_url does (image_mode "RGB",
// format "PNG").
func pngDataURL(path string) (string, error) {
	b, err := readlimit.File(path, maxImageFileBytes)
	if err != nil {
		return "", err
	}
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		return "", fmt.Errorf("decode %s (gobench reads JPEG, PNG and GIF): %w", path, err)
	}
	// vLLM converts to RGB first (convert_image_mode: transparency
	// composited over white), so the PNG has no alpha channel.
	rgb := image.NewRGBA(img.Bounds())
	draw.Draw(rgb, rgb.Bounds(), image.White, image.Point{}, draw.Src)
	draw.Draw(rgb, rgb.Bounds(), img, img.Bounds().Min, draw.Over)
	var buf bytes.Buffer
	if err := png.Encode(&buf, rgb); err != nil {
		return "", fmt.Errorf("encode %s as PNG: %w", path, err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// shareGPTMedia is ShareGPTDataset's media (vllm/benchmarks/datasets/
// datasets.py@003cf0297): a truthy "image" goes through process_image, else
// a truthy "video" through process_video, each a path or URL string.
func shareGPTMedia(image, video json.RawMessage) ([]*pyjson.Object, error) {
	for _, f := range []struct {
		raw   json.RawMessage
		video bool
	}{{image, false}, {video, true}} {
		if isNull(f.raw) {
			continue
		}
		v, err := pyjson.Decode(f.raw)
		if err != nil {
			return nil, err
		}
		if !pyTruthy(v) {
			continue
		}
		if !f.video {
			part, err := (&mediaReader{}).image(v)
			return []*pyjson.Object{part}, err
		}
		ref, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("Invalid video input %s. Must be a string of local path/remote url, or a dictionary with raw video bytes in the form of `{'bytes': raw_video_bytes}`.", pyfmt.Repr(v))
		}
		if !hasAnyPrefix(ref, "http://", "https://", "file://") {
			ref = "file://" + ref
		}
		return []*pyjson.Object{mediaPart("video_url", ref)}, nil
	}
	return nil, nil
}

// pyTruthy is Python's truth value of a decoded JSON value.
func pyTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case string:
		return x != ""
	case bool:
		return x
	case int:
		return x != 0
	case float64:
		return x != 0
	case []any:
		return len(x) > 0
	case *pyjson.Object:
		return x.Len() > 0
	}
	return true
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// pyTypeName is Python's type(v) text for a decoded JSON value.
func pyTypeName(v any) string {
	switch v.(type) {
	case string:
		return "<class 'str'>"
	case []any:
		return "<class 'list'>"
	case bool:
		return "<class 'bool'>"
	case float64:
		return "<class 'float'>"
	case nil:
		return "<class 'NoneType'>"
	}
	return "<class 'int'>"
}
