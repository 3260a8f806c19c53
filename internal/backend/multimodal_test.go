package backend

import (
	"testing"

	"github.com/gobench/gobench/internal/pyjson"
)

func mmPart(kind, url string) *pyjson.Object {
	inner := pyjson.NewObject()
	inner.Set("url", url)
	p := pyjson.NewObject()
	p.Set("type", kind)
	p.Set(kind, inner)
	return p
}

func textPart(first string, text string) *pyjson.Object {
	p := pyjson.NewObject()
	if first == "text" {
		p.Set("text", text)
		p.Set("type", "text")
	} else {
		p.Set("type", "text")
		p.Set("text", text)
	}
	return p
}

// TestMultiModalBodies checks vLLM's _get_chat_messages with media: parts
// after the text (mm_position "last"), before it for vlm2vec's "first",
// content parts used as the content, prebuilt chat messages sent as they
// are (their media inside), and completions, which sends a list[dict]
// prompt as it is and never media.
func TestMultiModalBodies(t *testing.T) {
	t.Parallel()
	img := mmPart("image_url", "data:image/jpeg;base64,AAAA")
	vid := mmPart("video_url", "file://clip.mp4")
	msg := pyjson.NewObject()
	msg.Set("role", "user")
	msg.Set("content", []*pyjson.Object{textPart("text", "hi"), img})
	head := `{"model":"m","messages":`
	tail := `,"max_completion_tokens":5,"stream":true,"stream_options":{"include_usage":true}}`
	for _, c := range []struct {
		name string
		req  Request
		api  Backend
		want string
	}{
		{"chat media last", Request{Model: "m", Prompt: "hi", OutputLen: 5, MultiModal: []*pyjson.Object{img, vid}}, Chat{},
			head + `[{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,AAAA"}},{"type":"video_url","video_url":{"url":"file://clip.mp4"}}]}]` + tail},
		{"content parts", Request{Model: "m", OutputLen: 5, PromptParts: []*pyjson.Object{textPart("type", "a "), img, textPart("type", "b")}}, Chat{},
			head + `[{"role":"user","content":[{"type":"text","text":"a "},{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,AAAA"}},{"type":"text","text":"b"}]}]` + tail},
		{"chat messages verbatim", Request{Model: "m", OutputLen: 5, PromptParts: []*pyjson.Object{msg}, MultiModal: []*pyjson.Object{vid}}, Chat{},
			head + `[{"role":"user","content":[{"text":"hi","type":"text"},{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,AAAA"}}]}]` + tail},
		{"completions ignores media", Request{Model: "m", Prompt: "hi", OutputLen: 5, MultiModal: []*pyjson.Object{img}}, Completions{},
			`{"model":"m","prompt":"hi","repetition_penalty":1.0,"max_tokens":5,"logprobs":null,"stream":true,"stream_options":{"include_usage":true}}`},
		{"completions list prompt", Request{Model: "m", OutputLen: 5, PromptParts: []*pyjson.Object{textPart("type", "x")}}, Completions{},
			`{"model":"m","prompt":[{"type":"text","text":"x"}],"repetition_penalty":1.0,"max_tokens":5,"logprobs":null,"stream":true,"stream_options":{"include_usage":true}}`},
	} {
		if got := string(c.api.Body(&c.req)); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
	first := ChatMessages(&Request{Prompt: "q", MultiModal: []*pyjson.Object{img}}, true)
	b, _ := pyjson.AppendCompact(nil, first)
	if want := `[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,AAAA"}},{"type":"text","text":"q"}]}]`; string(b) != want {
		t.Errorf("mm first: %s, want %s", b, want)
	}
}
