package backend

import (
	"bytes"
	"fmt"

	"github.com/gobench/gobench/internal/jsonscan"
	"github.com/gobench/gobench/internal/pyjson"
)

// Responses is the OpenAI Responses API (--backend openai-responses,
// POST /v1/responses, streamed). The pinned vLLM has no such backend; it
// follows the later upstream request function, whose behaviour
// vllm/tests/benchmarks/test_responses_request_func.py@34d570f4 pins, and
// takes its name from vLLM's Rust client
// (vllm/rust/src/bench/src/backends/openai_responses.rs@908c96a5).
//
// The stream is a series of named events ("event: response.output_text.delta"
// then "data: {"type":...}"); the JSON "type" decides, so a proxy that
// drops the "event:" lines changes nothing. Which events count:
//
//   - token events: response.output_text.delta (its delta is the generated
//     text) and response.reasoning_text.delta (timed, its text not kept,
//     as openai-chat treats reasoning): the first gives TTFT, each later one
//     an ITL;
//   - terminal events: response.completed and response.incomplete (the
//     output limit was reached: a success); their clock reading ends the
//     request's latency, and their response.usage gives the prompt
//     (input_tokens) and output (output_tokens) lengths;
//   - errors: an "error" event, response.failed, or any event with an
//     "error" field fails the request with the server's message;
//   - everything else (response.created, response.in_progress,
//     response.output_item.added, ..., SSE comments) is ignored.
//
// A stream without a token event fails as the other backends' do; one that
// ends without a terminal event fails too, since its usage and its end are
// missing.
type Responses struct{}

var _ Backend = Responses{}

// The event types Responses acts on.
const (
	responsesTextDelta      = "response.output_text.delta"
	responsesReasoningDelta = "response.reasoning_text.delta"
	responsesCompleted      = "response.completed"
	responsesIncomplete     = "response.incomplete"
	responsesFailed         = "response.failed"
)

// responsesTypes are the event types decoding keeps without a copy
// (jsonscan's OptStringIn): the ones acted on, and the other frequent ones.
var responsesTypes = []string{responsesTextDelta, responsesReasoningDelta, responsesCompleted, responsesIncomplete,
	responsesFailed, "error", "response.created", "response.in_progress", "response.output_item.added",
	"response.output_item.done", "response.content_part.added", "response.content_part.done", "response.output_text.done"}

// NoTerminalEventError fails a Responses stream that ended without
// response.completed or response.incomplete.
const NoTerminalEventError = "the stream ended without a terminal event (response.completed or response.incomplete); this response is marked as failed"

// Body implements Backend: model, input (the prompt), max_output_tokens,
// stream, then ignore_eos and --extra-body, exactly the payload of
// test_responses_request_func.py@34d570f4 (no stream_options: the terminal
// event always carries the usage).
func (Responses) Body(req *Request) []byte {
	var o pyjson.Object
	o.Set("model", modelField(req))
	o.Set("input", req.Prompt)
	o.Set("max_output_tokens", req.OutputLen)
	o.Set("stream", true)
	if req.IgnoreEOS {
		o.Set("ignore_eos", true)
	}
	o.Update(&req.ExtraBody)
	return encodeBody(&o, req)
}

// EndsWithTerminalEvent implements terminalStream: a Responses stream
// must end with a terminal event.
func (Responses) EndsWithTerminalEvent() bool { return true }

// Decode implements Backend.
func (Responses) Decode(eventType string, data []byte, c *Chunk) error {
	*c = noChunk()
	var ev responsesEvent
	if err := ev.scan(data); err != nil {
		if eventType == "error" {
			c.Error = string(bytes.TrimSpace(data))
			return nil
		}
		return fmt.Errorf("decode stream event %.200q: %w", data, err)
	}
	typ := ev.typ
	if typ == "" {
		typ = eventType
	}
	switch {
	case typ == "error" || typ == responsesFailed || len(ev.errRaw) > 0:
		raw := ev.errRaw
		if len(raw) == 0 {
			raw = ev.respErrRaw
		}
		c.Error = responsesErrorText(raw, ev.message, data)
	case typ == responsesTextDelta:
		c.Token, c.Text = true, ev.delta
	case typ == responsesReasoningDelta:
		c.Token = true
	case typ == responsesCompleted || typ == responsesIncomplete:
		c.Terminal = true
		c.Usage = ev.inputTokens >= 0 || ev.outputTokens >= 0
		c.PromptTokens, c.CompletionTokens = ev.inputTokens, ev.outputTokens
	}
	return nil
}

// responsesErrorText is the server's message: error.message when the
// error is an object with one, the error's text otherwise; without an
// error value, the event's "message" (the API's error event), else the
// whole event.
func responsesErrorText(raw []byte, message string, data []byte) string {
	if len(raw) == 0 {
		if message != "" {
			return message
		}
		return string(bytes.TrimSpace(data))
	}
	ev := event{errRaw: raw}
	msg, _ := ev.errorMessage()
	return msg
}

// responsesEvent is the part of a Responses stream event that timing needs.
type responsesEvent struct {
	typ, delta, message       string
	errRaw, respErrRaw        []byte // raw non-null "error" and "response.error"
	inputTokens, outputTokens int    // response.usage; -1 when absent
}

// scan decodes data with the strict scanner the other backends use.
func (ev *responsesEvent) scan(data []byte) error {
	ev.inputTokens, ev.outputTokens = -1, -1
	s := jsonscan.New(data)
	err := s.Object(func(key []byte) error {
		switch string(key) {
		case "type":
			v, _, err := s.OptStringIn(responsesTypes)
			ev.typ = v
			return err
		case "delta":
			if c := s.Peek(); c != '"' && c != 'n' {
				return s.Skip() // a function call's delta object, not text
			}
			v, _, err := s.OptString()
			ev.delta = v
			return err
		case "error":
			raw, err := rawNonNull(s)
			ev.errRaw = raw
			return err
		case "message":
			if s.Peek() != '"' {
				return s.Skip()
			}
			v, _, err := s.OptString()
			ev.message = v
			return err
		case "response":
			return ev.scanResponse(s)
		}
		return s.Skip()
	})
	if err != nil {
		return err
	}
	return s.End()
}

// scanResponse reads the "response" object: its usage and its error.
func (ev *responsesEvent) scanResponse(s *jsonscan.Scanner) error {
	if s.Peek() == 'n' {
		return s.Literal("null")
	}
	return s.Object(func(k []byte) error {
		switch string(k) {
		case "error":
			raw, err := rawNonNull(s)
			ev.respErrRaw = raw
			return err
		case "usage":
			if s.Peek() == 'n' {
				return s.Literal("null")
			}
			return s.Object(func(k2 []byte) error {
				var target *int
				switch string(k2) {
				case "input_tokens":
					target = &ev.inputTokens
				case "output_tokens":
					target = &ev.outputTokens
				default:
					return s.Skip()
				}
				v, ok, err := s.OptInt()
				if ok {
					*target = v
				}
				return err
			})
		}
		return s.Skip()
	})
}

// rawNonNull scans one value and returns its bytes, or nil for null.
func rawNonNull(s *jsonscan.Scanner) ([]byte, error) {
	if s.Peek() == 'n' {
		return nil, s.Literal("null")
	}
	return s.SkipRaw()
}
