package backend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/pyjson"
)

// textPlain is the content type aiohttp gives a str field.
const textPlain = "text/plain; charset=utf-8"

// formPart is one part of a multipart form, as a server reads it.
type formPart struct {
	Name, FileName, ContentType, Value string
}

// readForm parses body as the multipart form contentType describes.
func readForm(t *testing.T, contentType string, body []byte) []formPart {
	t.Helper()
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "multipart/form-data" {
		t.Fatalf("content type %q: %v", contentType, err)
	}
	r := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	var parts []formPart
	for {
		p, err := r.NextPart()
		if errors.Is(err, io.EOF) {
			return parts
		}
		if err != nil {
			t.Fatalf("form: %v", err)
		}
		v, err := io.ReadAll(p)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, formPart{p.FormName(), p.FileName(), p.Header.Get("Content-Type"), string(v)})
	}
}

// TestAudioBody: the form vLLM's async_request_openai_audio posts: the
// clip as "file", then the payload keys in vLLM's order with Python's
// str() of each value; --extra-body replaces a key in place and adds the
// others after it.
func TestAudioBody(t *testing.T) {
	t.Parallel()
	extra, err := pyjson.DecodeObject([]byte(`{"language":"fr","temperature":0.0,"opts":{"a":[1,"b",null,true,2.5]},"note":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	wav := []byte("RIFF\x00\x00\x00\x00WAVEgobench-audio-0 in the samples")
	// form is the file part, then name, value pairs of text fields.
	form := func(fields ...string) []formPart {
		parts := []formPart{{"file", AudioFileName, AudioContentType, string(wav)}}
		for i := 0; i < len(fields); i += 2 {
			parts = append(parts, formPart{Name: fields[i], ContentType: textPlain, Value: fields[i+1]})
		}
		return parts
	}
	tests := []struct {
		name string
		req  Request
		want []formPart
	}{
		{"plain", Request{Model: "openai/whisper-large-v3", OutputLen: 200, AudioWAV: wav, Prompt: "not sent"}, form(
			"model", "openai/whisper-large-v3", "max_completion_tokens", "200", "stream", "True", "language", "en",
			"stream_include_usage", "True", "stream_continuous_usage_stats", "True")},
		{"served name, ignore_eos, extra body", Request{Model: "m", ModelName: "served", OutputLen: 7, AudioWAV: wav, IgnoreEOS: true,
			ExtraBody: *extra}, form(
			"model", "served", "max_completion_tokens", "7", "stream", "True", "language", "fr",
			"stream_include_usage", "True", "stream_continuous_usage_stats", "True", "ignore_eos", "True",
			"temperature", "0.0", "opts", "{'a': [1, 'b', None, True, 2.5]}", "note", "x")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := Audio{}.Body(&tt.req)
			ct := Audio{}.ContentType(body)
			if want := "multipart/form-data; boundary=gobench-audio-1"; ct != want {
				t.Errorf("content type %q, want %q (the WAV holds gobench-audio-0)", ct, want)
			}
			if diff := cmp.Diff(tt.want, readForm(t, ct, body)); diff != "" {
				t.Errorf("form (-want +got):\n%s", diff)
			}
			if again := (Audio{}).Body(&tt.req); !bytes.Equal(again, body) {
				t.Error("the same request gave different bytes")
			}
		})
	}
}

// TestAudioCheck: a request without a clip is refused before the
// run, with exit status 2.
func TestAudioCheck(t *testing.T) {
	t.Parallel()
	b := spec(t, "openai-audio").Impl
	err := Check(b, &Request{Prompt: "p"})
	if err == nil || exitcode.Of(err) != exitcode.BadUsage || !strings.Contains(err.Error(), "custom_audio") {
		t.Errorf("no clip: %v (status %d)", err, exitcode.Of(err))
	}
	if err := Check(b, &Request{AudioWAV: []byte("RIFF")}); err != nil {
		t.Errorf("clip: %v", err)
	}
	if err := Check(spec(t, "openai-chat").Impl, &Request{}); err != nil {
		t.Errorf("chat: %v", err)
	}
}

// TestAudioDecode: usage next to choices (continuous usage stats) is not
// read, the usage chunk gives completion_tokens only, an error event fails.
func TestAudioDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, data string
		want       Chunk
	}{
		{"token with continuous usage", `{"object":"transcription.chunk","choices":[{"delta":{"content":" hi"}}],"usage":{"prompt_tokens":9,"completion_tokens":1,"total_tokens":10}}`,
			Chunk{Token: true, Text: " hi", CompletionTokens: -1, PromptTokens: -1, CachedTokens: -1, ServerQueueMS: -1, ServerTTFTMS: -1, ServerPromptMS: -1, ServerDecodeMS: -1}},
		{"final usage", `{"object":"transcription.chunk","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":4,"total_tokens":13}}`,
			Chunk{Usage: true, CompletionTokens: 4, PromptTokens: -1, CachedTokens: -1, ServerQueueMS: -1, ServerTTFTMS: -1, ServerPromptMS: -1, ServerDecodeMS: -1}},
		{"error", `{"error":{"message":"audio too long","type":"BadRequestError"}}`,
			Chunk{Error: "audio too long", CompletionTokens: -1, PromptTokens: -1, CachedTokens: -1, ServerQueueMS: -1, ServerTTFTMS: -1, ServerPromptMS: -1, ServerDecodeMS: -1}},
	}
	for _, tt := range tests {
		var c Chunk
		if err := (Audio{}).Decode("", []byte(tt.data), &c); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if diff := cmp.Diff(tt.want, c); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestDoAudio: Client.Do posts the form with its multipart content type
// (a --header still overrides it, as in vLLM), records the clip's
// duration, and reads the stream as vLLM does: the dataset's prompt length
// stays, the usage chunk's completion_tokens counts, and an error event
// inside a 200 stream fails the request with the server's message.
func TestDoAudio(t *testing.T) {
	t.Parallel()
	const chunk = `data: {"object":"transcription.chunk","choices":[{"delta":{"content":"w%d "}}],"usage":{"prompt_tokens":30,"completion_tokens":%d,"total_tokens":0}}` + "\n\n"
	tests := []struct {
		name, stream string
		ok           bool
		errText      string
		tokens       int
	}{
		{"stream", strings.Join([]string{fmt.Sprintf(chunk, 0, 1), fmt.Sprintf(chunk, 1, 2), fmt.Sprintf(chunk, 2, 3),
			`data: {"object":"transcription.chunk","choices":[],"usage":{"prompt_tokens":30,"completion_tokens":3,"total_tokens":33}}` + "\n\n", doneEvent}, ""),
			true, "", 3},
		{"error event", fmt.Sprintf(chunk, 0, 1) + `data: {"error":{"message":"decoder failed","type":"InternalServerError","code":500}}` + "\n\n" + doneEvent,
			false, "server error event: decoder failed", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var parts []formPart
			var auth string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				parts = readForm(t, r.Header.Get("Content-Type"), body)
				auth = r.Header.Get("Authorization")
				io.WriteString(w, tt.stream)
			}))
			defer srv.Close()
			clk := &tickClock{}
			c := &Client{HTTP: srv.Client(), Now: clk.Now, APIKey: "k"}
			req := &Request{APIURL: srv.URL + "/v1/audio/transcriptions", PromptLen: 5, OutputLen: 64, Model: "m",
				AudioWAV: []byte("RIFF...."), AudioDuration: 2.5}
			out := c.Do(guard(t), Audio{}, req, Audio{}.Body(req))
			if len(parts) != 7 || parts[0].Value != "RIFF...." || auth != "Bearer k" {
				t.Errorf("server got parts %+v, authorization %q", parts, auth)
			}
			if out.Success != tt.ok || out.Error != tt.errText || out.OutputTokens != tt.tokens || out.PromptLen != 5 || out.InputAudioDuration != 2.5 {
				t.Errorf("record: success %v error %q output tokens %d prompt len %d audio %v",
					out.Success, out.Error, out.OutputTokens, out.PromptLen, out.InputAudioDuration)
			}
			if tt.ok && (out.GeneratedText != "w0 w1 w2 " || len(out.ITL) != 2) {
				t.Errorf("text %q, ITL %v", out.GeneratedText, out.ITL)
			}
		})
	}

	t.Run("header overrides", func(t *testing.T) {
		t.Parallel()
		var ct string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ct = r.Header.Get("Content-Type")
			io.WriteString(w, doneEvent)
		}))
		defer srv.Close()
		c := &Client{HTTP: srv.Client(), Now: (&tickClock{}).Now}
		req := &Request{APIURL: srv.URL + "/v1/audio/translations", AudioWAV: []byte("RIFF"),
			ExtraHeaders: []Header{{"Content-Type", "text/plain"}}}
		c.Do(context.Background(), Audio{}, req, Audio{}.Body(req))
		if ct != "text/plain" {
			t.Errorf("content type %q, want the --header value", ct)
		}
	})
}
