package backend

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestAudioUploadName: a server parsing the form sees the clip in the
// field "file" named audio.wav with type audio/wav, as later vLLM names
// its in-memory clip (send_audio_file); the name's extension tells servers
// that read the format from it (OpenAI's) what they get.
func TestAudioUploadName(t *testing.T) {
	t.Parallel()
	var name, ctype string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if fhs := r.MultipartForm.File["file"]; len(fhs) == 1 {
			name, ctype = fhs[0].Filename, fhs[0].Header.Get("Content-Type")
		}
	}))
	t.Cleanup(srv.Close)
	body := Audio{}.Body(&Request{Model: "m", OutputLen: 4, AudioWAV: []byte("RIFF\x00\x00\x00\x00WAVE")})
	resp, err := http.Post(srv.URL, Audio{}.ContentType(body), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || name != "audio.wav" || ctype != "audio/wav" {
		t.Errorf("HTTP %d, file name %q, type %q; want audio.wav, audio/wav", resp.StatusCode, name, ctype)
	}
}
