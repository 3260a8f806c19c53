package sim

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/wav"
)

// audioForm is a speech-to-text form: the clip (nil: no file part) and
// the text fields in order, as name, value pairs.
func audioForm(t *testing.T, clip []byte, fields ...string) (body []byte, contentType string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	if clip != nil {
		fw, err := mw.CreateFormFile("file", "audio.wav")
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(clip)
	}
	for i := 0; i+1 < len(fields); i += 2 {
		mw.WriteField(fields[i], fields[i+1])
	}
	mw.Close()
	return b.Bytes(), mw.FormDataContentType()
}

// postAudio posts a form to path through the server's handler.
func postAudio(t *testing.T, s *Server, path string, body []byte, contentType string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Request-Id", "req-1")
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	return rec
}

// TestAudioStream pins the speech-to-text stream as vLLM's server writes
// it for vllm bench serve's form: chunks of delta.content with the usage
// so far (stream_continuous_usage_stats), the last with its finish
// reason, the usage chunk with empty choices, [DONE]. A 2-second clip
// costs 100 prompt tokens.
func TestAudioStream(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, Config{Tokenizer: fakeTokenizer{}})
	clip := wav.PCM16(16000, 1, make([]int16, 32000))
	fields := []string{"model", s.cfg.Model, "max_completion_tokens", "3", "stream", "True", "language", "en",
		"stream_include_usage", "True", "stream_continuous_usage_stats", "True", "ignore_eos", "True"}
	for _, tt := range []struct{ path, golden string }{
		{"/v1/audio/transcriptions", "audio_transcriptions_stream"},
		{"/v1/audio/translations", "audio_translations_stream"},
	} {
		body, ct := audioForm(t, clip, fields...)
		rec := postAudio(t, s, tt.path, body, ct)
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") {
			t.Fatalf("%s: status %d %s: %s", tt.path, rec.Code, rec.Header().Get("Content-Type"), rec.Body)
		}
		if evs := sseEvents(t, rec.Body.Bytes()); len(evs) != 5 || evs[4] != "[DONE]" {
			t.Errorf("%s: events %q", tt.path, evs)
		}
		checkGolden(t, tt.golden, normalize(rec.Body.Bytes()))
	}

	body, ct := audioForm(t, clip, "max_completion_tokens", "2", "ignore_eos", "true")
	rec := postAudio(t, s, "/v1/audio/transcriptions", body, ct)
	if got := rec.Body.String(); rec.Code != http.StatusOK || !strings.HasPrefix(got, `{"text":`) || !strings.HasSuffix(got, `"usage":{"type":"duration","seconds":2}}`) {
		t.Errorf("not streamed: %d %s", rec.Code, got)
	}
}

// TestAudioErrors: what vLLM refuses is refused with its status: no file,
// a file that is not audio it decodes, one over its 25 MB bound, a field
// pydantic cannot parse, another model.
func TestAudioErrors(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, Config{Tokenizer: fakeTokenizer{}})
	clip := wav.PCM16(16000, 1, make([]int16, 160))
	tests := []struct {
		name   string
		clip   []byte
		fields []string
		status int
		want   string
	}{
		{"no file", nil, []string{"model", s.cfg.Model}, 400, `{'type': 'missing', 'loc': ('body', 'file'), 'msg': 'Field required'}","type":"Bad Request","param":"body.file"`},
		{"not wav", []byte("fLaC...."), nil, 400, "Invalid or unsupported audio file: not a WAV file (RIFF/WAVE): it is FLAC"},
		{"too large", make([]byte, maxAudioFileBytes+1), nil, 400, "Maximum file size exceeded."},
		{"bad bool", clip, []string{"stream", "maybe"}, 400, "Input should be a valid boolean"},
		{"bad int", clip, []string{"max_completion_tokens", "x"}, 400, "Input should be a valid integer"},
		{"zero tokens", clip, []string{"max_completion_tokens", "0"}, 400, "max_completion_tokens must be at least 1, got 0."},
		{"model", clip, []string{"model", "other"}, 404, "The model `other` does not exist."},
	}
	for _, tt := range tests {
		body, ct := audioForm(t, tt.clip, tt.fields...)
		rec := postAudio(t, s, "/v1/audio/transcriptions", body, ct)
		if rec.Code != tt.status || !strings.Contains(rec.Body.String(), tt.want) {
			t.Errorf("%s: %d %s, want %d and %q", tt.name, rec.Code, rec.Body, tt.status, tt.want)
		}
	}
	rec := postAudio(t, s, "/v1/audio/transcriptions", []byte(`{"model":"m"}`), "application/json")
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), "Field required") {
		t.Errorf("JSON body: %d %s", rec.Code, rec.Body)
	}
}
