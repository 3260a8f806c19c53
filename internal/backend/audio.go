package backend

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/pyjson"
)

// Audio is the OpenAI audio API, transcriptions and translations
// (--backend openai-audio; vllm/benchmarks/lib/endpoint_request_func.py@02cfb534
// async_request_openai_audio). The request is a multipart form that
// uploads the clip as a WAV file, with the parameters as text fields; the
// answer is a stream of chat-completion-like chunks.
type Audio struct{}

var (
	_ Backend      = Audio{}
	_ ContentTyper = Audio{}
	_ Checker      = Audio{}
)

// AudioFileName is the file name later vLLM gives the uploaded clip
// (send_audio_file for an in-memory clip,
// endpoint_request_func.py@02cfb534; the pinned commit lets aiohttp name
// it after the field, "file"): its extension tells a server that reads
// the format from the name what it gets. AudioContentType is the part's
// content type.
const (
	AudioFileName    = "audio.wav"
	AudioContentType = "audio/wav"
)

// quoteEscaper escapes a form field's name as mime/multipart does.
var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"")

// errNoAudio is Check's error for a request without a clip.
var errNoAudio = exitcode.With(errors.New("--backend openai-audio uploads one audio clip per request and this request has none: use --dataset-name custom_audio (a JSONL file of prompts and WAV files)"), exitcode.BadUsage)

// Check implements Checker: every request must carry a clip,
// as vLLM raises TypeError("multi_modal_content must be a dict containing
// 'audio'") before sending anything.
func (Audio) Check(req *Request) error {
	if req.AudioWAV == nil {
		return errNoAudio
	}
	return nil
}

// Body implements Backend: the multipart form vLLM's aiohttp FormData
// writes: the part "file" (filename audio.wav, content type audio/wav)
// holding the WAV bytes, then one text part (text/plain; charset=utf-8)
// per payload key in vLLM's order, each value as Python's str() writes it
// (True, not true): model, max_completion_tokens, stream, language "en",
// stream_include_usage, stream_continuous_usage_stats, then ignore_eos
// and --extra-body. vLLM does not send the prompt. The boundary is derived
// from the content (the first "gobench-audio-N" that occurs nowhere in
// it) rather than drawn at random, so that the same request is the same
// bytes.
func (Audio) Body(req *Request) []byte {
	var o pyjson.Object
	o.Set("model", modelField(req))
	o.Set("max_completion_tokens", req.OutputLen)
	o.Set("stream", true)
	o.Set("language", "en")
	o.Set("stream_include_usage", true)
	o.Set("stream_continuous_usage_stats", true)
	if req.IgnoreEOS {
		o.Set("ignore_eos", true)
	}
	o.Update(&req.ExtraBody)
	keys := o.Keys()
	values := make([]string, len(keys))
	for i, k := range keys {
		v, _ := o.Get(k)
		values[i] = pyfmt.Str(v)
	}
	var b bytes.Buffer
	b.Grow(len(req.AudioWAV) + 160*len(keys) + 256)
	mw := multipart.NewWriter(&b)
	if err := mw.SetBoundary(formBoundary(req.AudioWAV, keys, values)); err != nil {
		panic(fmt.Sprintf("backend: multipart boundary: %v", err)) // formBoundary's are valid
	}
	h := make(textproto.MIMEHeader, 2)
	h.Set("Content-Disposition", `form-data; name="file"; filename="`+AudioFileName+`"`)
	h.Set("Content-Type", AudioContentType)
	// Writes to a bytes.Buffer do not fail.
	part, _ := mw.CreatePart(h)
	_, _ = part.Write(req.AudioWAV)
	for i, k := range keys {
		// aiohttp gives a str field this content type.
		h := make(textproto.MIMEHeader, 2)
		h.Set("Content-Disposition", `form-data; name="`+quoteEscaper.Replace(k)+`"`)
		h.Set("Content-Type", "text/plain; charset=utf-8")
		part, _ := mw.CreatePart(h)
		_, _ = io.WriteString(part, values[i])
	}
	_ = mw.Close()
	return b.Bytes()
}

// ContentType implements ContentTyper: multipart/form-data with the
// boundary Body chose, read back from the body's first line.
func (Audio) ContentType(body []byte) string {
	line, _, _ := bytes.Cut(body, []byte("\r\n"))
	return "multipart/form-data; boundary=" + string(bytes.TrimPrefix(line, []byte("--")))
}

// Decode implements Backend: the chunks are chat completion chunks
// (delta.content), and vLLM reads them as its chat function does, with
// two differences kept here: a usage object next to choices (the server's
// continuous usage stats) is ignored, only a usage chunk without choices
// gives completion_tokens, and prompt_tokens never replaces the dataset's
// prompt length.
func (Audio) Decode(eventType string, data []byte, c *Chunk) error {
	if err := decode(eventType, data, c, true); err != nil {
		return err
	}
	c.PromptTokens, c.CachedTokens = -1, -1
	if c.Token {
		c.CompletionTokens = -1
	}
	return nil
}

// formBoundary returns the first boundary "gobench-audio-N" that occurs
// in none of the form's contents, so that the form parses back as it was
// written.
func formBoundary(wav []byte, keys, values []string) string {
	for n := 0; ; n++ {
		b := "gobench-audio-" + strconv.Itoa(n)
		if bytes.Contains(wav, []byte(b)) {
			continue
		}
		clash := false
		for i := range keys {
			clash = clash || strings.Contains(keys[i], b) || strings.Contains(values[i], b)
		}
		if !clash {
			return b
		}
	}
}
