package sim

import (
	"context"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"
)

func (s *Server) handleCompletions(w http.ResponseWriter, r *http.Request) {
	s.serveGeneration(w, r, false)
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	s.serveGeneration(w, r, true)
}

// serveGeneration handles a completions or chat request from receipt to the
// last byte.
func (s *Server) serveGeneration(w http.ResponseWriter, r *http.Request, chat bool) {
	// The timeline starts before the body is read, as a server's TTFT
	// counts from the request's arrival.
	received := time.Now()
	j, apiErr := s.parseJob(w, r, chat)
	if apiErr != nil {
		s.logf("%s %s %d %s: %s", r.Method, r.URL.Path, apiErr.status, apiErr.typ, firstLine(apiErr.msg))
		writeError(w, apiErr)
		return
	}

	// vLLM takes the request id from the X-Request-Id header when present
	// (even if empty) and prefixes it per endpoint.
	baseID := randomID()
	if v, ok := r.Header["X-Request-Id"]; ok && len(v) > 0 {
		baseID = v[0]
	}
	id := "cmpl-" + baseID
	if chat {
		id = "chatcmpl-" + baseID
	}
	out := output{id: id, created: received.Unix(), received: received}
	out.n, out.finish = s.outputLength(baseID, j)

	ctx := r.Context()
	st, err := s.cfg.Engine.Start(ctx, Request{ID: baseID, Received: received, PromptTokens: j.promptTokens, OutputTokens: out.n})
	if err != nil {
		e := &apiError{status: http.StatusInternalServerError, typ: "InternalServerError", msg: err.Error()}
		s.logf("%s %s %d id=%s: engine rejected the request: %v", r.Method, r.URL.Path, e.status, id, err)
		writeError(w, e)
		return
	}
	defer st.Close()
	s.active.Add(1)
	defer s.active.Add(-1)

	var sent int
	if j.stream {
		sent, err = s.stream(ctx, w, st, j, out)
	} else {
		sent, err = s.complete(ctx, w, st, j, out)
	}
	status, outcome := http.StatusOK, "finish="+out.finish
	switch {
	case err != nil && ctx.Err() != nil:
		outcome = "client disconnected"
	case err != nil && !j.stream:
		status, outcome = http.StatusInternalServerError, "engine error: "+err.Error()
	case err != nil:
		outcome = "engine error: " + err.Error()
	}
	s.logf("%s %s %d id=%s stream=%t prompt_tokens=%d completion_tokens=%d/%d %s dur=%v",
		r.Method, r.URL.Path, status, id, j.stream, j.promptTokens, sent, out.n, outcome, time.Since(received).Round(time.Microsecond))
}

// output is what the server decided about a response before its first
// token.
type output struct {
	received time.Time // when the handler started
	id       string    // response id, with its cmpl-/chatcmpl- prefix
	created  int64     // Unix seconds, the same in every event
	n        int       // completion tokens, EOS included
	finish   string    // finish_reason of the last token: "length" or "stop"
}

// outputLength decides how many tokens a request produces and why it stops.
// With ignore_eos it runs to max_tokens ("length"). Otherwise an EOS is
// drawn uniformly from [max(1, min_tokens), max_tokens], seeded by the
// server seed and the request id so that a replayed request (same
// x-request-id) stops at the same place; drawing max_tokens itself means
// the length limit came first.
func (s *Server) outputLength(baseID string, j job) (int, string) {
	if j.ignoreEOS {
		return j.maxTokens, "length"
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(baseID))
	rng := rand.New(rand.NewPCG(uint64(s.cfg.Seed), h.Sum64()))
	lo := max(1, j.minTokens)
	n := lo + rng.IntN(j.maxTokens-lo+1)
	if n == j.maxTokens {
		return n, "length"
	}
	return n, "stop"
}

// isEOS reports whether token k of out is its end-of-sequence token. A
// response that stops on EOS ends with that special token, which
// detokenizes to "" (vLLM skips special tokens) but still counts.
func (out output) isEOS(k int) bool {
	return k == out.n-1 && out.finish == "stop"
}

// tokenText is the JSON literal of token k of out.
func (s *Server) tokenText(k int, out output) []byte {
	if out.isEOS(k) {
		return []byte(`""`)
	}
	return s.texts[k%len(s.texts)]
}

// stream writes a streaming response and returns how many tokens it sent.
// Every event is flushed on its own so the client timestamps each one when
// it is due, not when a buffer fills.
func (s *Server) stream(ctx context.Context, w http.ResponseWriter, st Stream, j job, out output) (int, error) {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	// Send the headers now, as uvicorn does, so the client learns the
	// status before the first token.
	if err := rc.Flush(); err != nil {
		return 0, err
	}
	send := func(event []byte) error {
		if _, err := w.Write(event); err != nil {
			return err
		}
		return rc.Flush()
	}

	b := newEventBuilder(j.chat, out.id, s.cfg.Model, out.created)
	var m *requestMetrics
	if s.cfg.EnablePerRequestMetrics {
		m = &requestMetrics{received: out.received}
	}
	for k := range out.n {
		if err := st.Next(ctx); err != nil {
			if ctx.Err() == nil {
				// The engine failed the request: vLLM reports a generator
				// exception as an error event, then ends the stream.
				sendStreamError(send, err)
			}
			return k, err
		}
		if k == 0 && j.chat {
			// The role event goes out with the first token, not on receipt:
			// vLLM sends it on the first engine output (see the package doc).
			if err := send(b.role()); err != nil {
				return k, err
			}
			if m != nil {
				// The role event is the client's first token event.
				m.first = time.Now()
			}
		}
		fin := ""
		if k == out.n-1 {
			fin = out.finish
		}
		if err := send(b.token(s.tokenText(k, out), fin)); err != nil {
			return k, err
		}
		if m != nil {
			// The instant the token event left, as the ground truth a
			// client's TTFT is compared with.
			now := time.Now()
			if m.first.IsZero() {
				m.first = now
			}
			m.last, m.tokens = now, k+1
		}
	}
	if j.includeUsage {
		if err := send(b.usage(j.promptTokens, out.n, m)); err != nil {
			return out.n, err
		}
	}
	return out.n, send([]byte(doneEvent))
}

// sendStreamError writes vLLM's in-stream error event and the [DONE] that
// follows it.
func sendStreamError(send func([]byte) error, err error) {
	buf := []byte(`data: {"error":{"message":`)
	buf = appendJSONString(buf, err.Error())
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

// complete waits for every token, then writes the whole response with
// usage. It returns how many tokens were generated.
func (s *Server) complete(ctx context.Context, w http.ResponseWriter, st Stream, j job, out output) (int, error) {
	var text strings.Builder
	for k := range out.n {
		if err := st.Next(ctx); err != nil {
			if ctx.Err() == nil {
				writeError(w, &apiError{status: http.StatusInternalServerError, typ: "InternalServerError", msg: err.Error()})
			}
			return k, err
		}
		if !out.isEOS(k) {
			text.WriteString(s.words[k%len(s.words)])
		}
	}
	resp := struct {
		ID      string    `json:"id"`
		Object  string    `json:"object"`
		Created int64     `json:"created"`
		Model   string    `json:"model"`
		Choices any       `json:"choices"`
		Usage   usageInfo `json:"usage"`
	}{ID: out.id, Object: "text_completion", Created: out.created, Model: s.cfg.Model,
		Usage: usageInfo{PromptTokens: j.promptTokens, TotalTokens: j.promptTokens + out.n, CompletionTokens: out.n}}
	if j.chat {
		resp.Object = "chat.completion"
		resp.Choices = []chatChoice{{
			Message:      chatResponseMessage{Role: "assistant", Content: text.String(), ToolCalls: []string{}},
			FinishReason: out.finish,
		}}
	} else {
		resp.Choices = []completionChoice{{Text: text.String(), FinishReason: out.finish}}
	}
	writeJSON(w, http.StatusOK, resp)
	return out.n, nil
}

// firstLine shortens multi-line validation messages for the log.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
