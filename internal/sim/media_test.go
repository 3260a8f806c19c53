package sim

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestChatMediaTokens checks the placeholder count of media parts (64 per
// image or audio clip, 256 per video, plus the text's tokens) and the
// validation of their fields.
func TestChatMediaTokens(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, Config{})
	img := `{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,AAAA"}}`
	vid := `{"type":"video_url","video_url":{"url":"file://clip.mp4"}}`
	aud := `{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}}`
	for _, c := range []struct {
		name    string
		content string
		status  int
		tokens  int
		errText string
	}{
		{"text and media", `[{"type":"text","text":"a b c"},` + img + `,` + vid + `,` + aud + `]`, 200, 3 + 64 + 256 + 64, ""},
		{"two images", `[` + img + `,` + img + `]`, 200, 128, ""},
		{"image without url", `[{"type":"image_url","image_url":{}}]`, 400, 0, "body.messages.0.content.0.image_url.url"},
		{"audio without format", `[{"type":"input_audio","input_audio":{"data":"x"}}]`, 400, 0, "input_audio.data"},
		{"not an object", `["x"]`, 400, 0, "body.messages.0.content.0"},
	} {
		body := `{"max_tokens":2,"messages":[{"role":"user","content":` + c.content + `}]}`
		rec := do(t, s.Handler(), http.MethodPost, "/v1/chat/completions", body, nil)
		if rec.Code != c.status {
			t.Errorf("%s: status %d, want %d: %s", c.name, rec.Code, c.status, rec.Body)
			continue
		}
		if c.status != 200 {
			if !strings.Contains(rec.Body.String(), c.errText) {
				t.Errorf("%s: %s does not name %q", c.name, rec.Body, c.errText)
			}
			continue
		}
		var resp struct {
			Usage struct {
				PromptTokens int `json:"prompt_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
			t.Fatal(err)
		}
		if resp.Usage.PromptTokens != c.tokens {
			t.Errorf("%s: prompt_tokens %d, want %d", c.name, resp.Usage.PromptTokens, c.tokens)
		}
	}
}
