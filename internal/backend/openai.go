package backend

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/gobench/gobench/internal/jsonscan"
	"github.com/gobench/gobench/internal/pyjson"
)

// Completions is the OpenAI completions API (--backend openai or vllm).
type Completions struct{}

// Chat is the OpenAI chat completions API (--backend openai-chat).
type Chat struct{}

var (
	_ Backend = Completions{}
	_ Backend = Chat{}
)

// Body implements Backend: vLLM's payload, in its key order: model, prompt,
// repetition_penalty 1.0, max_tokens, logprobs, stream, stream_options, then
// ignore_eos and --extra-body. The prompt is the text, the list of a
// batched prompt (which vLLM passes through), or with --prompt-token-ids
// the list of token ids, which the completions API takes instead of text
// (vLLM's Rust client), so that the server does not tokenize.
func (Completions) Body(req *Request) []byte {
	var o pyjson.Object
	o.Set("model", modelField(req))
	if req.PromptTokenIDs != nil {
		// A prompt of token ids (--prompt-token-ids, timed_trace): vLLM
		// sends the list as the prompt.
		o.Set("prompt", req.PromptTokenIDs)
	} else {
		// A list prompt (batched, or vLLM's list[dict], which the
		// completions API refuses) is sent as it is; media are not sent
		// to completions.
		o.Set("prompt", promptValue(req))
	}
	o.Set("repetition_penalty", 1.0)
	o.Set("max_tokens", req.OutputLen)
	if req.Logprobs != nil {
		o.Set("logprobs", *req.Logprobs)
	} else {
		o.Set("logprobs", nil)
	}
	return finishBody(&o, req)
}

// Decode implements Backend.
func (Completions) Decode(eventType string, data []byte, c *Chunk) error {
	return decode(eventType, data, c, false)
}

// Body implements Backend: model, messages (vLLM's _get_chat_messages:
// see ChatMessages), max_completion_tokens, stream, stream_options, then
// ignore_eos and --extra-body.
func (Chat) Body(req *Request) []byte {
	var o pyjson.Object
	o.Set("model", modelField(req))
	o.Set("messages", append(historyMessages(req.History), chatMessages(req)...))
	o.Set("max_completion_tokens", req.OutputLen)
	return finishBody(&o, req)
}

// Decode implements Backend.
func (Chat) Decode(eventType string, data []byte, c *Chunk) error {
	return decode(eventType, data, c, true)
}

// ChatMessages is vLLM's _get_chat_messages
// (vllm/benchmarks/lib/endpoint_request_func.py@02cfb534): a prompt of
// chat messages (every item with a string "role" and a string or list
// "content") is sent as it is; otherwise one user message whose content
// is the prompt's content parts (a list of dicts that all have a string
// "type") or the array form [{"type":"text","text":prompt}], with the
// request's media parts after it (vLLM's mm_position "last"), or before it
// when mmFirst (vlm2vec's "first").
func ChatMessages(req *Request, mmFirst bool) []*pyjson.Object {
	return promptMessages(promptValue(req), req.MultiModal, mmFirst)
}

// promptMessages is _get_chat_messages for any prompt value: the pooling
// backends pass a prompt they changed first (CLIP blanks it, vlm2vec
// rewrites it).
func promptMessages(prompt any, media []*pyjson.Object, mmFirst bool) []*pyjson.Object {
	parts, _ := prompt.([]*pyjson.Object)
	if isChatMessages(parts) {
		return parts
	}
	var content []*pyjson.Object
	if len(parts) > 0 && allHaveString(parts, "type") {
		content = parts
	} else {
		part := pyjson.NewObject()
		part.Set("type", "text")
		part.Set("text", prompt)
		content = []*pyjson.Object{part}
	}
	if len(media) > 0 {
		if mmFirst {
			content = append(slices.Clone(media), content...)
		} else {
			content = append(slices.Clone(content), media...)
		}
	}
	message := pyjson.NewObject()
	message.Set("role", "user")
	message.Set("content", content)
	return []*pyjson.Object{message}
}

// chatMessages is ChatMessages with the media last, as openai-chat and
// openai-embeddings-chat send them.
func chatMessages(req *Request) []*pyjson.Object { return ChatMessages(req, false) }

// isChatMessages is vLLM's _is_chat_messages.
func isChatMessages(parts []*pyjson.Object) bool {
	if len(parts) == 0 || !allHaveString(parts, "role") {
		return false
	}
	for _, p := range parts {
		switch c, _ := p.Get("content"); c.(type) {
		case string, []any, []*pyjson.Object:
		default:
			return false
		}
	}
	return true
}

// allHaveString reports whether every part has a string value at key.
func allHaveString(parts []*pyjson.Object, key string) bool {
	for _, p := range parts {
		if v, _ := p.Get(key); !isString(v) {
			return false
		}
	}
	return true
}

func isString(v any) bool {
	_, ok := v.(string)
	return ok
}

func modelField(req *Request) string {
	if req.ModelName != "" {
		return req.ModelName
	}
	return req.Model
}

// finishBody adds the streaming fields, ignore_eos and --extra-body
// (vLLM's _update_payload_common) and encodes the payload compactly (see
// package pyjson: the same values as vLLM's json.dumps, fewer bytes).
func finishBody(o *pyjson.Object, req *Request) []byte {
	o.Set("stream", true)
	usage := pyjson.NewObject()
	usage.Set("include_usage", true)
	o.Set("stream_options", usage)
	if req.IgnoreEOS {
		o.Set("ignore_eos", true)
	}
	o.Update(&req.ExtraBody)
	return encodeBody(o, req)
}

// encodeBody encodes a payload compactly (see package pyjson: the same
// values as vLLM's json.dumps, fewer bytes).
func encodeBody(o *pyjson.Object, req *Request) []byte {
	b, err := pyjson.AppendCompact(make([]byte, 0, len(req.Prompt)+256), o)
	if err != nil {
		// Only strings, ints, bools, objects and decoded --extra-body
		// values reach here; they always encode.
		panic(fmt.Sprintf("backend: encode body: %v", err))
	}
	return b
}

// decode fills c from one event. The rules are vLLM's: a non-empty
// "choices" makes a token event (its text may be empty or missing);
// otherwise a non-empty "usage" gives the token counts. An "error" field, an
// {"object":"error"} event or an SSE "event: error" fails the request with
// the server's message (a later upstream fix; the baseline ignored them).
func decode(eventType string, data []byte, c *Chunk, chat bool) error {
	*c = noChunk()
	var ev event
	if err := ev.scan(data, chat); err != nil {
		if eventType == "error" {
			c.Error = string(bytes.TrimSpace(data))
			return nil
		}
		return fmt.Errorf("decode stream event %.200q: %w", data, err)
	}
	if msg, ok := ev.errorMessage(); ok || eventType == "error" {
		if !ok {
			msg = string(bytes.TrimSpace(data))
		}
		c.Error = msg
		return nil
	}
	c.ServerQueueMS, c.ServerTTFTMS = ev.queueMS, ev.ttftMS
	c.ServerPromptMS, c.ServerDecodeMS = ev.promptMS, ev.decodeMS
	if ev.choices > 0 {
		c.Token = true
		c.Text = ev.text
		if !isEmptyObject(ev.usage) {
			// Non-streamed answers carry usage next to choices.
			return decodeUsage(ev.usage, c)
		}
		return nil
	}
	if !isEmptyObject(ev.usage) {
		c.Usage = true
		return decodeUsage(ev.usage, c)
	}
	return nil
}

// objectNames are the values of a chunk's "object" that decoding keeps
// without a copy (jsonscan's OptStringIn): one is in every event.
var objectNames = []string{"text_completion", "chat.completion.chunk", "chat.completion", "error"}

// event is the part of an OpenAI stream chunk that timing needs.
type event struct {
	choices         int    // length of "choices"
	text            string // choices[0] text, delta.content or message.content
	usage, errRaw   []byte // raw values
	object, message string
	queueMS, ttftMS float64
	// promptMS and decodeMS are llama.cpp's timings (-1: absent).
	promptMS, decodeMS float64
}

// scan decodes data. Repeated keys behave as in encoding/json: the last
// value wins, and nested objects merge.
func (ev *event) scan(data []byte, chat bool) error {
	ev.queueMS, ev.ttftMS, ev.promptMS, ev.decodeMS = -1, -1, -1, -1
	s := jsonscan.New(data)
	err := s.Object(func(key []byte) error {
		switch string(key) {
		case "choices":
			return ev.scanChoices(s, chat)
		case "usage":
			var err error
			ev.usage, err = s.SkipRaw()
			return err
		case "error":
			var err error
			ev.errRaw, err = s.SkipRaw()
			return err
		case "metrics":
			return scanTimes(s, "queue_time_ms", &ev.queueMS, "time_to_first_token_ms", &ev.ttftMS)
		case "timings":
			return scanTimes(s, "prompt_ms", &ev.promptMS, "predicted_ms", &ev.decodeMS)
		case "object":
			v, ok, err := s.OptStringIn(objectNames)
			if ok {
				ev.object = v
			}
			return err
		case "message":
			v, ok, err := s.OptString()
			if ok {
				ev.message = v
			}
			return err
		}
		return s.Skip()
	})
	if err != nil {
		return err
	}
	return s.End()
}

// scanTimes reads an object of server times (vLLM's per-request
// "metrics", llama.cpp's "timings"), or null, keeping the numbers of keys
// k1 and k2 in d1 and d2.
func scanTimes(s *jsonscan.Scanner, k1 string, d1 *float64, k2 string, d2 *float64) error {
	if s.Peek() == 'n' {
		return s.Literal("null")
	}
	return s.Object(func(k []byte) error {
		dst := d1
		switch string(k) {
		case k1:
		case k2:
			dst = d2
		default:
			return s.Skip()
		}
		v, ok, err := s.OptFloat()
		if ok {
			*dst = v
		}
		return err
	})
}

func (ev *event) scanChoices(s *jsonscan.Scanner, chat bool) error {
	ev.choices, ev.text = 0, ""
	if s.Peek() == 'n' {
		return s.Literal("null")
	}
	return s.Array(func(i int) error {
		ev.choices++
		if s.Peek() == 'n' {
			return s.Literal("null")
		}
		// Every element is type-checked, as encoding/json would; only the
		// first one's text is kept.
		var fromDelta bool
		set := func(v string, delta bool) {
			// delta.content wins over message.content, as in the
			// reference decoder.
			if i == 0 && (delta || !fromDelta) {
				ev.text, fromDelta = v, delta
			}
		}
		return s.Object(func(k []byte) error {
			switch {
			case string(k) == "text":
				v, _, err := s.OptString()
				if !chat {
					set(v, false)
				}
				return err
			case string(k) == "delta" || string(k) == "message":
				delta := string(k) == "delta"
				if s.Peek() == 'n' {
					return s.Literal("null")
				}
				return s.Object(func(k2 []byte) error {
					if string(k2) != "content" {
						return s.Skip()
					}
					v, ok, err := s.OptString()
					if chat && ok {
						set(v, delta)
					}
					return err
				})
			}
			return s.Skip()
		})
	})
}

// errorMessage extracts the server's error message, if the event is an
// error.
func (ev *event) errorMessage() (string, bool) {
	if ev.object == "error" {
		return ev.message, true
	}
	raw := bytes.TrimSpace(ev.errRaw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	s := jsonscan.New(raw)
	switch raw[0] {
	case '"':
		if v, ok, err := s.OptString(); err == nil && ok {
			return v, true
		}
	case '{':
		var msg string
		_ = s.Object(func(k []byte) error {
			if string(k) == "message" {
				v, _, err := s.OptString()
				if err == nil && v != "" {
					msg = v
				}
				return err
			}
			return s.Skip()
		})
		if msg != "" {
			return msg, true
		}
	}
	return string(raw), true
}

func decodeUsage(raw []byte, c *Chunk) error {
	s := jsonscan.New(raw)
	err := s.Object(func(k []byte) error {
		var v int
		var ok bool
		var err error
		switch string(k) {
		case "completion_tokens":
			if v, ok, err = s.OptInt(); ok {
				c.CompletionTokens = v
			}
		case "prompt_tokens":
			if v, ok, err = s.OptInt(); ok {
				c.PromptTokens = v
			}
		case "prompt_tokens_details":
			if s.Peek() == 'n' {
				return s.Literal("null")
			}
			return s.Object(func(k2 []byte) error {
				if string(k2) != "cached_tokens" {
					return s.Skip()
				}
				v, ok, err := s.OptInt()
				if ok {
					c.CachedTokens = v
				}
				return err
			})
		default:
			err = s.Skip()
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("decode usage %.200q: %w", raw, err)
	}
	return nil
}

// isEmptyObject reports whether raw is absent, null or {} (falsy in Python).
func isEmptyObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return true
	}
	if t[0] == '{' {
		return len(bytes.TrimSpace(t[1:len(t)-1])) == 0
	}
	return false
}
