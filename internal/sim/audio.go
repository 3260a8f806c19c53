package sim

import (
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/wav"
)

// maxAudioFileBytes is vLLM's default bound on an uploaded clip
// (VLLM_MAX_AUDIO_CLIP_FILESIZE_MB, 25 MB); larger files are refused with
// its message. maxFormField bounds each text field of the form.
const (
	maxAudioFileBytes = 25 << 20
	maxFormField      = 64 << 10
)

// audioTokensPerSecond is what a second of audio costs the engine: Whisper's
// encoder makes 50 frames a second (1,500 for its 30-second window).
const audioTokensPerSecond = 50

// audioTask is one of the two speech-to-text endpoints: its task name
// (the request id's prefix) and the object of its stream chunks.
type audioTask struct{ name, object string }

var (
	transcribe = audioTask{"transcribe", "transcription.chunk"}
	translate  = audioTask{"translate", "translation.chunk"}
)

// audioRequest is the part of vLLM's TranscriptionRequest (and
// TranslationRequest) the simulator acts on, from the multipart form.
type audioRequest struct {
	model                  *string
	prompt                 string
	duration               float64 // of the uploaded clip, in seconds
	maxTokens              *int
	stream, includeUsage   bool
	continuousUsage        bool
	ignoreEOS              bool
	hasFile                bool
	fileTooLarge, notAudio error
}

func (s *Server) handleTranscriptions(w http.ResponseWriter, r *http.Request) {
	s.serveAudio(w, r, transcribe)
}

func (s *Server) handleTranslations(w http.ResponseWriter, r *http.Request) {
	s.serveAudio(w, r, translate)
}

// serveAudio answers POST /v1/audio/transcriptions or /translations: the
// form's WAV clip costs the engine 50 prompt tokens a second plus the
// prompt's tokens, and the text streams as vLLM's speech-to-text stream
// generator sends it: chunks of choices[0].delta.content, each with the
// usage so far when stream_continuous_usage_stats is set, the last with
// its finish_reason, then a usage chunk with empty choices when
// stream_include_usage is set, then [DONE]. Without stream the answer is
// the whole text. The simulator's faults do not apply to these endpoints.
func (s *Server) serveAudio(w http.ResponseWriter, r *http.Request, task audioTask) {
	received := time.Now()
	req, e := s.parseAudioForm(w, r)
	if e == nil {
		e = s.checkModel(req.model)
	}
	if e != nil {
		s.logRequest("%s %s %d %s: %s", r.Method, r.URL.Path, e.status, e.typ, firstLine(e.msg))
		writeError(w, e)
		return
	}
	baseID := randomID()
	if v, ok := r.Header["X-Request-Id"]; ok && len(v) > 0 {
		baseID = v[0]
	}
	j := job{stream: req.stream, includeUsage: req.includeUsage, ignoreEOS: req.ignoreEOS, maxTokens: s.cfg.DefaultMaxTokens,
		promptTokens: s.countText(req.prompt, false, nil) + int(math.Ceil(req.duration*audioTokensPerSecond))}
	j.promptTokens = min(max(j.promptTokens, 1), s.cfg.MaxModelLen-1)
	if req.maxTokens != nil {
		j.maxTokens, j.maxTokensSet = *req.maxTokens, true
	}
	if j.maxTokens < 1 {
		writeError(w, badParam("max_completion_tokens", fmt.Sprintf("max_completion_tokens must be at least 1, got %d.", j.maxTokens)))
		return
	}
	x := &exchange{s: s, ctx: r.Context(), j: j, status: http.StatusOK,
		out: output{id: task.name + "-" + baseID, created: received.Unix(), received: received}}
	x.out.n, x.out.finish = s.outputLength(baseID, j)
	st, err := s.engine.Start(x.ctx, Request{ID: baseID, Received: received, Queued: received, PromptTokens: j.promptTokens, OutputTokens: x.out.n})
	if err != nil {
		writeError(w, &apiError{status: http.StatusInternalServerError, typ: "InternalServerError", msg: err.Error()})
		return
	}
	defer x.hold(st)()
	if j.stream {
		err = x.streamAudio(w, task, req.continuousUsage)
	} else {
		err = x.completeAudio(w, req.duration)
	}
	s.logRequest("%s %s 200 id=%s audio=%.3fs prompt_tokens=%d completion_tokens=%d err=%v", r.Method, r.URL.Path, x.out.id,
		req.duration, j.promptTokens, x.tokens, err)
}

// hold makes st the exchange's engine stream and counts the request in
// flight (Server.active, the running gauge) until the returned release is
// called, which also closes st.
func (x *exchange) hold(st Stream) (release func()) {
	x.st = st
	x.os, _ = st.(OutputStream)
	x.s.active.Add(1)
	x.s.metrics.admitted()
	return func() {
		x.s.metrics.left()
		x.s.active.Add(-1)
		st.Close()
	}
}

// streamAudio writes the speech-to-text stream (see serveAudio).
func (x *exchange) streamAudio(w http.ResponseWriter, task audioTask, continuous bool) error {
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	if err := rc.Flush(); err != nil {
		return err
	}
	send := func(b []byte) error {
		if _, err := w.Write(b); err != nil {
			return err
		}
		return rc.Flush()
	}
	head := []byte(`data: {"id":`)
	head = pyjson.AppendCompactString(head, x.out.id)
	head = append(head, `,"object":"`+task.object+`","created":`...)
	head = strconv.AppendInt(head, x.out.created, 10)
	head = append(head, `,"model":`...)
	head = pyjson.AppendCompactString(head, x.s.cfg.Model)
	head = append(head, `,"choices":[`...)
	var ev, text []byte
	for x.tokens < x.out.n {
		o, err := x.next()
		if err != nil {
			if x.ctx.Err() == nil {
				sendStreamError(send, err.Error())
			}
			return err
		}
		text = x.s.tokensText(text[:0], x.tokens-o.Tokens, x.tokens, x.out)
		ev = append(append(append(ev[:0], head...), `{"delta":{"content":`...), text...)
		if x.tokens >= x.out.n {
			ev = append(ev, `},"finish_reason":"`+x.out.finish+`","stop_reason":null}]`...)
		} else {
			ev = append(ev, "}}]"...)
		}
		if continuous && x.j.includeUsage {
			ev = appendAudioUsage(append(ev, `,"usage":`...), x.j.promptTokens, x.tokens)
		}
		if err := send(append(ev, "}\n\n"...)); err != nil {
			return err
		}
	}
	if x.j.includeUsage {
		ev = appendAudioUsage(append(append(ev[:0], head...), `],"usage":`...), x.j.promptTokens, x.tokens)
		if err := send(append(ev, "}\n\n"...)); err != nil {
			return err
		}
	}
	return send([]byte(doneEvent))
}

// appendAudioUsage appends vLLM's UsageInfo, in its field order.
func appendAudioUsage(dst []byte, prompt, completion int) []byte {
	dst = append(dst, `{"prompt_tokens":`...)
	dst = strconv.AppendInt(dst, int64(prompt), 10)
	dst = append(dst, `,"total_tokens":`...)
	dst = strconv.AppendInt(dst, int64(prompt+completion), 10)
	dst = append(dst, `,"completion_tokens":`...)
	dst = strconv.AppendInt(dst, int64(completion), 10)
	return append(dst, '}')
}

// completeAudio waits for every token and writes the whole transcription
// with the clip's duration as usage, as OpenAI's API answers.
func (x *exchange) completeAudio(w http.ResponseWriter, duration float64) error {
	var text strings.Builder
	for x.tokens < x.out.n {
		o, err := x.next()
		if err != nil {
			if x.ctx.Err() == nil {
				writeError(w, &apiError{status: http.StatusInternalServerError, typ: "InternalServerError", msg: err.Error()})
			}
			return err
		}
		for k := x.tokens - o.Tokens; k < x.tokens; k++ {
			if !x.out.isEOS(k) {
				text.WriteString(x.s.words[k%len(x.s.words)])
			}
		}
	}
	type usage struct {
		Type    string `json:"type"`
		Seconds int    `json:"seconds"`
	}
	writeJSON(w, http.StatusOK, struct {
		Text  string `json:"text"`
		Usage usage  `json:"usage"`
	}{text.String(), usage{"duration", int(math.Ceil(duration))}})
	return nil
}

// parseAudioForm reads the multipart form of a speech-to-text request,
// bounded: the clip at most maxAudioFileBytes, each other field
// maxFormField. Checks run as vLLM's: the form's fields (pydantic), then
// the clip's size and content.
func (s *Server) parseAudioForm(w http.ResponseWriter, r *http.Request) (*audioRequest, *apiError) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, validationError("missing", "body.file", "Field required")
	}
	body := http.MaxBytesReader(w, r.Body, maxAudioFileBytes+maxBodyBytes)
	mr := multipart.NewReader(body, params["boundary"])
	req := &audioRequest{}
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, badRequest(fmt.Sprintf("could not read the form: %v", err))
		}
		if e := req.take(p); e != nil {
			return nil, e
		}
	}
	switch {
	case !req.hasFile:
		return nil, validationError("missing", "body.file", "Field required")
	case req.fileTooLarge != nil:
		return nil, badRequest("Maximum file size exceeded.")
	case req.notAudio != nil:
		return nil, badRequest("Invalid or unsupported audio file: " + req.notAudio.Error())
	}
	return req, nil
}

// take reads one part of the form into req.
func (req *audioRequest) take(p *multipart.Part) *apiError {
	name := p.FormName()
	if name == "file" {
		b, err := io.ReadAll(io.LimitReader(p, maxAudioFileBytes+1))
		if err != nil {
			return badRequest(fmt.Sprintf("could not read the form: %v", err))
		}
		req.hasFile = true
		if len(b) > maxAudioFileBytes {
			req.fileTooLarge = errors.New("too large")
			return nil
		}
		req.duration, req.notAudio = wav.Duration(b)
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(p, maxFormField+1))
	if err != nil || len(b) > maxFormField {
		return badRequest(fmt.Sprintf("the form field %q is larger than %d bytes", name, maxFormField))
	}
	v := string(b)
	var ok bool
	switch name {
	case "model":
		req.model = &v
		ok = true
	case "prompt":
		req.prompt, ok = v, true
	case "max_completion_tokens":
		var n int
		n, err = strconv.Atoi(strings.TrimSpace(v))
		req.maxTokens, ok = &n, err == nil
		if !ok {
			return validationError("int_parsing", "body."+name, "Input should be a valid integer, unable to parse string as an integer")
		}
	case "stream":
		req.stream, ok = formBool(v)
	case "stream_include_usage":
		req.includeUsage, ok = formBool(v)
	case "stream_continuous_usage_stats":
		req.continuousUsage, ok = formBool(v)
	case "ignore_eos":
		req.ignoreEOS, ok = formBool(v)
	default:
		ok = true // accepted and ignored, as vLLM ignores unknown fields
	}
	if !ok {
		return validationError("bool_parsing", "body."+name, "Input should be a valid boolean, unable to interpret input")
	}
	return nil
}

// formBool parses a form field as pydantic parses a bool.
func formBool(v string) (value, ok bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "t", "yes", "y", "on":
		return true, true
	case "0", "false", "f", "no", "n", "off":
		return false, true
	}
	return false, false
}
