package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/gobench/gobench/internal/pyjson"
)

// responsesRequest is the part of the OpenAI Responses API request
// (vLLM's ResponsesRequest) the simulator acts on.
type responsesRequest struct {
	Model           *string         `json:"model"`
	Input           json.RawMessage `json:"input"`
	MaxOutputTokens *int            `json:"max_output_tokens"`
	Stream          *bool           `json:"stream"`
	IgnoreEOS       *bool           `json:"ignore_eos"`
}

// responsesItem is one message of a list-valued "input": its content is a
// string or a list of input_text parts.
type responsesItem struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// handleResponses answers POST /v1/responses, streamed: the request becomes
// the completions request (a string input) or chat request (a list of
// messages) it asks for, which the generation path serves with its engine,
// faults, /metrics and record, and responsesWriter renames its events into
// the Responses API's named events. A non-streamed request is refused:
// benchmarks stream, and the simulator's answer would have to be another
// response model.
func (s *Server) handleResponses(w http.ResponseWriter, r *http.Request) {
	var req responsesRequest
	if e := readBody(w, r, &req); e != nil {
		writeError(w, e)
		return
	}
	if req.Stream == nil || !*req.Stream {
		writeError(w, badParam("stream", "the simulator's /v1/responses streams only: send \"stream\": true."))
		return
	}
	body, chat, e := responsesAsGeneration(&req)
	if e != nil {
		writeError(w, e)
		return
	}
	r2 := r.Clone(r.Context())
	r2.Body, r2.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	id := randomID()
	if v, ok := r.Header["X-Request-Id"]; ok && len(v) > 0 {
		id = v[0]
	}
	model := s.cfg.Model
	if req.Model != nil && *req.Model != "" {
		model = *req.Model
	}
	rw := &responsesWriter{w: w, id: "resp_" + id, model: model, created: time.Now().Unix()}
	s.serveGeneration(rw, r2, chat)
}

// responsesAsGeneration is the completions (chat false) or chat body that
// asks for what req asks for, always with the usage event, which becomes
// the terminal event's usage.
func responsesAsGeneration(req *responsesRequest) (body []byte, chat bool, e *apiError) {
	o := pyjson.NewObject()
	if req.Model != nil {
		o.Set("model", *req.Model)
	}
	var text string
	switch err := json.Unmarshal(req.Input, &text); {
	case isNull(req.Input):
		return nil, false, validationError("missing", "body.input", "Field required")
	case err == nil:
		o.Set("prompt", text)
	default:
		msgs, e := responsesMessages(req.Input)
		if e != nil {
			return nil, false, e
		}
		o.Set("messages", msgs)
		chat = true
	}
	if req.MaxOutputTokens != nil {
		o.Set("max_tokens", *req.MaxOutputTokens)
	}
	o.Set("stream", true)
	usage := pyjson.NewObject()
	usage.Set("include_usage", true)
	o.Set("stream_options", usage)
	if req.IgnoreEOS != nil {
		o.Set("ignore_eos", *req.IgnoreEOS)
	}
	b, err := pyjson.AppendCompact(nil, o)
	if err != nil {
		return nil, false, badRequest(fmt.Sprintf("could not translate the request: %v", err))
	}
	return b, chat, nil
}

// responsesMessages turns a list-valued input into chat messages: string
// contents stay, input_text parts become text parts.
func responsesMessages(raw json.RawMessage) ([]*pyjson.Object, *apiError) {
	var items []responsesItem
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, validationError("string_type", "body.input", "Input should be a valid string or a list of input items")
	}
	msgs := make([]*pyjson.Object, 0, len(items))
	for _, it := range items {
		m := pyjson.NewObject()
		m.Set("role", it.Role)
		var text string
		if err := json.Unmarshal(it.Content, &text); err == nil {
			m.Set("content", text)
			msgs = append(msgs, m)
			continue
		}
		var parts []contentPart
		if err := json.Unmarshal(it.Content, &parts); err != nil {
			return nil, validationError("string_type", "body.input", "Input should be a valid string or a list of content parts")
		}
		converted := make([]*pyjson.Object, 0, len(parts))
		for _, p := range parts {
			if p.Type == "input_text" || p.Type == "text" {
				c := pyjson.NewObject()
				c.Set("type", "text")
				c.Set("text", p.Text)
				converted = append(converted, c)
			}
		}
		m.Set("content", converted)
		msgs = append(msgs, m)
	}
	return msgs, nil
}
