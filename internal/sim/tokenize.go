package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// tokenizeRequest is vLLM's TokenizeCompletionRequest or TokenizeChatRequest:
// a prompt, or chat messages (whose text is counted as the generation
// endpoints count it, without a chat template).
type tokenizeRequest struct {
	Model             *string         `json:"model"`
	Prompt            json.RawMessage `json:"prompt"`
	Messages          json.RawMessage `json:"messages"`
	AddSpecialTokens  *bool           `json:"add_special_tokens"`
	ReturnTokenStrs   bool            `json:"return_token_strs"`
	AddGenerationPrmt *bool           `json:"add_generation_prompt"`
}

// tokenizeResponse is vLLM's TokenizeResponse, fields in its order.
type tokenizeResponse struct {
	Count       int       `json:"count"`
	MaxModelLen int       `json:"max_model_len"`
	Tokens      []int     `json:"tokens"`
	TokenStrs   *[]string `json:"token_strs"`
}

// handleTokenize answers POST /tokenize as vLLM does, with the configured
// tokenizer (or one id per word, a hash of the word, without one).
func (s *Server) handleTokenize(w http.ResponseWriter, r *http.Request) {
	var req tokenizeRequest
	if e := readBody(w, r, &req); e != nil {
		writeError(w, e)
		return
	}
	if e := s.checkModel(req.Model); e != nil {
		writeError(w, e)
		return
	}
	var ids []int
	var strs []string
	switch {
	case !isNull(req.Messages):
		// Chat: add_special_tokens defaults to false, as in vLLM.
		special := req.AddSpecialTokens != nil && *req.AddSpecialTokens
		var msgs []chatMessage
		if err := json.Unmarshal(req.Messages, &msgs); err != nil {
			writeError(w, validationError("list_type", "body.messages", "Input should be a valid list"))
			return
		}
		for _, m := range msgs {
			for _, t := range messageTexts(m.Content) {
				ids, strs = s.encode(ids, strs, t, special)
			}
		}
	case !isNull(req.Prompt):
		var text string
		if err := json.Unmarshal(req.Prompt, &text); err != nil {
			writeError(w, validationError("string_type", "body.prompt", "Input should be a valid string"))
			return
		}
		special := req.AddSpecialTokens == nil || *req.AddSpecialTokens
		ids, strs = s.encode(ids, strs, text, special)
	default:
		writeError(w, validationError("missing", "body.prompt", "Field required"))
		return
	}
	resp := tokenizeResponse{Count: len(ids), MaxModelLen: s.cfg.MaxModelLen, Tokens: ids}
	if resp.Tokens == nil {
		resp.Tokens = []int{}
	}
	if req.ReturnTokenStrs {
		if strs == nil {
			strs = []string{}
		}
		resp.TokenStrs = &strs
	}
	writeJSON(w, http.StatusOK, resp)
}

// encode appends the ids of text, and each token's text.
func (s *Server) encode(ids []int, strs []string, text string, special bool) ([]int, []string) {
	if s.cfg.Tokenizer == nil {
		ids = appendWordIDs(ids, text)
		return ids, append(strs, strings.Fields(text)...)
	}
	got := s.cfg.Tokenizer.Encode(text, special)
	for _, id := range got {
		strs = append(strs, s.cfg.Tokenizer.Decode([]int{id}))
	}
	return append(ids, got...), strs
}

// messageTexts returns the text parts of a message's content.
func messageTexts(raw json.RawMessage) []string {
	if isNull(raw) {
		return nil
	}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return []string{text}
	}
	var parts []contentPart
	if json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var out []string
	for _, p := range parts {
		if p.Type == "text" {
			out = append(out, p.Text)
		}
	}
	return out
}

// handleDetokenize answers POST /detokenize: {"tokens": [...]} becomes
// {"prompt": "..."}.
func (s *Server) handleDetokenize(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model  *string `json:"model"`
		Tokens *[]int  `json:"tokens"`
	}
	if e := readBody(w, r, &req); e != nil {
		writeError(w, e)
		return
	}
	if e := s.checkModel(req.Model); e != nil {
		writeError(w, e)
		return
	}
	if req.Tokens == nil {
		writeError(w, validationError("missing", "body.tokens", "Field required"))
		return
	}
	if s.cfg.Tokenizer == nil {
		writeError(w, badRequest("The simulator has no tokenizer to detokenize with (start it with one)."))
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Prompt string `json:"prompt"`
	}{s.cfg.Tokenizer.Decode(*req.Tokens)})
}

// readBody decodes a JSON request body into v, mapping failures to the
// validation errors vLLM writes.
func readBody(w http.ResponseWriter, r *http.Request, v any) *apiError {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		return badRequest(fmt.Sprintf("could not read request body: %v", err))
	}
	if err := json.Unmarshal(body, v); err != nil {
		return decodeError(err)
	}
	return nil
}

// checkModel refuses a model name other than the served one (absent or
// empty means the served model).
func (s *Server) checkModel(model *string) *apiError {
	if model != nil && *model != "" && *model != s.cfg.Model {
		return &apiError{status: http.StatusNotFound, typ: "NotFoundError", msg: fmt.Sprintf("The model `%s` does not exist.", *model)}
	}
	return nil
}
