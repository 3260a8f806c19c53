package sim

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"net/http"
	"time"
)

// embeddingRequest is the part of vLLM's EmbeddingCompletionRequest the
// simulator acts on.
type embeddingRequest struct {
	Model *string `json:"model"`
	// Input is EmbeddingCompletionRequest's; Messages makes the request an
	// EmbeddingChatRequest (one input: the messages' text).
	Input          json.RawMessage `json:"input"`
	Messages       json.RawMessage `json:"messages"`
	EncodingFormat string          `json:"encoding_format"`
	Dimensions     *int            `json:"dimensions"`
	// TruncatePromptTokens keeps the last k tokens of each input; -1 means
	// max_model_len (vLLM's benchmark sends -1).
	TruncatePromptTokens *int `json:"truncate_prompt_tokens"`
	// Modality is Infinity's: "text" (the default), "image" or "audio",
	// whose inputs are URLs.
	Modality string `json:"modality"`
}

// embeddingData is vLLM's EmbeddingResponseData; Embedding is a list of
// floats, or a base64 string of little-endian float32 values.
type embeddingData struct {
	Index     int    `json:"index"`
	Object    string `json:"object"`
	Embedding any    `json:"embedding"`
}

// handleEmbeddings answers POST /v1/embeddings. Its cost is the engine's:
// the inputs are one request of their total tokens that needs only its
// prefill (the fixed-latency engine waits TTFT), so embeddings compete with
// generation for the token budget under the scheduler. Each vector is a
// unit vector drawn from a hash of its input, so equal inputs get equal
// vectors.
func (s *Server) handleEmbeddings(w http.ResponseWriter, r *http.Request) {
	s.embed(w, r, "embd-", "embedding")
}

// embed answers an embeddings request (/v1/embeddings, Infinity's
// /embeddings) or a pooling one (/pooling): the answer's id starts with
// idPrefix and each vector's object is object ("pooling" puts the vector
// under "data" instead of "embedding").
func (s *Server) embed(w http.ResponseWriter, r *http.Request, idPrefix, object string) {
	received := time.Now()
	var req embeddingRequest
	if e := readBody(w, r, &req); e != nil {
		writeError(w, e)
		return
	}
	if e := s.checkModel(req.Model); e != nil {
		writeError(w, e)
		return
	}
	inputs, e := s.embeddingRequestInputs(&req)
	if e != nil {
		writeError(w, e)
		return
	}
	dim := s.cfg.EmbeddingDim
	if req.Dimensions != nil {
		if *req.Dimensions < 1 || *req.Dimensions > s.cfg.EmbeddingDim {
			writeError(w, badParam("dimensions", fmt.Sprintf("dimensions must be between 1 and %d, got %d.", s.cfg.EmbeddingDim, *req.Dimensions)))
			return
		}
		dim = *req.Dimensions
	}
	if req.EncodingFormat != "" && req.EncodingFormat != "float" && req.EncodingFormat != "base64" {
		writeError(w, badParam("encoding_format", fmt.Sprintf("encoding_format must be float or base64, got %q.", req.EncodingFormat)))
		return
	}
	for _, in := range inputs {
		if in.tokens > s.cfg.MaxModelLen {
			writeError(w, badRequest(fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens "+
				"in the input for embedding generation. Please reduce the length of the input.", s.cfg.MaxModelLen, in.tokens)))
			return
		}
	}
	id, total, ok := s.pool(w, r, received, inputs)
	if !ok {
		return
	}
	data := make([]any, len(inputs))
	for i, in := range inputs {
		data[i] = poolingData(i, object, embedVector(in.key, dim), req.EncodingFormat == "base64")
	}
	writeJSON(w, http.StatusOK, struct {
		ID      string    `json:"id"`
		Object  string    `json:"object"`
		Created int64     `json:"created"`
		Model   string    `json:"model"`
		Data    []any     `json:"data"`
		Usage   usageInfo `json:"usage"`
	}{idPrefix + id, "list", received.Unix(), s.cfg.Model, data, usageInfo{PromptTokens: total, TotalTokens: total}})
	s.logRequest("%s %s 200 id=%s%s inputs=%d prompt_tokens=%d dur=%v", r.Method, r.URL.Path, idPrefix, id, len(inputs), total,
		time.Since(received).Round(time.Microsecond))
}

// poolingData is one vector of an answer: vLLM's EmbeddingResponseData
// ({"index", "object": "embedding", "embedding"}) or PoolingResponseData
// ({"index", "object": "pooling", "data"}), as floats or, for base64, the
// little-endian float32 bytes.
func poolingData(index int, object string, vec []float64, b64 bool) any {
	var v any = vec
	if b64 {
		buf := make([]byte, 4*len(vec))
		for k, x := range vec {
			binary.LittleEndian.PutUint32(buf[4*k:], math.Float32bits(float32(x)))
		}
		v = base64.StdEncoding.EncodeToString(buf)
	}
	if object == "pooling" {
		return poolingVector{Index: index, Object: object, Data: v}
	}
	return embeddingData{Index: index, Object: object, Embedding: v}
}

// embeddingRequestInputs reads the inputs of a completion or chat
// embedding request (or an Infinity one with an image or audio modality)
// and applies truncate_prompt_tokens as vLLM does: -1 truncates to
// max_model_len, k > 0 keeps at most k tokens, and k beyond max_model_len
// is refused.
func (s *Server) embeddingRequestInputs(req *embeddingRequest) ([]embeddingInput, *apiError) {
	var inputs []embeddingInput
	var e *apiError
	switch {
	case !isNull(req.Messages):
		n, e := s.countMessages(req.Messages, nil)
		if e != nil {
			return nil, e
		}
		inputs = []embeddingInput{{n, string(req.Messages)}}
	case req.Modality == "image" || req.Modality == "audio":
		inputs, e = mediaInputs(req.Input, req.Modality)
	case req.Modality == "" || req.Modality == "text":
		inputs, e = s.embeddingInputs(req.Input)
	default:
		e = validationError("enum", "body.modality", "Input should be text, image or audio")
	}
	if e != nil {
		return nil, e
	}
	if t := req.TruncatePromptTokens; t == nil || *t == 0 {
		return inputs, nil
	}
	limit, e := s.truncateLimit(req.TruncatePromptTokens)
	if e != nil {
		return nil, e
	}
	for i := range inputs {
		inputs[i].tokens = min(inputs[i].tokens, limit)
	}
	return inputs, nil
}

// embeddingInput is one input: its token count and what seeds its vector.
type embeddingInput struct {
	tokens int
	key    string
}

// embeddingInputs reads input: a string, a list of strings, a list of token
// ids, or a list of such lists.
func (s *Server) embeddingInputs(raw json.RawMessage) ([]embeddingInput, *apiError) {
	if isNull(raw) {
		return nil, validationError("missing", "body.input", "Field required")
	}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return []embeddingInput{{s.countText(text, true, nil), text}}, nil
	}
	var ids []int
	if json.Unmarshal(raw, &ids) == nil && len(ids) > 0 {
		return []embeddingInput{{len(ids), fmt.Sprint(ids)}}, nil
	}
	var texts []string
	if json.Unmarshal(raw, &texts) == nil && len(texts) > 0 {
		out := make([]embeddingInput, len(texts))
		for i, t := range texts {
			out[i] = embeddingInput{s.countText(t, true, nil), t}
		}
		return out, nil
	}
	var lists [][]int
	if json.Unmarshal(raw, &lists) == nil && len(lists) > 0 {
		out := make([]embeddingInput, len(lists))
		for i, l := range lists {
			out[i] = embeddingInput{len(l), fmt.Sprint(l)}
		}
		return out, nil
	}
	return nil, validationError("string_type", "body.input", "Input should be a valid string")
}

// embedVector is a unit vector of dim components drawn from a hash of key.
func embedVector(key string, dim int) []float64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	rng := rand.New(rand.NewPCG(h.Sum64(), 0xe5bed))
	v := make([]float64, dim)
	norm := 0.0
	for i := range v {
		v[i] = rng.NormFloat64()
		norm += v[i] * v[i]
	}
	norm = math.Sqrt(norm)
	for i := range v {
		// Rounded to float32, as a model's output is.
		v[i] = float64(float32(v[i] / norm))
	}
	return v
}
