package sim

import (
	"strconv"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/tokenizer"
)

// vocabulary is the text the simulated model generates, one word per token
// and cycled, so that a transcript reads as prose rather than noise.
const vocabulary = "The simulated model writes one word for every token it " +
	"streams, so the text you read here is made only to be counted: the " +
	"benchmark measures the time to the first token, the gaps between the " +
	"tokens that follow, and how many of them arrive before the end."

// vocabularyTokens returns the vocabulary's tokens and the JSON string
// literal (quotes included) of each, built once per server so that an event
// only copies bytes. With a tokenizer, they are that tokenizer's tokens of
// the vocabulary's words (" simulated" may be " sim" + "ulated"), so the
// streamed text re-encodes to as many tokens as the usage reports, as a
// real model's does; without one, each word (with its leading space, as a
// BPE token has it) is a token.
func vocabularyTokens(tok tokenizer.Tokenizer) (words []string, literals [][]byte) {
	for _, w := range strings.Fields(vocabulary) {
		words = append(words, wordTokens(tok, " "+w)...)
	}
	literals = make([][]byte, len(words))
	for i, w := range words {
		literals[i] = pyjson.AppendCompactString(nil, w)
	}
	return words, literals
}

// wordTokens splits word into the texts of its tokens under tok; a word
// whose tokens do not decode back to it (a tokenizer that adds or drops
// spaces) stays whole.
func wordTokens(tok tokenizer.Tokenizer, word string) []string {
	if tok == nil {
		return []string{word}
	}
	var pieces []string
	for _, id := range tok.Encode(word, false) {
		pieces = append(pieces, tok.Decode([]int{id}))
	}
	if len(pieces) == 0 || strings.Join(pieces, "") != word {
		return []string{word}
	}
	return pieces
}

// eventBuilder renders the SSE events of one streaming response into a
// buffer it reuses, with plain appends instead of encoding/json: at a few
// thousand concurrent streams the per-event cost is what limits the
// simulator, and every byte except the token text and the finish reason is
// known when the request starts.
type eventBuilder struct {
	chat bool
	// head is `data: {"id":...,"object":...,"created":...,"model":...,"choices":[`,
	// the part every event of the response shares.
	head []byte
	buf  []byte
}

// newEventBuilder prepares the events of response id for model. chat
// selects the chat.completion.chunk format over text_completion.
func newEventBuilder(chat bool, id, model string, created int64) *eventBuilder {
	object := "text_completion"
	if chat {
		object = "chat.completion.chunk"
	}
	head := make([]byte, 0, 96+len(id)+len(model))
	head = append(head, `data: {"id":`...)
	head = pyjson.AppendCompactString(head, id)
	head = append(head, `,"object":"`...)
	head = append(head, object...)
	head = append(head, `","created":`...)
	head = strconv.AppendInt(head, created, 10)
	head = append(head, `,"model":`...)
	head = pyjson.AppendCompactString(head, model)
	head = append(head, `,"choices":[`...)
	return &eventBuilder{chat: chat, head: head, buf: make([]byte, 0, len(head)+160)}
}

// role returns the first chat event, which announces the assistant role
// with empty content. The returned slice is valid until the next call.
func (b *eventBuilder) role() []byte {
	b.buf = append(b.buf[:0], b.head...)
	b.buf = append(b.buf, `{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`+"\n\n"...)
	return b.buf
}

// token returns the event of one token. text is a JSON string literal;
// finish is "" for every token but the last, which carries "length" or
// "stop". The returned slice is valid until the next call.
func (b *eventBuilder) token(text []byte, finish string) []byte {
	b.buf = append(b.buf[:0], b.head...)
	if b.chat {
		b.buf = append(b.buf, `{"index":0,"delta":{"content":`...)
		b.buf = append(b.buf, text...)
		b.buf = append(b.buf, `},"logprobs":null,"finish_reason":`...)
	} else {
		b.buf = append(b.buf, `{"index":0,"text":`...)
		b.buf = append(b.buf, text...)
		b.buf = append(b.buf, `,"logprobs":null,"finish_reason":`...)
	}
	switch {
	case finish != "":
		// vLLM passes stop_reason explicitly on the finishing chunk, so
		// exclude_unset keeps it; null means "stopped by EOS or length".
		b.buf = append(b.buf, '"')
		b.buf = append(b.buf, finish...)
		b.buf = append(b.buf, `","stop_reason":null}]}`...)
	case b.chat:
		// Chat token chunks never set stop_reason, so it is absent.
		b.buf = append(b.buf, `null}]}`...)
	default:
		// Completions chunks always set it.
		b.buf = append(b.buf, `null,"stop_reason":null}]}`...)
	}
	b.buf = append(b.buf, "\n\n"...)
	return b.buf
}

// usage returns the trailing usage event: an empty choices list and the
// token counts, in vLLM's UsageInfo field order, then the per-request
// metrics object when m is not nil.
func (b *eventBuilder) usage(prompt, completion int, m *requestMetrics) []byte {
	b.buf = append(b.buf[:0], b.head...)
	b.buf = append(b.buf, `],"usage":{"prompt_tokens":`...)
	b.buf = strconv.AppendInt(b.buf, int64(prompt), 10)
	b.buf = append(b.buf, `,"total_tokens":`...)
	b.buf = strconv.AppendInt(b.buf, int64(prompt+completion), 10)
	b.buf = append(b.buf, `,"completion_tokens":`...)
	b.buf = strconv.AppendInt(b.buf, int64(completion), 10)
	b.buf = append(b.buf, '}')
	if m != nil {
		b.buf = m.appendJSON(append(b.buf, `,"metrics":`...))
	}
	b.buf = append(b.buf, "}\n\n"...)
	return b.buf
}

// requestMetrics are the server-side instants of one request, for vLLM's
// per-request metrics object.
type requestMetrics struct {
	received, first, last time.Time
	tokens                int
	// engine says the instants are the scheduler's timeline (Timing), with
	// queued and scheduled; otherwise first and last are the instants the
	// first and last token events were sent and there is no queue.
	engine            bool
	queued, scheduled time.Time
}

// appendJSON writes vLLM's metrics object (build_per_request_timing_metrics
// in vllm/entrypoints/generate/base/serving.py): queue_time_ms is scheduled
// minus queued, time_to_first_token_ms first token minus scheduled (the
// prefill interval), generation_time_ms the decode interval, mean_itl_ms
// its mean per gap, tokens_per_second all output tokens over the inference
// interval. The fixed-latency engine has no queue (0.0) and is scheduled on
// receipt, and its instants are those of the token events leaving.
func (m *requestMetrics) appendJSON(dst []byte) []byte {
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	start := m.received
	if m.engine {
		start = m.scheduled
	}
	decode := m.last.Sub(m.first)
	itl := 0.0
	if m.tokens > 1 {
		itl = ms(decode) / float64(m.tokens-1)
	}
	tps := 0.0
	if inf := m.last.Sub(start); inf > 0 {
		tps = float64(m.tokens) / inf.Seconds()
	}
	if m.engine {
		dst = append(dst, `{"queue_time_ms":`...)
		dst = strconv.AppendFloat(dst, ms(m.scheduled.Sub(m.queued)), 'f', 3, 64)
	} else {
		dst = append(dst, `{"queue_time_ms":0.0`...)
	}
	dst = append(dst, `,"time_to_first_token_ms":`...)
	dst = strconv.AppendFloat(dst, ms(m.first.Sub(start)), 'f', 3, 64)
	dst = append(dst, `,"generation_time_ms":`...)
	dst = strconv.AppendFloat(dst, ms(decode), 'f', 3, 64)
	dst = append(dst, `,"mean_itl_ms":`...)
	dst = strconv.AppendFloat(dst, itl, 'f', 3, 64)
	dst = append(dst, `,"tokens_per_second":`...)
	dst = strconv.AppendFloat(dst, tps, 'f', 3, 64)
	return append(dst, '}')
}

// doneEvent terminates every stream, including one cut short by an error.
const doneEvent = "data: [DONE]\n\n"
