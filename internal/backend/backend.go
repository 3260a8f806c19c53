// Package backend builds the HTTP requests of one API flavour and decodes its
// stream events, as vLLM's request functions do
// (vllm/benchmarks/lib/endpoint_request_func.py). Client.Do sends one request
// and times it.
//
// Every backend is described once, by its Spec (backend.go): name,
// endpoints, task, streaming, sampling parameters and its Backend, which
// builds the payload and decodes the events. Supported now: "openai" and
// "vllm" (the completions API), "openai-chat" (chat completions),
// "openai-audio" (transcriptions and translations, a multipart upload),
// "openai-responses" (the Responses API, named events), and vLLM's eight
// pooling backends (embeddings, Infinity, pooling, rerank), whose answers
// are one body (Pooler) rather than a stream; vLLM's
// other backends have a Spec without a Backend, so the command line knows
// them, and Lookup refuses them with exitcode.ErrNotSupported.
package backend

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/pyjson"
)

// Header is one extra HTTP header (--header KEY=VALUE).
type Header struct{ Key, Value string }

// Request is one request to send: vLLM's RequestFuncInput.
type Request struct {
	// Prompt is the prompt text.
	Prompt string
	// APIURL is the full endpoint URL (base URL + --endpoint).
	APIURL string
	// PromptLen is the dataset's prompt length in tokens.
	PromptLen int
	// OutputLen is the requested number of output tokens (max_tokens).
	OutputLen int
	// Model is the model id; ModelName, when set, is sent instead.
	Model, ModelName string
	// Logprobs is the completions "logprobs" field (nil sends null).
	Logprobs *int
	// IgnoreEOS adds "ignore_eos": true.
	IgnoreEOS bool
	// ExtraHeaders are sent on top of the defaults and override them.
	ExtraHeaders []Header
	// ExtraBody is merged into the payload last (dict.update).
	ExtraBody pyjson.Object
	// RequestID is sent as x-request-id when not empty.
	RequestID string
	// Prompts, when not nil, is a prompt of several texts (vLLM's list[str]
	// prompt: batched embedding inputs, or a rerank query and its
	// documents); Prompt is then empty.
	Prompts []string
	// PromptObject, when not nil, is a dict prompt (vllm-pooling).
	PromptObject *pyjson.Object
	// MultiModal are the request's media as chat content parts, in order.
	MultiModal []*pyjson.Object
	// AudioWAV is the clip openai-audio uploads, AudioDuration its length
	// in seconds; nil and 0 without audio.
	AudioWAV      []byte
	AudioDuration float64
	// PromptTokenIDs, when not nil, are sent instead of Prompt
	// (--prompt-token-ids).
	PromptTokenIDs []int
	// PromptParts, when not nil, is a prompt of dicts (vLLM's list[dict]
	// prompt): chat messages, sent as the messages verbatim, or content
	// parts, sent as the user message's content; Prompt is then empty.
	PromptParts []*pyjson.Object
	// History, when not nil, are the earlier messages of a conversation
	// (--multi-turn: each earlier user turn and the answer the server
	// gave it), which a chat request sends before Prompt's message.
	History []Message
}

// Message is one earlier message of a conversation.
type Message struct {
	// Role is "user" or "assistant".
	Role string
	// Content is the message's text.
	Content string
}

// Chunk is what one stream event contributed.
type Chunk struct {
	// Token is true when the event has a non-empty "choices" list: it counts
	// for TTFT and ITL even when its text is empty (vLLM: special tokens).
	Token bool
	// Text is the generated text of a token event.
	Text string
	// Usage is true when the event carries a non-empty "usage" object and no
	// choices.
	Usage bool
	// CompletionTokens and PromptTokens are the usage numbers; -1 when absent.
	CompletionTokens, PromptTokens int
	// CachedTokens is usage.prompt_tokens_details.cached_tokens; -1 when absent.
	CachedTokens int
	// ServerQueueMS and ServerTTFTMS come from the "metrics" object of vLLM's
	// --enable-per-request-metrics; -1 when absent.
	ServerQueueMS, ServerTTFTMS float64
	// ServerPromptMS and ServerDecodeMS come from llama.cpp's "timings"
	// object (prompt_ms, predicted_ms) in its last chunk; -1 when absent.
	ServerPromptMS, ServerDecodeMS float64
	// Error is the server's message when the event reports an error.
	Error string
	// Terminal is true for an event that ends the response (the Responses
	// API's response.completed): its clock reading ends the latency and
	// the request.
	Terminal bool
}

// noChunk is a Chunk with every number absent (-1), where decoding starts.
func noChunk() Chunk {
	return Chunk{CompletionTokens: -1, PromptTokens: -1, CachedTokens: -1, ServerQueueMS: -1, ServerTTFTMS: -1,
		ServerPromptMS: -1, ServerDecodeMS: -1}
}

// terminalStream is a Backend whose streams end with a terminal event
// (Chunk.Terminal) rather than [DONE]: a stream without one failed.
type terminalStream interface {
	EndsWithTerminalEvent() bool
}

// Backend builds the payload of one API flavour and decodes its stream
// events. Everything else about a --backend (its endpoints, whether it
// streams, whether it takes sampling parameters) is in its Spec.
type Backend interface {
	// Body returns the payload for req: JSON, unless the Backend is a
	// ContentTyper.
	Body(req *Request) []byte
	// Decode parses the data of one event (without "data: ") into c. The
	// event type ("" or e.g. "error") is given because some servers name
	// their error events.
	Decode(eventType string, data []byte, c *Chunk) error
}

// Task is what a backend asks the server to do; it decides vLLM's default
// --percentile-metrics (serve.py@11dfa3169 main_async).
type Task int

// The tasks.
const (
	// Generation streams generated tokens (completions, chat, audio,
	// responses).
	Generation Task = iota
	// Pooling returns one answer per request (embeddings, pooling, rerank).
	Pooling
)

// Spec describes one --backend. Everything that depends on which backend
// a run uses asks its Spec, so a backend is added by adding its entry to
// specs and its Backend in a file of its own (see docs/architecture.md).
type Spec struct {
	// Name is the --backend value.
	Name string
	// APIName names the API in vLLM's endpoint error message.
	APIName string
	// Suffixes are the endpoint endings the API serves (vLLM's
	// _validate_api_url; "profile" is always accepted besides them).
	Suffixes []string
	// DefaultEndpoint is the path a server of this API serves it at.
	DefaultEndpoint string
	// Task is generation or pooling.
	Task Task
	// Streaming: responses arrive as a stream of events.
	Streaming bool
	// SamplingParams: the API takes sampling parameters (vLLM's
	// OPENAI_COMPATIBLE_BACKENDS).
	SamplingParams bool
	// RefusedParams are sampling parameters the API does not take, refused
	// before anything is sent (the Responses API has no min_p, so the later
	// vLLM rejects --min-p for openai-responses:
	// test_responses_request_func.py@34d570f4).
	RefusedParams []string
	// Impl builds and decodes the requests; nil means gobench does not have
	// this backend yet, and asking for it fails with
	// exitcode.ErrNotSupported.
	Impl Backend
}

// Supported reports whether gobench can benchmark the backend.
func (s *Spec) Supported() bool { return s.Impl != nil }

// ValidateURL checks that apiURL ends with a suffix the API serves
// (vLLM's _validate_api_url, which also lets "profile" through), so a
// wrong --endpoint fails before any request is sent. The message names
// the suffixes plainly instead of printing vLLM's Python set.
func (s *Spec) ValidateURL(apiURL string) error {
	for _, suffix := range append([]string{"profile"}, s.Suffixes...) {
		if strings.HasSuffix(apiURL, suffix) {
			return nil
		}
	}
	return fmt.Errorf("the %s URL must end with %s", s.APIName, strings.Join(s.Suffixes, " or "))
}

// specs lists every --backend vLLM accepts, in its order
// (vllm/benchmarks/lib/endpoint_request_func.py@11dfa3169
// ASYNC_REQUEST_FUNCS, plus the later openai-responses).
var specs = []Spec{
	{Name: "vllm", APIName: "OpenAI Completions API", Suffixes: []string{"completions"}, DefaultEndpoint: "/v1/completions",
		Streaming: true, SamplingParams: true, Impl: Completions{}},
	{Name: "openai", APIName: "OpenAI Completions API", Suffixes: []string{"completions"}, DefaultEndpoint: "/v1/completions",
		Streaming: true, SamplingParams: true, Impl: Completions{}},
	{Name: "openai-chat", APIName: "OpenAI Chat Completions API", Suffixes: []string{"chat/completions"},
		DefaultEndpoint: "/v1/chat/completions", Streaming: true, SamplingParams: true, Impl: Chat{}},
	{Name: "openai-audio", APIName: "OpenAI Audio API", Suffixes: []string{"transcriptions", "translations"},
		DefaultEndpoint: "/v1/audio/transcriptions", Streaming: true, Impl: Audio{}},
	{Name: "openai-embeddings", APIName: "OpenAI Embeddings API", Suffixes: []string{"embeddings"},
		DefaultEndpoint: "/v1/embeddings", Task: Pooling, Impl: Embeddings{}},
	{Name: "openai-embeddings-chat", APIName: "OpenAI Embeddings API", Suffixes: []string{"embeddings"},
		DefaultEndpoint: "/v1/embeddings", Task: Pooling, Impl: EmbeddingsChat{}},
	{Name: "openai-embeddings-clip", APIName: "OpenAI Embeddings API", Suffixes: []string{"embeddings"},
		DefaultEndpoint: "/v1/embeddings", Task: Pooling, Impl: EmbeddingsClip{}},
	{Name: "openai-embeddings-vlm2vec", APIName: "OpenAI Embeddings API", Suffixes: []string{"embeddings"},
		DefaultEndpoint: "/v1/embeddings", Task: Pooling, Impl: EmbeddingsVLM2Vec{}},
	{Name: "infinity-embeddings", APIName: "Infinity Embeddings API", Suffixes: []string{"embeddings"},
		DefaultEndpoint: "/embeddings", Task: Pooling, Impl: Infinity{}},
	{Name: "infinity-embeddings-clip", APIName: "Infinity Embeddings API", Suffixes: []string{"embeddings"},
		DefaultEndpoint: "/embeddings", Task: Pooling, Impl: InfinityClip{}},
	{Name: "vllm-pooling", APIName: "vLLM Pooling API", Suffixes: []string{"pooling"}, DefaultEndpoint: "/pooling",
		Task: Pooling, Impl: VLLMPooling{}},
	{Name: "vllm-rerank", APIName: "vLLM score API", Suffixes: []string{"rerank"}, DefaultEndpoint: "/rerank",
		Task: Pooling, Impl: Rerank{}},
	{Name: "openai-responses", APIName: "OpenAI Responses API", Suffixes: []string{"responses"},
		DefaultEndpoint: "/v1/responses", Streaming: true, SamplingParams: true, RefusedParams: []string{"min_p"},
		Impl: Responses{}},
}

// Specs returns every backend vLLM accepts, supported or not, in vLLM's
// order.
func Specs() []Spec { return slices.Clone(specs) }

// Names lists every --backend choice vLLM accepts, in its order.
func Names() []string {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	return names
}

// Lookup returns the Spec of a supported backend; a backend vLLM has and
// gobench does not yet fails with exitcode.ErrNotSupported.
func Lookup(name string) (*Spec, error) {
	spec, err := LookupSpec(name)
	if err != nil {
		return nil, err
	}
	if !spec.Supported() {
		var supported []string
		for _, s := range specs {
			if s.Supported() {
				supported = append(supported, s.Name)
			}
		}
		return nil, fmt.Errorf("--backend %s: %w (supported: %s)", name, exitcode.ErrNotSupported, strings.Join(supported, ", "))
	}
	return spec, nil
}

// LookupSpec returns the Spec of any backend vLLM accepts, supported or
// not.
func LookupSpec(name string) (*Spec, error) {
	for i := range specs {
		if specs[i].Name == name {
			return &specs[i], nil
		}
	}
	return nil, fmt.Errorf("unknown backend %q", name)
}
