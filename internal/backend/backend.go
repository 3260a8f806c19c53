// Package backend builds the HTTP requests of one API flavour and decodes its
// stream events, as vLLM's request functions do
// (vllm/benchmarks/lib/endpoint_request_func.py). Client.Do sends one request
// and times it.
//
// Supported now: "openai" and "vllm" (the completions API) and "openai-chat"
// (chat completions). vLLM's other backend names are known (so the command
// line accepts them) but Lookup refuses them with ErrNotSupported.
package backend

import (
	"errors"
	"fmt"
	"sort"
	"strings"
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
	ExtraBody Object
	// RequestID is sent as x-request-id when not empty.
	RequestID string
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
	// Error is the server's message when the event reports an error.
	Error string
}

// Backend is one API flavour.
type Backend interface {
	// Name is the --backend value.
	Name() string
	// ValidateURL checks that apiURL ends with a suffix this API serves
	// (vLLM's _validate_api_url), so a wrong --endpoint fails before any
	// request is sent.
	ValidateURL(apiURL string) error
	// Body returns the JSON payload for req.
	Body(req *Request) []byte
	// Decode parses the data of one event (without "data: ") into c. The
	// event type ("" or e.g. "error") is given because some servers name
	// their error events.
	Decode(eventType string, data []byte, c *Chunk) error
}

// ErrNotSupported marks a backend name vLLM has and gobench does not yet.
var ErrNotSupported = errors.New("not supported yet")

// Names lists every --backend choice vLLM accepts, in its order.
var Names = []string{
	"vllm", "openai", "openai-chat", "openai-audio", "openai-embeddings",
	"openai-embeddings-chat", "openai-embeddings-clip", "openai-embeddings-vlm2vec",
	"infinity-embeddings", "infinity-embeddings-clip", "vllm-pooling", "vllm-rerank",
	"openai-responses",
}

// OpenAICompatible lists the backends that take sampling parameters
// (vLLM's OPENAI_COMPATIBLE_BACKENDS).
var OpenAICompatible = []string{"vllm", "openai", "openai-chat", "openai-responses"}

// IsOpenAICompatible reports whether name takes sampling parameters.
func IsOpenAICompatible(name string) bool {
	for _, n := range OpenAICompatible {
		if n == name {
			return true
		}
	}
	return false
}

// Lookup returns the backend called name.
func Lookup(name string) (Backend, error) {
	switch name {
	case "openai", "vllm":
		return Completions{name: name}, nil
	case "openai-chat":
		return Chat{}, nil
	}
	for _, n := range Names {
		if n == name {
			return nil, fmt.Errorf("--backend %s: %w (supported: openai, vllm, openai-chat)", name, ErrNotSupported)
		}
	}
	return nil, fmt.Errorf("unknown backend %q", name)
}

// validateSuffix reproduces vLLM's _validate_api_url and its message.
func validateSuffix(apiURL, apiName string, suffixes ...string) error {
	all := append([]string{"profile"}, suffixes...)
	for _, s := range all {
		if strings.HasSuffix(apiURL, s) {
			return nil
		}
	}
	sort.Strings(all)
	quoted := make([]string, len(all))
	for i, s := range all {
		quoted[i] = "'" + s + "'"
	}
	return fmt.Errorf("%s URL must end with one of: {%s}.", apiName, strings.Join(quoted, ", "))
}
