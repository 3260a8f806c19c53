package backend

import (
	"encoding/json"
	"fmt"

	"github.com/gobench/gobench/internal/pyjson"
)

// Embeddings is the OpenAI embeddings API with a text input (--backend
// openai-embeddings; vllm/benchmarks/lib/endpoint_request_func.py@11dfa3169
// async_request_openai_embeddings).
type Embeddings struct{}

// EmbeddingsChat is the OpenAI embeddings API with chat messages
// (--backend openai-embeddings-chat; async_request_openai_embeddings_chat
// of the same file).
type EmbeddingsChat struct{}

// Pooler is implemented by the Backends of vLLM's pooling APIs, which
// answer with one JSON body rather than a stream of events. Client.Do
// reads such an answer whole, stops the clock, and gives the body to
// Decode once (vLLM's _run_pooling_request): the request's TTFT and
// latency are both that time, and its prompt length is the server's
// usage.prompt_tokens.
type Pooler interface {
	Backend
	// Pooling marks the Backend as one of vLLM's POOLING_BACKENDS.
	Pooling()
}

var (
	_ Pooler = Embeddings{}
	_ Pooler = EmbeddingsChat{}
)

// Body implements Backend: vLLM's payload, in its key order: model, input
// (the prompt, or the list of a batched prompt), truncate_prompt_tokens -1 ("many embedding models have
// short context length"), then ignore_eos and --extra-body.
func (Embeddings) Body(req *Request) []byte {
	var o pyjson.Object
	o.Set("model", modelField(req))
	o.Set("input", promptValue(req))
	o.Set("truncate_prompt_tokens", -1)
	return poolingBody(&o, req)
}

// Decode implements Backend for the whole answer (see Pooler).
func (Embeddings) Decode(eventType string, data []byte, c *Chunk) error {
	return decodePooling(data, c)
}

// Pooling implements Pooler.
func (Embeddings) Pooling() {}

// Body implements Backend: model, messages (one user message with the
// prompt as a text part, as openai-chat sends it, and the request's media
// parts after it), truncate_prompt_tokens -1, then ignore_eos and
// --extra-body.
func (EmbeddingsChat) Body(req *Request) []byte {
	return embeddingsChatBody(promptValue(req), req, false)
}

// Decode implements Backend for the whole answer (see Pooler).
func (EmbeddingsChat) Decode(eventType string, data []byte, c *Chunk) error {
	return decodePooling(data, c)
}

// Pooling implements Pooler.
func (EmbeddingsChat) Pooling() {}

// poolingBody adds ignore_eos and --extra-body (vLLM's
// _update_payload_common; pooling requests do not stream) and encodes the
// payload compactly.
func poolingBody(o *pyjson.Object, req *Request) []byte {
	if req.IgnoreEOS {
		o.Set("ignore_eos", true)
	}
	o.Update(&req.ExtraBody)
	return encodeBody(o, req)
}

// poolingAnswer is the part of a pooling answer the benchmark reads.
type poolingAnswer struct {
	Usage *struct {
		PromptTokens *int `json:"prompt_tokens"`
	} `json:"usage"`
	Object  string          `json:"object"`
	Message string          `json:"message"`
	Error   json.RawMessage `json:"error"`
}

// decodePooling reads a pooling answer as _run_pooling_request does: the
// prompt length is usage.prompt_tokens, 0 when the server sent none
// (vLLM's usage.get("prompt_tokens", 0)). An error object in a 200 answer
// fails the request with the server's message, as gobench does for
// streams.
func decodePooling(data []byte, c *Chunk) error {
	*c = noChunk()
	c.PromptTokens, c.Usage = 0, true
	var a poolingAnswer
	if err := json.Unmarshal(data, &a); err != nil {
		return fmt.Errorf("decode pooling answer %.200q: %w", data, err)
	}
	if a.Object == "error" || (len(a.Error) > 0 && string(a.Error) != "null") {
		c.Error = a.Message
		if c.Error == "" {
			c.Error = string(a.Error)
		}
		return nil
	}
	if a.Usage != nil && a.Usage.PromptTokens != nil {
		c.PromptTokens = *a.Usage.PromptTokens
	}
	return nil
}
