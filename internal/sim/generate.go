package sim

import (
	"context"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/pyjson"
)

func (s *Server) handleCompletions(w http.ResponseWriter, r *http.Request) {
	s.serveGeneration(w, r, false)
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	s.serveGeneration(w, r, true)
}

// exchange is one generation request from receipt to its last byte: what
// the handler decided about it, where its output stands, and what it owes
// /metrics, the per-request metrics object and the record.
type exchange struct {
	s      *Server
	ctx    context.Context
	j      job
	out    output
	faults faultSet
	st     Stream
	os     OutputStream // st's outputs, or nil for a token-at-a-time engine

	tokens   int       // tokens received from the engine so far
	lastAt   time.Time // engine timestamp of the latest output
	lastSeen time.Time // when the handler got the latest output
	status   int
	reason   string // finish reason for /metrics: stop, length, abort, error
	errText  string
	sentLast time.Time // send instant of the latest token event
	sent1st  time.Time // send instant of the first token event
	tr       *truth    // nil without a record
}

// serveGeneration handles a completions or chat request from receipt to the
// last byte.
func (s *Server) serveGeneration(w http.ResponseWriter, r *http.Request, chat bool) {
	// The timeline starts before the body is read, as a server's TTFT
	// counts from the request's arrival.
	received := time.Now()
	x := &exchange{s: s, ctx: r.Context(), status: http.StatusOK}
	if s.rec != nil {
		x.tr = &truth{path: r.URL.Path, arrival: received}
		defer x.record()
	}
	baseID, ok := x.admit(w, r, chat)
	if !ok {
		return
	}
	st, ok := x.startEngine(w, r, chat, baseID, received)
	if !ok {
		return
	}
	defer x.hold(st)()
	var err error
	if x.j.stream {
		err = x.stream(w)
	} else {
		err = x.complete(w)
	}
	x.finish(r, err, received)
}

// admit takes the request's id, parses its job and applies an injected
// HTTP fault; ok is false when the request was answered with an error.
func (x *exchange) admit(w http.ResponseWriter, r *http.Request, chat bool) (baseID string, ok bool) {
	s := x.s
	// vLLM takes the request id from the X-Request-Id header when present
	// (even if empty) and prefixes it per endpoint.
	baseID = randomID()
	if v, ok := r.Header["X-Request-Id"]; ok && len(v) > 0 {
		baseID = v[0]
	}
	if x.tr != nil {
		x.tr.id = baseID
	}
	j, apiErr := s.parseJob(w, r, chat)
	if apiErr != nil {
		s.logRequest("%s %s %d %s: %s", r.Method, r.URL.Path, apiErr.status, apiErr.typ, firstLine(apiErr.msg))
		x.status = apiErr.status
		writeError(w, apiErr)
		return baseID, false
	}
	x.j = j
	x.faults = s.cfg.Faults.decide(s.cfg.Seed, baseID)
	if e := httpFault(x.faults); e != nil {
		s.logRequest("%s %s %d id=%s: injected fault %s", r.Method, r.URL.Path, e.status, baseID, x.faults)
		x.status, x.errText = e.status, "fault"
		w.Header().Set("Retry-After", "1")
		writeError(w, e)
		return baseID, false
	}
	return baseID, true
}

// startEngine decides the output, waits out the front end's latency and
// hands the request to the engine; ok is false when the client left
// meanwhile or the engine refused it (answered with an error).
func (x *exchange) startEngine(w http.ResponseWriter, r *http.Request, chat bool, baseID string, received time.Time) (Stream, bool) {
	s := x.s
	id := "cmpl-" + baseID
	if chat {
		id = "chatcmpl-" + baseID
	}
	x.out = output{id: id, created: received.Unix(), received: received}
	x.out.n, x.out.finish = s.outputLength(baseID, x.j)

	queued := received
	if d := s.cfg.FrontendLatency; d > 0 {
		if err := sleepCtx(x.ctx, d); err != nil {
			x.status, x.errText = 499, "client disconnected"
			return nil, false
		}
		queued = time.Now()
	}
	st, err := s.engine.Start(x.ctx, Request{ID: baseID, Received: received, Queued: queued, PromptTokens: x.j.promptTokens,
		OutputTokens: x.out.n, PromptIDs: x.j.promptIDs})
	if err != nil {
		e := &apiError{status: http.StatusInternalServerError, typ: "InternalServerError", msg: err.Error()}
		s.logRequest("%s %s %d id=%s: engine rejected the request: %v", r.Method, r.URL.Path, e.status, id, err)
		x.status, x.errText = e.status, err.Error()
		writeError(w, e)
		return nil, false
	}
	return st, true
}

// finish accounts for a request the engine ran, whose answer ended with
// err: how it ended, for /metrics and the request log.
func (x *exchange) finish(r *http.Request, err error, received time.Time) {
	s, j := x.s, x.j
	outcome := "finish=" + x.out.finish
	x.reason = x.out.finish
	switch {
	case err != nil && x.ctx.Err() != nil:
		outcome, x.reason, x.errText = "client disconnected", "abort", "client disconnected"
	case err == errReset:
		outcome, x.reason, x.errText = "connection reset (injected fault)", "abort", "connection reset"
	case err != nil:
		if !j.stream {
			x.status = http.StatusInternalServerError
		}
		outcome, x.reason, x.errText = "engine error: "+err.Error(), "error", err.Error()
	}
	if x.faults != 0 {
		outcome += " faults=" + x.faults.String()
	}
	// vLLM's e2e latency ends when the front end processes the last
	// output, not when the response is written; an unfinished request ends
	// now.
	e2e := time.Since(received)
	if x.tokens == x.out.n && !x.lastSeen.IsZero() {
		e2e = x.lastSeen.Sub(received)
	}
	s.metrics.finished(x.reason, e2e, x.timing(), j.promptTokens, x.tokens, j.maxTokens)
	s.logRequest("%s %s %d id=%s stream=%t prompt_tokens=%d completion_tokens=%d/%d %s dur=%v",
		r.Method, r.URL.Path, x.status, x.out.id, j.stream, j.promptTokens, x.tokens, x.out.n, outcome,
		time.Since(received).Round(time.Microsecond))
}

// next waits for the engine's next output and accounts for it as vLLM's
// output processor does: the first output gives TTFT (front end: receipt
// to now) and counts the prompt tokens, every later one gives an
// inter-token latency sample (the gap between engine timestamps).
func (x *exchange) next() (Output, error) {
	var o Output
	if x.os != nil {
		var err error
		if o, err = x.os.NextOutput(x.ctx); err != nil {
			return o, err
		}
	} else {
		if err := x.st.Next(x.ctx); err != nil {
			return o, err
		}
		o = Output{Tokens: 1, At: time.Now()}
	}
	o.Tokens = max(1, min(o.Tokens, x.out.n-x.tokens))
	x.lastSeen = time.Now()
	first := x.tokens == 0
	if first {
		cached := 0
		if x.os != nil {
			cached = x.os.Timing().CachedTokens
		}
		x.s.metrics.firstOutput(x.lastSeen.Sub(x.out.received), x.j.promptTokens, cached, x.j.maxTokens)
		x.s.stats.tokens(x.j.promptTokens-cached, 0)
	}
	x.s.metrics.output(o.Tokens, o.At.Sub(x.lastAt), first)
	x.s.stats.tokens(0, o.Tokens)
	x.lastAt = o.At
	x.tokens += o.Tokens
	return o, nil
}

// timing is the engine's timeline of the request; for an engine without
// one, queued and scheduled at receipt and the outputs' instants.
func (x *exchange) timing() Timing {
	if x.os != nil {
		return x.os.Timing()
	}
	return Timing{Queued: x.out.received, Scheduled: x.out.received, FirstToken: x.sent1st, LastToken: x.sentLast}
}

// metricsObject is vLLM's per-request metrics for the usage event: from the
// engine's timeline under the scheduler; for the fixed engine, from the
// instants the token events left, with no queue, so that a client can
// compare its TTFT with when the server really wrote the first token.
func (x *exchange) metricsObject() *requestMetrics {
	m := &requestMetrics{received: x.out.received, first: x.sent1st, last: x.sentLast, tokens: x.tokens}
	if x.s.sched != nil && x.os != nil {
		t := x.os.Timing()
		m.engine, m.queued, m.scheduled, m.first, m.last = true, t.Queued, t.Scheduled, t.FirstToken, t.LastToken
	}
	return m
}

// record writes the request's ground truth.
func (x *exchange) record() {
	t := x.tr
	t.status, t.stream, t.fault, t.errText = x.status, x.j.stream, x.faults.String(), x.errText
	t.prompt, t.completion, t.finish = x.j.promptTokens, x.tokens, x.reason
	if x.st != nil {
		t.timing = x.timing()
	}
	t.finished = time.Now()
	x.s.rec.write(t)
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

// tokensText is the JSON literal of tokens [from, to) of out: the literal
// of the one token, or their texts joined for an event of several tokens.
func (s *Server) tokensText(dst []byte, from, to int, out output) []byte {
	if to-from == 1 {
		return append(dst, s.tokenText(from, out)...)
	}
	var b strings.Builder
	for k := from; k < to; k++ {
		if !out.isEOS(k) {
			b.WriteString(s.words[k%len(s.words)])
		}
	}
	return pyjson.AppendCompactString(dst, b.String())
}

// sleepCtx sleeps for d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// firstLine shortens multi-line validation messages for the log.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
