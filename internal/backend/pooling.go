package backend

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gobench/gobench/internal/pyjson"
)

// The pooling backends beyond openai-embeddings and openai-embeddings-chat,
// as vllm/benchmarks/lib/endpoint_request_func.py@11dfa3169 sends them.
// Every one answers with one JSON body (Pooler), read by decodePooling.
type (
	// EmbeddingsClip is --backend openai-embeddings-clip
	// (async_request_openai_embeddings_clip): the chat embeddings
	// request, with the text left empty when the request carries media
	// (_preprocess_clip), since a CLIP model embeds either the image or the
	// text.
	EmbeddingsClip struct{}
	// EmbeddingsVLM2Vec is --backend openai-embeddings-vlm2vec
	// (async_request_openai_embeddings_vlm2vec): the chat embeddings
	// request with the media before the text, and with media the text
	// becomes VLM2Vec's instruction (_preprocess_vlm2vec).
	EmbeddingsVLM2Vec struct{}
	// Infinity is --backend infinity-embeddings
	// (async_request_infinity_embeddings): Infinity's /embeddings, whose
	// input is the text, or without text the media's URL with its
	// modality.
	Infinity struct{}
	// InfinityClip is --backend infinity-embeddings-clip
	// (async_request_infinity_embeddings_clip): Infinity's request after
	// CLIP's blanking of the text when media is present.
	InfinityClip struct{}
	// VLLMPooling is --backend vllm-pooling (async_request_vllm_pooling):
	// vLLM's /pooling, whose payload takes a dict prompt's fields, or the
	// prompt as its input.
	VLLMPooling struct{}
	// Rerank is --backend vllm-rerank (async_request_vllm_rerank): vLLM's
	// /rerank with the prompt's first text as the query and the rest as
	// the documents.
	Rerank struct{}
)

var (
	_ Pooler  = EmbeddingsClip{}
	_ Pooler  = EmbeddingsVLM2Vec{}
	_ Pooler  = Infinity{}
	_ Pooler  = InfinityClip{}
	_ Pooler  = VLLMPooling{}
	_ Pooler  = Rerank{}
	_ Checker = Infinity{}
	_ Checker = InfinityClip{}
	_ Checker = Rerank{}
)

// vlm2vecImageOnly and vlm2vecQuestion are VLM2Vec's instructions
// (_preprocess_vlm2vec).
const (
	vlm2vecImageOnly = "Represent the given image."
	vlm2vecQuestion  = "Represent the given image with the following question: "
)

// Body implements Backend: openai-embeddings-chat's payload with the text
// "" when the request has media.
func (EmbeddingsClip) Body(req *Request) []byte {
	return embeddingsChatBody(clipPrompt(req), req, false)
}

// Decode implements Backend for the whole answer (see Pooler).
func (EmbeddingsClip) Decode(_ string, data []byte, c *Chunk) error { return decodePooling(data, c) }

// Pooling implements Pooler.
func (EmbeddingsClip) Pooling() {}

// Body implements Backend: openai-embeddings-chat's payload with the media
// parts before the text part (mm_position "first"); with media, the text is
// "Represent the given image." when the request id ends in an even number
// or in no digit, else the question form followed by the prompt, so that
// half the requests embed the image alone.
func (EmbeddingsVLM2Vec) Body(req *Request) []byte {
	prompt := promptValue(req)
	if len(req.MultiModal) > 0 {
		if odd, ok := requestIndexOdd(req.RequestID); ok && odd {
			prompt = vlm2vecQuestion + req.Prompt
		} else {
			prompt = vlm2vecImageOnly
		}
	}
	return embeddingsChatBody(prompt, req, true)
}

// Decode implements Backend for the whole answer (see Pooler).
func (EmbeddingsVLM2Vec) Decode(_ string, data []byte, c *Chunk) error {
	return decodePooling(data, c)
}

// Pooling implements Pooler.
func (EmbeddingsVLM2Vec) Pooling() {}

// Body implements Backend: model, then input (the text, or the list of
// texts of a batched prompt); without text, input is the URL of the
// request's one media part and modality its type before "_" ("image" for
// "image_url"); then ignore_eos and --extra-body.
func (Infinity) Body(req *Request) []byte { return infinityBody(req, false) }

// Check implements Checker: without text, the request needs exactly one
// media part with a URL (vLLM asserts a dict).
func (Infinity) Check(req *Request) error { return infinityCheck(req, false) }

// Decode implements Backend for the whole answer (see Pooler).
func (Infinity) Decode(_ string, data []byte, c *Chunk) error { return decodePooling(data, c) }

// Pooling implements Pooler.
func (Infinity) Pooling() {}

// Body implements Backend: Infinity's payload after CLIP's blanking of the
// text when media is present.
func (InfinityClip) Body(req *Request) []byte { return infinityBody(req, true) }

// Check implements Checker (see Infinity.Check).
func (InfinityClip) Check(req *Request) error { return infinityCheck(req, true) }

// Decode implements Backend for the whole answer (see Pooler).
func (InfinityClip) Decode(_ string, data []byte, c *Chunk) error { return decodePooling(data, c) }

// Pooling implements Pooler.
func (InfinityClip) Pooling() {}

// Body implements Backend: model and truncate_prompt_tokens -1, then a
// dict prompt's fields (Python's payload | prompt: its keys win, new ones
// follow in order) or "input": the prompt; then ignore_eos and
// --extra-body.
func (VLLMPooling) Body(req *Request) []byte {
	var o pyjson.Object
	o.Set("model", modelField(req))
	o.Set("truncate_prompt_tokens", -1)
	if req.PromptObject != nil {
		o.Update(req.PromptObject)
	} else {
		o.Set("input", promptValue(req))
	}
	return poolingBody(&o, req)
}

// Decode implements Backend for the whole answer (see Pooler).
func (VLLMPooling) Decode(_ string, data []byte, c *Chunk) error { return decodePooling(data, c) }

// Pooling implements Pooler.
func (VLLMPooling) Pooling() {}

// Body implements Backend: model, query (the prompt's first text),
// documents (the others), truncate_prompt_tokens -1, then ignore_eos and
// --extra-body as later vLLM merges them (the pinned function dropped
// --extra-body).
func (Rerank) Body(req *Request) []byte {
	var o pyjson.Object
	o.Set("model", modelField(req))
	var query string
	docs := []string{}
	if len(req.Prompts) > 0 {
		query, docs = req.Prompts[0], req.Prompts[1:]
	}
	o.Set("query", query)
	o.Set("documents", docs)
	o.Set("truncate_prompt_tokens", -1)
	return poolingBody(&o, req)
}

// Check implements Checker: the prompt must be a query and at least one
// document (vLLM asserts a list of more than one text).
func (Rerank) Check(req *Request) error {
	if len(req.Prompts) < 2 {
		return errors.New("a rerank request needs a query and at least one document (a list prompt, " +
			"as --dataset-name random-rerank makes); this one has " + promptShape(req))
	}
	return nil
}

// Decode implements Backend for the whole answer (see Pooler).
func (Rerank) Decode(_ string, data []byte, c *Chunk) error { return decodePooling(data, c) }

// Pooling implements Pooler.
func (Rerank) Pooling() {}

// embeddingsChatBody is async_request_openai_embeddings_chat's payload for
// prompt: model, messages (one user message: the text part and the media
// parts, media first or last), truncate_prompt_tokens -1, then ignore_eos
// and --extra-body.
func embeddingsChatBody(prompt any, req *Request, mediaFirst bool) []byte {
	var o pyjson.Object
	o.Set("model", modelField(req))
	o.Set("messages", promptMessages(prompt, req.MultiModal, mediaFirst))
	o.Set("truncate_prompt_tokens", -1)
	return poolingBody(&o, req)
}

// clipPrompt is _preprocess_clip: the text is dropped when the request
// has media.
func clipPrompt(req *Request) any {
	if len(req.MultiModal) > 0 {
		return ""
	}
	return promptValue(req)
}

// requestIndexOdd reads the number that ends a request id, as vLLM's
// _try_extract_request_idx does (the digits at its end), and tells whether
// it is odd; ok is false when the id ends in no digit. Only the last digit
// decides, so an index of any length is read.
func requestIndexOdd(id string) (odd, ok bool) {
	if id == "" {
		return false, false
	}
	last := id[len(id)-1]
	if last < '0' || last > '9' {
		return false, false
	}
	return (last-'0')%2 == 1, true
}

// promptValue is the prompt as vLLM passes it on: the list of a batched
// prompt, the dicts of a list[dict] prompt, else the text.
func promptValue(req *Request) any {
	switch {
	case req.Prompts != nil:
		return req.Prompts
	case req.PromptParts != nil:
		return req.PromptParts
	}
	return req.Prompt
}

// infinityPrompt is the prompt Infinity's request function sees, after
// CLIP's preprocessing when clip is true, and its Python truthiness.
func infinityPrompt(req *Request, clip bool) (any, bool) {
	switch {
	case clip && len(req.MultiModal) > 0:
		return "", false
	case req.Prompts != nil:
		return req.Prompts, len(req.Prompts) > 0
	}
	return req.Prompt, req.Prompt != ""
}

// infinityBody is async_request_infinity_embeddings' payload.
func infinityBody(req *Request, clip bool) []byte {
	var o pyjson.Object
	o.Set("model", modelField(req))
	if prompt, ok := infinityPrompt(req, clip); ok {
		o.Set("input", prompt)
	} else {
		typ, url, _ := mediaURL(req.MultiModal) // Check refused the rest
		o.Set("input", url)
		o.Set("modality", strings.SplitN(typ, "_", 2)[0])
	}
	return poolingBody(&o, req)
}

// infinityCheck refuses what infinityBody cannot send: a request without
// text and not exactly one media part with a URL.
func infinityCheck(req *Request, clip bool) error {
	if _, ok := infinityPrompt(req, clip); ok {
		return nil
	}
	if _, _, err := mediaURL(req.MultiModal); err != nil {
		return fmt.Errorf("an Infinity request without text sends one media item's URL, and this one %w", err)
	}
	return nil
}

// mediaURL returns the type and URL of the one media part of an Infinity
// request: {"type": T, T: {"url": URL}}.
func mediaURL(media []*pyjson.Object) (typ, url string, err error) {
	if len(media) != 1 {
		return "", "", fmt.Errorf("has %d media items", len(media))
	}
	t, _ := media[0].Get("type")
	typ, _ = t.(string)
	inner, _ := media[0].Get(typ)
	obj, _ := inner.(*pyjson.Object)
	if obj == nil {
		return "", "", fmt.Errorf("has a media item of type %q without its %q object", typ, typ)
	}
	u, _ := obj.Get("url")
	if url, _ = u.(string); url == "" {
		return "", "", fmt.Errorf("has a media item of type %q without a URL", typ)
	}
	return typ, url, nil
}

// promptShape describes a request's prompt for an error message.
func promptShape(req *Request) string {
	switch {
	case req.Prompts != nil:
		return fmt.Sprintf("a list of %d text(s)", len(req.Prompts))
	case req.PromptObject != nil:
		return "a dict prompt"
	}
	return "one text"
}
