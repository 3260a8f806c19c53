package backend

import "github.com/gobench/gobench/internal/pyjson"

// historyMessages are a conversation's earlier messages as chat messages:
// a user turn in the array form its request sent ([{"type": "text",
// "text": ...}]), an answer as the plain text the server generated, as
// vLLM's Rust client keeps them (rust/src/bench/src/multi_turn.rs
// run_conversation). nil for a request without history.
func historyMessages(history []Message) []*pyjson.Object {
	out := make([]*pyjson.Object, 0, len(history)+1)
	for _, m := range history {
		msg := pyjson.NewObject()
		msg.Set("role", m.Role)
		if m.Role == "user" {
			part := pyjson.NewObject()
			part.Set("type", "text")
			part.Set("text", m.Content)
			msg.Set("content", []*pyjson.Object{part})
		} else {
			msg.Set("content", m.Content)
		}
		out = append(out, msg)
	}
	return out
}
