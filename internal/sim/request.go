package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode"
)

// maxBodyBytes bounds a request body. Benchmark prompts are at most a few
// hundred kilobytes; the limit only stops a runaway client.
const maxBodyBytes = 64 << 20

// apiRequest holds the fields of a completions or chat request that the
// simulator acts on; everything else a client sends is accepted and
// ignored, as vLLM does (it logs and drops unknown fields).
type apiRequest struct {
	Model               *string         `json:"model"`
	Prompt              json.RawMessage `json:"prompt"`
	Messages            json.RawMessage `json:"messages"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	MinTokens           *int            `json:"min_tokens"`
	N                   *int            `json:"n"`
	Stream              *bool           `json:"stream"`
	StreamOptions       *streamOptions  `json:"stream_options"`
	IgnoreEOS           *bool           `json:"ignore_eos"`
}

// streamOptions mirrors vLLM's StreamOptions, where include_usage defaults
// to true: `"stream_options": {}` asks for the usage event.
type streamOptions struct {
	IncludeUsage *bool `json:"include_usage"`
}

// chatMessage is one entry of a chat request's messages list. Content is a
// string, a list of content parts, or null.
type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// contentPart is one element of a list-valued message content: text
// parts count their tokens, media parts a fixed number (media.go).
type contentPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// job is a validated generation request, reduced to what the handlers need.
type job struct {
	chat         bool
	stream       bool
	includeUsage bool
	ignoreEOS    bool
	promptTokens int
	maxTokens    int
	minTokens    int
	// maxTokensSet is true when the request named max_tokens (or
	// max_completion_tokens) itself.
	maxTokensSet bool
	// promptIDs are the prompt's token ids when the engine needs them
	// (prefix caching), else nil.
	promptIDs []int
}

// parseJob reads and validates the body of a completions (chat false) or
// chat request. Checks run in vLLM's order: body validation (pydantic),
// then the model name, then sampling parameters.
func (s *Server) parseJob(w http.ResponseWriter, r *http.Request, chat bool) (job, *apiError) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		return job{}, badRequest(fmt.Sprintf("could not read request body: %v", err))
	}
	var req apiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return job{}, decodeError(err)
	}
	j := job{chat: chat}
	j.stream = req.Stream != nil && *req.Stream
	if req.StreamOptions != nil {
		if !j.stream {
			return job{}, validationError("value_error", "body",
				"Value error, Stream options can only be defined when `stream=True`.")
		}
		j.includeUsage = req.StreamOptions.IncludeUsage == nil || *req.StreamOptions.IncludeUsage
	}
	var perr *apiError
	var ids *[]int
	if s.needIDs {
		ids = &j.promptIDs
	}
	if chat {
		j.promptTokens, perr = s.countMessages(req.Messages, ids)
	} else {
		j.promptTokens, perr = s.countPrompt(req.Prompt, ids)
	}
	if perr != nil {
		return job{}, perr
	}
	// An absent or empty model means "the served model" (vLLM's
	// _is_model_supported); any other name must match exactly.
	if req.Model != nil && *req.Model != "" && *req.Model != s.cfg.Model {
		return job{}, &apiError{
			status: http.StatusNotFound,
			typ:    "NotFoundError",
			msg:    fmt.Sprintf("The model `%s` does not exist.", *req.Model),
		}
	}
	if req.N != nil && *req.N != 1 {
		return job{}, badRequest(fmt.Sprintf("n=%d is not supported by the simulator, only n=1.", *req.N))
	}
	maxTokens := req.MaxTokens
	if chat && req.MaxCompletionTokens != nil {
		maxTokens = req.MaxCompletionTokens
	}
	j.maxTokens = s.cfg.DefaultMaxTokens
	if maxTokens != nil {
		j.maxTokens, j.maxTokensSet = *maxTokens, true
	}
	if j.maxTokens < 1 {
		return job{}, badParam("max_tokens", fmt.Sprintf("max_tokens must be at least 1, got %d.", j.maxTokens))
	}
	if req.MinTokens != nil {
		j.minTokens = *req.MinTokens
		if j.minTokens < 0 {
			return job{}, badParam("min_tokens", fmt.Sprintf("min_tokens must be greater than or equal to 0, got %d.", j.minTokens))
		}
		if j.minTokens > j.maxTokens {
			return job{}, badParam("min_tokens", fmt.Sprintf(
				"min_tokens must be less than or equal to max_tokens=%d, got %d.", j.maxTokens, j.minTokens))
		}
	}
	j.ignoreEOS = req.IgnoreEOS != nil && *req.IgnoreEOS
	if e := s.checkContext(&j); e != nil {
		return job{}, e
	}
	return j, nil
}

// countPrompt counts the tokens of a completions prompt: a string, a list of
// token ids, or a one-element list of either. Several prompts in one
// request (a batch) would need several choices, which the simulator does
// not produce.
func (s *Server) countPrompt(raw json.RawMessage, out *[]int) (int, *apiError) {
	if isNull(raw) {
		return 0, validationError("missing", "body.prompt", "Field required")
	}
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		return s.countText(text, true, out), nil
	}
	var ids []int
	if err := json.Unmarshal(raw, &ids); err == nil {
		if out != nil {
			*out = append(*out, ids...)
		}
		return len(ids), nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return 0, validationError("string_type", "body.prompt", "Input should be a valid string")
	}
	if len(list) != 1 {
		return 0, badParam("prompt", fmt.Sprintf(
			"a list of %d prompts is not supported by the simulator, send one prompt per request.", len(list)))
	}
	return s.countPrompt(list[0], out)
}

// countMessages counts the text tokens of a chat request's messages. vLLM
// renders the messages through the model's chat template before counting;
// the simulator has no template, so it counts the text of each message
// (without special tokens, as vLLM tokenizes rendered chats) and a fixed
// number of placeholder tokens per image, video or audio part (media.go).
func (s *Server) countMessages(raw json.RawMessage, out *[]int) (int, *apiError) {
	if isNull(raw) {
		return 0, validationError("missing", "body.messages", "Field required")
	}
	var msgs []chatMessage
	if err := json.Unmarshal(raw, &msgs); err != nil {
		return 0, validationError("list_type", "body.messages", "Input should be a valid list")
	}
	n := 0
	for i, m := range msgs {
		if m.Role == "" {
			return 0, validationError("missing", "body.messages."+strconv.Itoa(i)+".role", "Field required")
		}
		if isNull(m.Content) {
			continue
		}
		var text string
		if err := json.Unmarshal(m.Content, &text); err == nil {
			n += s.countText(text, false, out)
			continue
		}
		var parts []json.RawMessage
		if err := json.Unmarshal(m.Content, &parts); err != nil {
			return 0, validationError("string_type", "body.messages."+strconv.Itoa(i)+".content",
				"Input should be a valid string")
		}
		for j, raw := range parts {
			var p contentPart
			if err := json.Unmarshal(raw, &p); err != nil {
				return 0, validationError("model_type", "body.messages."+strconv.Itoa(i)+".content."+strconv.Itoa(j),
					"Input should be a valid dictionary or object to extract fields from")
			}
			if p.Type == "text" {
				n += s.countText(p.Text, false, out)
				continue
			}
			k, apiErr := countMedia(p.Type, raw, i, j, out)
			if apiErr != nil {
				return 0, apiErr
			}
			n += k
		}
	}
	return n, nil
}

// countText counts the tokens of text with the configured tokenizer, or its
// whitespace-separated words when there is none. When out is not nil the
// token ids are appended to it (a word's id is a hash of the word when
// there is no tokenizer).
func (s *Server) countText(text string, addSpecialTokens bool, out *[]int) int {
	if s.cfg.Tokenizer != nil {
		ids := s.cfg.Tokenizer.Encode(text, addSpecialTokens)
		if out != nil {
			*out = append(*out, ids...)
		}
		return len(ids)
	}
	if out != nil {
		n := len(*out)
		*out = appendWordIDs(*out, text)
		return len(*out) - n
	}
	return countWords(text)
}

// appendWordIDs appends an id per whitespace-separated word of text: a
// 31-bit FNV-1a hash of the word, so equal words have equal ids.
func appendWordIDs(dst []int, text string) []int {
	for _, w := range strings.Fields(text) {
		h := uint32(2166136261)
		for i := 0; i < len(w); i++ {
			h = (h ^ uint32(w[i])) * 16777619
		}
		dst = append(dst, int(h&0x7fffffff))
	}
	return dst
}

// checkContext applies vLLM's context-length checks: the prompt must leave
// room for one token, and prompt plus an explicit max_tokens must fit in
// the max model length (vLLM's messages). A default max_tokens is lowered
// to what fits instead.
func (s *Server) checkContext(j *job) *apiError {
	limit := s.cfg.MaxModelLen
	if j.promptTokens >= limit {
		return badRequest(fmt.Sprintf("This model's maximum context length is %d tokens. However, your request has %d input tokens. "+
			"Please reduce the length of the input messages.", limit, j.promptTokens))
	}
	if j.promptTokens+j.maxTokens <= limit {
		return nil
	}
	if !j.maxTokensSet {
		j.maxTokens = limit - j.promptTokens
		j.minTokens = min(j.minTokens, j.maxTokens)
		return nil
	}
	return badParam("max_tokens", fmt.Sprintf("'max_tokens' or 'max_completion_tokens' is too large: %d. "+
		"This model's maximum context length is %d tokens and your request has %d input tokens (%d > %d - %d).",
		j.maxTokens, limit, j.promptTokens, j.maxTokens, limit, j.promptTokens))
}

// countWords is len(strings.Fields(text)) without the allocation.
func countWords(text string) int {
	n, inWord := 0, false
	for _, r := range text {
		if unicode.IsSpace(r) {
			inWord = false
		} else if !inWord {
			inWord = true
			n++
		}
	}
	return n
}

// isNull reports whether a field was absent or JSON null.
func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

// apiError is an error response in vLLM's ErrorResponse shape.
type apiError struct {
	status int
	typ    string
	msg    string
	param  string // "" is written as null
}

// badRequest is vLLM's create_error_response default: a 400
// "BadRequestError" raised by the serving layer.
func badRequest(msg string) *apiError {
	return &apiError{status: http.StatusBadRequest, typ: "BadRequestError", msg: msg}
}

// badParam is a BadRequestError that names the parameter at fault, as
// vLLM's VLLMValidationError does.
func badParam(param, msg string) *apiError {
	e := badRequest(msg)
	e.param = param
	return e
}

// validationError is what vLLM's RequestValidationError handler writes for
// a body that fails pydantic validation: type is the HTTP phrase "Bad
// Request", param the dotted location of the first error, and the message
// lists the errors in pydantic's format (without the echoed input).
func validationError(kind, loc, msg string) *apiError {
	parts := strings.Split(loc, ".")
	quoted := make([]string, len(parts))
	for i, p := range parts {
		if _, err := strconv.Atoi(p); err == nil {
			quoted[i] = p
		} else {
			quoted[i] = "'" + p + "'"
		}
	}
	tuple := strings.Join(quoted, ", ")
	if len(parts) == 1 {
		tuple += ","
	}
	return &apiError{
		status: http.StatusBadRequest,
		typ:    "Bad Request",
		msg:    fmt.Sprintf("1 validation error:\n  {'type': '%s', 'loc': (%s), 'msg': '%s'}", kind, tuple, msg),
		param:  loc,
	}
}

// decodeError turns a json.Unmarshal failure of the request body into the
// validation error pydantic would have raised for it.
func decodeError(err error) *apiError {
	var syntax *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return validationError("json_invalid", "body."+strconv.FormatInt(syntax.Offset, 10), "JSON decode error")
	case errors.As(err, &typeErr) && typeErr.Field == "":
		return validationError("model_attributes_type", "body",
			"Input should be a valid dictionary or object to extract fields from")
	case errors.As(err, &typeErr):
		kind, what := "model_type", "object"
		switch typeErr.Type.Kind() {
		case reflect.Int:
			kind, what = "int_type", "integer"
		case reflect.Bool:
			kind, what = "bool_type", "boolean"
		case reflect.String:
			kind, what = "string_type", "string"
		}
		return validationError(kind, "body."+typeErr.Field, "Input should be a valid "+what)
	default:
		return validationError("json_invalid", "body", "JSON decode error")
	}
}
