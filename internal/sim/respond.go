package sim

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/pyjson"
)

// errReset ends a request whose connection the reset fault closed.
var errReset = errors.New("connection reset by the injected fault")

// errorEventFault ends a request that the error-event fault failed.
var errorEventFault = errors.New(errorEventMessage)

// sender writes events to a streaming response: each is flushed on its own
// so the client timestamps it when it is due, not when a buffer fills; with
// the slow-drip fault each goes out in small pieces.
type sender struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	x     *exchange
	drip  bool
	dripN int
	dripD time.Duration
}

func (s *sender) send(event []byte) error {
	if !s.drip {
		if _, err := s.w.Write(event); err != nil {
			return err
		}
		return s.rc.Flush()
	}
	for len(event) > 0 {
		n := min(s.dripN, len(event))
		if _, err := s.w.Write(event[:n]); err != nil {
			return err
		}
		if err := s.rc.Flush(); err != nil {
			return err
		}
		event = event[n:]
		if len(event) > 0 {
			if err := sleepCtx(s.x.ctx, s.dripD); err != nil {
				return err
			}
		}
	}
	return nil
}

// stream writes a streaming response. Outputs become events as vLLM's
// --stream-interval has it: the first output at once, then an event
// whenever StreamInterval tokens have accumulated, and the last at the end;
// an output of several tokens (speculative decoding) is one event.
func (x *exchange) stream(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	// Send the headers now, as uvicorn does, so the client learns the
	// status before the first token.
	if err := rc.Flush(); err != nil {
		return err
	}
	f := x.s.cfg.Faults
	sd := &sender{w: w, rc: rc, x: x, drip: x.faults.has(FaultSlowDrip), dripN: f.DripBytes, dripD: f.DripEvery}
	b := newEventBuilder(x.j.chat, x.out.id, x.s.cfg.Model, x.out.created)
	if err := x.streamTokens(w, sd, b); err != nil {
		return err
	}
	return x.streamEnd(sd, b)
}

// streamTokens sends the token events (the chat role event with the
// first), and the faults due halfway through the output.
func (x *exchange) streamTokens(w http.ResponseWriter, sd *sender, b *eventBuilder) error {
	half := max(1, (x.out.n+1)/2)
	struck, events, pending := false, 0, 0
	var text []byte
	for x.tokens < x.out.n {
		o, err := x.next()
		if err != nil {
			if x.ctx.Err() == nil {
				// The engine failed the request: vLLM reports a generator
				// exception as an error event, then ends the stream.
				sendStreamError(sd.send, err.Error())
			}
			return err
		}
		pending += o.Tokens
		fin := x.tokens >= x.out.n
		if !fin && events > 0 && pending < x.s.cfg.StreamInterval {
			continue
		}
		if events == 0 && x.j.chat {
			// The role event goes out with the first token, not on receipt:
			// vLLM sends it on the first engine output (see the package doc).
			// Stamp the send instant before writing, so that a client can
			// never see the event earlier than the truth says.
			at := time.Now()
			if err := sd.send(b.role()); err != nil {
				return err
			}
			x.sent(at, o.At, 0)
		}
		reason := ""
		if fin {
			reason = x.out.finish
		}
		text = x.s.tokensText(text[:0], x.tokens-pending, x.tokens, x.out)
		sentAt := time.Now() // before the write, as above
		if err := sd.send(b.token(text, reason)); err != nil {
			return err
		}
		x.sent(sentAt, o.At, pending)
		events++
		pending = 0
		if !struck && x.tokens >= half && x.faults != 0 {
			struck = true
			if err := x.strike(w, sd); err != nil {
				return err
			}
		}
	}
	return nil
}

// streamEnd sends the usage event, when the request asked for it, and
// [DONE], unless a fault leaves either out.
func (x *exchange) streamEnd(sd *sender, b *eventBuilder) error {
	if x.j.includeUsage && !x.faults.has(FaultNoUsage) {
		var m *requestMetrics
		if x.s.cfg.EnablePerRequestMetrics {
			m = x.metricsObject()
		}
		completion := x.out.n
		if x.faults.has(FaultWrongUsage) {
			completion *= 2
		}
		if err := sd.send(b.usage(x.j.promptTokens, completion, m)); err != nil {
			return err
		}
		if x.tr != nil {
			x.tr.usage = time.Now()
		}
	}
	if x.faults.has(FaultNoDone) {
		return nil
	}
	err := sd.send([]byte(doneEvent))
	if x.tr != nil && err == nil {
		x.tr.done = time.Now()
	}
	return err
}

// sent notes a token event that left at sent carrying tokens of an output
// stamped at (0 tokens: the chat role event).
func (x *exchange) sent(sent, at time.Time, tokens int) {
	if x.sent1st.IsZero() {
		x.sent1st = sent
	}
	x.sentLast = sent
	if x.tr != nil {
		x.tr.event(sent, at, tokens)
	}
}

// strike applies the mid-stream faults after the event that brought the
// output to half its tokens. A non-nil error ends the stream.
func (x *exchange) strike(w http.ResponseWriter, sd *sender) error {
	switch {
	case x.faults.has(FaultReset):
		resetConn(w)
		return errReset
	case x.faults.has(FaultErrorEvent):
		sendStreamError(sd.send, errorEventMessage)
		return errorEventFault
	}
	if x.faults.has(FaultMalformed) {
		// An event cut short inside its JSON, as a broken proxy or a
		// crashing writer leaves it.
		ev := `data: {"id":"` + x.out.id + `","object":"text_completion","choices":[{"index":0,"text":" broken` + "\n\n"
		if err := sd.send([]byte(ev)); err != nil {
			return err
		}
	}
	if x.faults.has(FaultStall) {
		return sleepCtx(x.ctx, x.s.cfg.Faults.StallFor)
	}
	return nil
}

// resetConn closes the client's connection with a TCP RST (SO_LINGER 0),
// mid-response, as a crashed server or a killed proxy does.
func resetConn(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// sendStreamError writes vLLM's in-stream error event and the [DONE] that
// follows it.
func sendStreamError(send func([]byte) error, msg string) {
	buf := []byte(`data: {"error":{"message":`)
	buf = pyjson.AppendCompactString(buf, msg)
	buf = append(buf, `,"type":"InternalServerError","param":null,"code":500}}`+"\n\n"...)
	if send(buf) == nil {
		_ = send([]byte(doneEvent))
	}
}

// completionChoice and the other response types below are vLLM's
// non-streaming response models, reduced to the fields a vLLM server always
// writes for a plain text request.
type completionChoice struct {
	Index          int     `json:"index"`
	Text           string  `json:"text"`
	Logprobs       *string `json:"logprobs"`
	FinishReason   string  `json:"finish_reason"`
	StopReason     *string `json:"stop_reason"`
	PromptLogprobs *string `json:"prompt_logprobs"`
}

type chatResponseMessage struct {
	Role             string   `json:"role"`
	ReasoningContent *string  `json:"reasoning_content"`
	Content          string   `json:"content"`
	ToolCalls        []string `json:"tool_calls"`
}

type chatChoice struct {
	Index        int                 `json:"index"`
	Message      chatResponseMessage `json:"message"`
	Logprobs     *string             `json:"logprobs"`
	FinishReason string              `json:"finish_reason"`
	StopReason   *string             `json:"stop_reason"`
}

type usageInfo struct {
	PromptTokens        int     `json:"prompt_tokens"`
	TotalTokens         int     `json:"total_tokens"`
	CompletionTokens    int     `json:"completion_tokens"`
	PromptTokensDetails *string `json:"prompt_tokens_details"`
}

// completionResponse is vLLM's CompletionResponse / ChatCompletionResponse.
type completionResponse struct {
	ID      string     `json:"id"`
	Object  string     `json:"object"`
	Created int64      `json:"created"`
	Model   string     `json:"model"`
	Choices any        `json:"choices"`
	Usage   *usageInfo `json:"usage,omitempty"`
}

// complete waits for every token, then writes the whole response with
// usage. The faults act on the whole body: a reset before it, a 500 for the
// error event, a cut-short body for malformed JSON, a pause for a stall.
func (x *exchange) complete(w http.ResponseWriter) error {
	var text strings.Builder
	for x.tokens < x.out.n {
		from := x.tokens
		o, err := x.next()
		if err != nil {
			if x.ctx.Err() == nil {
				writeError(w, &apiError{status: http.StatusInternalServerError, typ: "InternalServerError", msg: err.Error()})
			}
			return err
		}
		for k := from; k < from+o.Tokens; k++ {
			if !x.out.isEOS(k) {
				text.WriteString(x.s.words[k%len(x.s.words)])
			}
		}
	}
	switch {
	case x.faults.has(FaultReset):
		resetConn(w)
		return errReset
	case x.faults.has(FaultErrorEvent):
		x.status = http.StatusInternalServerError
		writeError(w, &apiError{status: http.StatusInternalServerError, typ: "InternalServerError", msg: errorEventMessage})
		return errorEventFault
	case x.faults.has(FaultStall):
		if err := sleepCtx(x.ctx, x.s.cfg.Faults.StallFor); err != nil {
			return err
		}
	}
	completion := x.out.n
	if x.faults.has(FaultWrongUsage) {
		completion *= 2
	}
	resp := completionResponse{ID: x.out.id, Object: "text_completion", Created: x.out.created, Model: x.s.cfg.Model}
	if !x.faults.has(FaultNoUsage) {
		resp.Usage = &usageInfo{PromptTokens: x.j.promptTokens, TotalTokens: x.j.promptTokens + completion, CompletionTokens: completion}
	}
	if x.j.chat {
		resp.Object = "chat.completion"
		resp.Choices = []chatChoice{{
			Message:      chatResponseMessage{Role: "assistant", Content: text.String(), ToolCalls: []string{}},
			FinishReason: x.out.finish,
		}}
	} else {
		resp.Choices = []completionChoice{{Text: text.String(), FinishReason: x.out.finish}}
	}
	body, err := encodeJSON(resp)
	if err != nil {
		return err
	}
	if x.faults.has(FaultMalformed) {
		body = body[:len(body)/2]
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	f := x.s.cfg.Faults
	sd := &sender{w: w, rc: rc, x: x, drip: x.faults.has(FaultSlowDrip), dripN: f.DripBytes, dripD: f.DripEvery}
	if err := sd.send(body); err != nil {
		return err
	}
	now := time.Now()
	x.sent(now, x.lastAt, x.tokens)
	return nil
}
