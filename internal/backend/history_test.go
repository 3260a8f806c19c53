package backend

import "testing"

// TestChatBodyHistory: a conversation's earlier turns come before the
// prompt, user turns in the array form and answers as plain text.
func TestChatBodyHistory(t *testing.T) {
	t.Parallel()
	req := &Request{Prompt: "third", Model: "m", OutputLen: 4, History: []Message{
		{Role: "user", Content: "first"}, {Role: "assistant", Content: "one"},
		{Role: "user", Content: "second"}, {Role: "assistant", Content: "two"},
	}}
	got := string(Chat{}.Body(req))
	want := `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"first"}]},{"role":"assistant","content":"one"},` +
		`{"role":"user","content":[{"type":"text","text":"second"}]},{"role":"assistant","content":"two"},` +
		`{"role":"user","content":[{"type":"text","text":"third"}]}],"max_completion_tokens":4,"stream":true,"stream_options":{"include_usage":true}}`
	if got != want {
		t.Errorf("body\n got %s\nwant %s", got, want)
	}
}
