package sim

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/pyjson"
)

// responsesWriter renames a completions or chat stream into the OpenAI
// Responses API's named events, as vLLM's /v1/responses streams them:
// response.created, response.in_progress, response.output_item.added and
// response.content_part.added when the stream opens, one
// response.output_text.delta per token event, and response.completed
// (status "incomplete" when the output limit ended it, as vLLM reports a
// truncation) with the usage instead of the usage event. An error event
// becomes an "error" event; [DONE], which the Responses API does not have,
// is dropped; an event it cannot read (the malformed-JSON fault) goes out
// as it came. Error answers before the stream pass through unchanged.
type responsesWriter struct {
	w         http.ResponseWriter
	id, model string
	created   int64
	sse       bool   // the answer is a stream: events are translated
	buf       []byte // the start of an event not yet complete
	seq       int    // sequence_number of the next event
	finish    string // the finish reason of the last token event
}

// Header implements http.ResponseWriter.
func (rw *responsesWriter) Header() http.Header { return rw.w.Header() }

// WriteHeader implements http.ResponseWriter; a stream's preamble goes out
// with the headers.
func (rw *responsesWriter) WriteHeader(code int) {
	rw.sse = code == http.StatusOK && strings.HasPrefix(rw.w.Header().Get("Content-Type"), "text/event-stream")
	rw.w.WriteHeader(code)
	if !rw.sse {
		return
	}
	resp := rw.response("in_progress", -1, -1)
	out := rw.event(nil, "response.created", func(o *pyjson.Object) { o.Set("response", resp) })
	out = rw.event(out, "response.in_progress", func(o *pyjson.Object) { o.Set("response", resp) })
	out = rw.event(out, "response.output_item.added", func(o *pyjson.Object) {
		item := pyjson.NewObject()
		item.Set("id", "msg_"+rw.id)
		item.Set("type", "message")
		item.Set("role", "assistant")
		item.Set("status", "in_progress")
		item.Set("content", []any{})
		o.Set("output_index", 0)
		o.Set("item", item)
	})
	out = rw.event(out, "response.content_part.added", func(o *pyjson.Object) {
		part := pyjson.NewObject()
		part.Set("type", "output_text")
		part.Set("text", "")
		o.Set("item_id", "msg_"+rw.id)
		o.Set("output_index", 0)
		o.Set("content_index", 0)
		o.Set("part", part)
	})
	_, _ = rw.w.Write(out)
}

// Write implements http.ResponseWriter: the stream's events are
// translated as each one completes.
func (rw *responsesWriter) Write(p []byte) (int, error) {
	if !rw.sse {
		return rw.w.Write(p)
	}
	rw.buf = append(rw.buf, p...)
	var out []byte
	for {
		i := bytes.Index(rw.buf, []byte("\n\n"))
		if i < 0 {
			break
		}
		out = rw.translate(out, rw.buf[:i+2])
		rw.buf = rw.buf[i+2:]
	}
	if len(out) > 0 {
		if _, err := rw.w.Write(out); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// FlushError flushes the underlying writer (http.ResponseController).
func (rw *responsesWriter) FlushError() error { return http.NewResponseController(rw.w).Flush() }

// Unwrap gives http.ResponseController the underlying writer, for the
// reset fault's Hijack.
func (rw *responsesWriter) Unwrap() http.ResponseWriter { return rw.w }

// generationEvent is the part of a completions or chat event the
// translation reads.
type generationEvent struct {
	Choices []struct {
		Text  *string `json:"text"`
		Delta *struct {
			Role    *string `json:"role"`
			Content *string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error *errorInfo `json:"error"`
}

// translate appends the Responses events of one generation event.
func (rw *responsesWriter) translate(out, raw []byte) []byte {
	data, ok := bytes.CutPrefix(bytes.TrimSpace(raw), []byte("data: "))
	if ok && string(data) == "[DONE]" {
		return out
	}
	var ev generationEvent
	if !ok || json.Unmarshal(data, &ev) != nil {
		return append(out, raw...)
	}
	switch {
	case ev.Error != nil:
		return rw.event(out, "error", func(o *pyjson.Object) {
			o.Set("code", strconv.Itoa(ev.Error.Code))
			o.Set("message", ev.Error.Message)
			o.Set("param", nil)
		})
	case len(ev.Choices) > 0:
		c := ev.Choices[0]
		if c.FinishReason != nil {
			rw.finish = *c.FinishReason
		}
		text := c.Text
		if c.Delta != nil {
			if c.Delta.Role != nil {
				return out // the chat role event carries no token
			}
			text = c.Delta.Content
		}
		delta := ""
		if text != nil {
			delta = *text
		}
		return rw.event(out, "response.output_text.delta", func(o *pyjson.Object) {
			o.Set("item_id", "msg_"+rw.id)
			o.Set("output_index", 0)
			o.Set("content_index", 0)
			o.Set("delta", delta)
		})
	case ev.Usage != nil:
		status := "completed"
		if rw.finish == "length" {
			status = "incomplete"
		}
		resp := rw.response(status, ev.Usage.PromptTokens, ev.Usage.CompletionTokens)
		return rw.event(out, "response.completed", func(o *pyjson.Object) { o.Set("response", resp) })
	}
	return out
}

// response is the response object of the lifecycle events; the usage is
// left out while in < 0.
func (rw *responsesWriter) response(status string, in, out int) *pyjson.Object {
	o := pyjson.NewObject()
	o.Set("id", rw.id)
	o.Set("object", "response")
	o.Set("created_at", rw.created)
	o.Set("model", rw.model)
	o.Set("status", status)
	if in >= 0 {
		u := pyjson.NewObject()
		u.Set("input_tokens", in)
		u.Set("output_tokens", out)
		u.Set("total_tokens", in+out)
		o.Set("usage", u)
	}
	return o
}

// event appends one named event: "event: TYPE", then its data, an object
// with type, the fields fill sets, and sequence_number.
func (rw *responsesWriter) event(out []byte, typ string, fill func(o *pyjson.Object)) []byte {
	o := pyjson.NewObject()
	o.Set("type", typ)
	fill(o)
	o.Set("sequence_number", rw.seq)
	rw.seq++
	out = append(out, "event: "...)
	out = append(out, typ...)
	out = append(out, "\ndata: "...)
	out, _ = pyjson.AppendCompact(out, o) // strings, ints and objects always encode
	return append(out, "\n\n"...)
}
