package sim

import (
	"cmp"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"slices"
	"time"
)

// poolingVector is vLLM's PoolingResponseData: the pooled vector under
// "data".
type poolingVector struct {
	Index  int    `json:"index"`
	Object string `json:"object"`
	Data   any    `json:"data"`
}

// handlePooling answers POST /pooling (vLLM's pooling API): the requests of
// /v1/embeddings (input, or messages), answered with PoolingResponse's
// "pooling" vectors.
func (s *Server) handlePooling(w http.ResponseWriter, r *http.Request) {
	s.embed(w, r, "pool-", "pooling")
}

// handleInfinityEmbeddings answers POST /embeddings, Infinity's path
// (github.com/michaelfeil/infinity): /v1/embeddings' request with a
// "modality" (text, image or audio); an image or audio input is its URL.
func (s *Server) handleInfinityEmbeddings(w http.ResponseWriter, r *http.Request) {
	s.embed(w, r, "infinity-", "embedding")
}

// mediaInputTokens is what the simulator counts for one image or audio
// input of Infinity's API: the same placeholder count as a media part of a
// chat message (imageTokens, audioTokens in media.go), so that a picture
// costs the same whichever API carries it; counting the URL's text (a
// data: URL is the whole file in base64) would refuse every image as too
// long.
func mediaInputTokens(modality string) int {
	if modality == "audio" {
		return audioTokens
	}
	return imageTokens
}

// mediaInputs reads the input of an Infinity request whose modality is
// image or audio: one URL or a list of them.
func mediaInputs(raw json.RawMessage, modality string) ([]embeddingInput, *apiError) {
	var url string
	if json.Unmarshal(raw, &url) == nil {
		return []embeddingInput{{mediaInputTokens(modality), modality + ":" + url}}, nil
	}
	var urls []string
	if json.Unmarshal(raw, &urls) == nil && len(urls) > 0 {
		out := make([]embeddingInput, len(urls))
		for i, u := range urls {
			out[i] = embeddingInput{mediaInputTokens(modality), modality + ":" + u}
		}
		return out, nil
	}
	return nil, validationError("string_type", "body.input", "Input should be a valid string")
}

// rerankRequest is the part of vLLM's RerankRequest the simulator acts on.
type rerankRequest struct {
	Model                *string         `json:"model"`
	Query                *string         `json:"query"`
	Documents            json.RawMessage `json:"documents"`
	TopN                 int             `json:"top_n"`
	TruncatePromptTokens *int            `json:"truncate_prompt_tokens"`
}

// rerankResult is vLLM's RerankResult.
type rerankResult struct {
	Index    int `json:"index"`
	Document struct {
		Text string `json:"text"`
	} `json:"document"`
	RelevanceScore float64 `json:"relevance_score"`
}

// handleRerank answers POST /rerank (vLLM's score API, Jina/Cohere's
// shape): each document is scored against the query, results sorted by
// relevance_score, the best top_n (0: all). A pair costs the query's
// tokens, one separator and the document's, as vLLM's random-rerank
// dataset counts them, truncated to truncate_prompt_tokens (-1:
// max_model_len); the pairs are one request of their total tokens that
// needs only its prefill, as an embeddings request. Scores are drawn from
// a hash of the pair, so equal pairs score equally.
func (s *Server) handleRerank(w http.ResponseWriter, r *http.Request) {
	received := time.Now()
	var req rerankRequest
	if e := readBody(w, r, &req); e != nil {
		writeError(w, e)
		return
	}
	if e := s.checkModel(req.Model); e != nil {
		writeError(w, e)
		return
	}
	if req.Query == nil {
		writeError(w, validationError("missing", "body.query", "Field required"))
		return
	}
	var docs []string
	if isNull(req.Documents) {
		writeError(w, validationError("missing", "body.documents", "Field required"))
		return
	}
	if err := json.Unmarshal(req.Documents, &docs); err != nil {
		writeError(w, validationError("list_type", "body.documents", "Input should be a valid list"))
		return
	}
	limit, e := s.truncateLimit(req.TruncatePromptTokens)
	if e != nil {
		writeError(w, e)
		return
	}
	query := s.countText(*req.Query, false, nil)
	inputs := make([]embeddingInput, len(docs))
	results := make([]rerankResult, len(docs))
	for i, d := range docs {
		inputs[i] = embeddingInput{tokens: min(query+1+s.countText(d, false, nil), limit), key: *req.Query + "\x00" + d}
		results[i].Index, results[i].Document.Text, results[i].RelevanceScore = i, d, relevance(inputs[i].key)
	}
	id, total, ok := s.pool(w, r, received, inputs)
	if !ok {
		return
	}
	slices.SortStableFunc(results, func(a, b rerankResult) int { return cmp.Compare(b.RelevanceScore, a.RelevanceScore) })
	if req.TopN > 0 && req.TopN < len(results) {
		results = results[:req.TopN]
	}
	writeJSON(w, http.StatusOK, struct {
		ID      string         `json:"id"`
		Model   string         `json:"model"`
		Usage   rerankUsage    `json:"usage"`
		Results []rerankResult `json:"results"`
	}{"rerank-" + id, s.cfg.Model, rerankUsage{PromptTokens: total, TotalTokens: total}, results})
	s.logRequest("%s %s 200 id=rerank-%s documents=%d prompt_tokens=%d dur=%v", r.Method, r.URL.Path, id, len(docs), total,
		time.Since(received).Round(time.Microsecond))
}

// rerankUsage is vLLM's RerankUsage.
type rerankUsage struct {
	PromptTokens int `json:"prompt_tokens"`
	TotalTokens  int `json:"total_tokens"`
}

// relevance is a score in [0, 1) drawn from a hash of key.
func relevance(key string) float64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	return rand.New(rand.NewPCG(h.Sum64(), 0x5c0e)).Float64()
}

// truncateLimit is the most tokens an input keeps under
// truncate_prompt_tokens as vLLM reads it: absent or 0 and -1 mean
// max_model_len, k > 0 keeps k, and k beyond max_model_len is refused.
func (s *Server) truncateLimit(t *int) (int, *apiError) {
	if t == nil || *t == 0 || *t < 0 {
		return s.cfg.MaxModelLen, nil
	}
	if *t > s.cfg.MaxModelLen {
		return 0, badRequest(fmt.Sprintf("truncate_prompt_tokens value (%d) is greater than max_model_len (%d). "+
			"Please, select a smaller truncation size.", *t, s.cfg.MaxModelLen))
	}
	return *t, nil
}

// pool runs the inputs of one pooling request through the engine as one
// request of their total tokens that needs only its prefill, and returns
// its id and that total; on failure it writes the error and returns false.
// The id is the client's x-request-id when it sent one.
func (s *Server) pool(w http.ResponseWriter, r *http.Request, received time.Time, inputs []embeddingInput) (string, int, bool) {
	total := 0
	for _, in := range inputs {
		total += in.tokens
	}
	id := randomID()
	if v, ok := r.Header["X-Request-Id"]; ok && len(v) > 0 {
		id = v[0]
	}
	st, err := s.engine.Start(r.Context(), Request{ID: id, Received: received, PromptTokens: min(max(total, 1), s.cfg.MaxModelLen-1),
		OutputTokens: 1, Pooling: true})
	if err != nil {
		writeError(w, &apiError{status: http.StatusInternalServerError, typ: "InternalServerError", msg: err.Error()})
		return "", 0, false
	}
	defer st.Close()
	if err := st.Next(r.Context()); err != nil {
		if r.Context().Err() == nil {
			writeError(w, &apiError{status: http.StatusInternalServerError, typ: "InternalServerError", msg: err.Error()})
		}
		return "", 0, false
	}
	return id, total, true
}
