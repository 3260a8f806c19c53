package dataset

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/jpeg"
	"strings"

	"github.com/gobench/gobench/internal/pyjson"
)

// jpegQuality is Pillow's default JPEG quality, which vLLM's process_image
// uses (image.save(format="JPEG")).
const jpegQuality = 75

// EncodeMMItem turns a synthetic item into the chat content part vLLM
// sends. An image is a JPEG data URL ({"type": "image_url", "image_url":
// {"url": "data:image/jpeg;base64,..."}}), as vLLM's process_image makes
// it (with Go's encoder instead of Pillow's, so the bytes differ and the
// pixels do not). vLLM encodes a video to MP4 with OpenCV; gobench sends
// the same frames in vLLM's own frame-list form
// ({"type": "video_url", "video_url": {"url":
// "data:video/jpeg;base64,<frame>,<frame>,..."}}, what
// vllm/multimodal/utils.py encode_video_url makes with format "JPEG" and
// vLLM's server decodes), which needs no video codec.
func EncodeMMItem(it MMItem) *pyjson.Object {
	frame := it.Height * it.Width * 3
	if it.Frames == 1 {
		return mediaPart("image_url", "data:image/jpeg;base64,"+jpegBase64(it.Pixels, it.Width, it.Height))
	}
	var url strings.Builder
	url.WriteString("data:video/jpeg;base64,")
	for f := range it.Frames {
		if f > 0 {
			url.WriteByte(',')
		}
		url.WriteString(jpegBase64(it.Pixels[f*frame:(f+1)*frame], it.Width, it.Height))
	}
	return mediaPart("video_url", url.String())
}

// mediaPart is {"type": kind, kind: {"url": url}}.
func mediaPart(kind, url string) *pyjson.Object {
	inner := pyjson.NewObject()
	inner.Set("url", url)
	part := pyjson.NewObject()
	part.Set("type", kind)
	part.Set(kind, inner)
	return part
}

// jpegBase64 encodes packed RGB pixels (as NumPy's (height, width, 3)
// uint8 array lays them out) as a base64 JPEG.
func jpegBase64(rgb []byte, width, height int) string {
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	for i := range width * height {
		copy(img.Pix[4*i:4*i+3], rgb[3*i:3*i+3])
		img.Pix[4*i+3] = 0xff
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: jpegQuality}); err != nil {
		// Encoding into memory fails only for an empty image, which the
		// bucket parser refuses.
		panic(fmt.Sprintf("dataset: encode JPEG: %v", err))
	}
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

// MediaSummary describes a content part for --dry-run without its
// payload: its type and URL, a data URL shortened to its media type and
// size ("image_url data:image/jpeg;base64 (10244 bytes)").
func MediaSummary(part *pyjson.Object) string {
	t, _ := part.Get("type")
	kind, _ := t.(string)
	inner, _ := part.Get(kind)
	var url string
	if o, ok := inner.(*pyjson.Object); ok {
		u, _ := o.Get("url")
		url, _ = u.(string)
		if d, ok := o.Get("data"); ok && url == "" { // input_audio
			data, _ := d.(string)
			f, _ := o.Get("format")
			return fmt.Sprintf("%s %v (%d bytes)", kind, f, len(data))
		}
	} else if s, ok := inner.(string); ok {
		url = s
	}
	if head, data, ok := strings.Cut(url, ","); ok && strings.HasPrefix(url, "data:") {
		return fmt.Sprintf("%s %s (%d bytes)", kind, head, len(data))
	}
	if url == "" {
		return kind
	}
	return kind + " " + url
}

// MediaSummaries lists the media of a request for --dry-run (see
// MediaSummary), in the order they are sent: those of each list of parts
// given, including the ones inside content parts and chat messages.
func MediaSummaries(lists ...[]*pyjson.Object) []string {
	var out []string
	var walk func(parts []*pyjson.Object)
	walk = func(parts []*pyjson.Object) {
		for _, p := range parts {
			if p == nil {
				continue
			}
			switch t, _ := p.Get("type"); t {
			case "image_url", "video_url", "input_audio":
				out = append(out, MediaSummary(p))
				continue
			}
			if c, ok := p.Get("content"); ok {
				if list, ok := c.([]*pyjson.Object); ok {
					walk(list)
				}
			}
		}
	}
	for _, l := range lists {
		walk(l)
	}
	return out
}
