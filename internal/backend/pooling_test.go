package backend

import (
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/pyjson"
)

// mustObject decodes one JSON object for a test.
func mustObject(t *testing.T, s string) *pyjson.Object {
	t.Helper()
	o, err := pyjson.DecodeObject([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// TestPoolingBodies: the payloads of vLLM's pooling request functions, key
// for key and in order (vllm/benchmarks/lib/endpoint_request_func.py@11dfa3169:
// async_request_openai_embeddings_clip, _vlm2vec, async_request_infinity_embeddings,
// _clip, async_request_vllm_pooling, async_request_vllm_rerank), with the
// media of Request.MultiModal as the chat content parts vLLM's datasets make.
func TestPoolingBodies(t *testing.T) {
	t.Parallel()
	image := mustObject(t, `{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,AAA"}}`)
	video := mustObject(t, `{"type":"video_url","video_url":{"url":"http://h/v.mp4"}}`)
	media := []*pyjson.Object{image}
	extra := mustObject(t, `{"dimensions":8}`)
	dict := mustObject(t, `{"input":["a","b"],"truncate_prompt_tokens":4,"task":"embed"}`)
	imgPart := `{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,AAA"}}`
	tests := []struct {
		name, backend string
		req           Request
		want          string
	}{
		{"clip text", "openai-embeddings-clip", Request{Prompt: "hi", Model: "m"},
			`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"truncate_prompt_tokens":-1}`},
		{"clip image blanks the text", "openai-embeddings-clip", Request{Prompt: "hi", Model: "m", MultiModal: media},
			`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":""},` + imgPart + `]}],"truncate_prompt_tokens":-1}`},
		{"chat with media after the text", "openai-embeddings-chat", Request{Prompt: "hi", Model: "m", MultiModal: media},
			`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi"},` + imgPart + `]}],"truncate_prompt_tokens":-1}`},
		{"vlm2vec text only", "openai-embeddings-vlm2vec", Request{Prompt: "hi", Model: "m", RequestID: "r-1"},
			`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"truncate_prompt_tokens":-1}`},
		{"vlm2vec even id: image only", "openai-embeddings-vlm2vec", Request{Prompt: "hi", Model: "m", RequestID: "r-12", MultiModal: media},
			`{"model":"m","messages":[{"role":"user","content":[` + imgPart + `,{"type":"text","text":"Represent the given image."}]}],"truncate_prompt_tokens":-1}`},
		{"vlm2vec odd id: question", "openai-embeddings-vlm2vec", Request{Prompt: "hi", Model: "m", RequestID: "r-7", MultiModal: media},
			`{"model":"m","messages":[{"role":"user","content":[` + imgPart + `,{"type":"text","text":"Represent the given image with the following question: hi"}]}],"truncate_prompt_tokens":-1}`},
		{"vlm2vec no id: image only", "openai-embeddings-vlm2vec", Request{Prompt: "hi", Model: "m", MultiModal: media, IgnoreEOS: true},
			`{"model":"m","messages":[{"role":"user","content":[` + imgPart + `,{"type":"text","text":"Represent the given image."}]}],"truncate_prompt_tokens":-1,"ignore_eos":true}`},
		{"vlm2vec id without digits", "openai-embeddings-vlm2vec", Request{Prompt: "hi", Model: "m", RequestID: "abc", MultiModal: media},
			`{"model":"m","messages":[{"role":"user","content":[` + imgPart + `,{"type":"text","text":"Represent the given image."}]}],"truncate_prompt_tokens":-1}`},
		{"infinity text", "infinity-embeddings", Request{Prompt: "hi", Model: "m", ModelName: "served", ExtraBody: *extra},
			`{"model":"served","input":"hi","dimensions":8}`},
		{"infinity batch", "infinity-embeddings", Request{Prompts: []string{"a", "b"}, Model: "m"},
			`{"model":"m","input":["a","b"]}`},
		{"infinity image without text", "infinity-embeddings", Request{Model: "m", MultiModal: media},
			`{"model":"m","input":"data:image/jpeg;base64,AAA","modality":"image"}`},
		{"infinity text beside the image", "infinity-embeddings", Request{Prompt: "hi", Model: "m", MultiModal: media},
			`{"model":"m","input":"hi"}`},
		{"infinity-clip image", "infinity-embeddings-clip", Request{Prompt: "hi", Model: "m", MultiModal: []*pyjson.Object{video}},
			`{"model":"m","input":"http://h/v.mp4","modality":"video"}`},
		{"infinity-clip text", "infinity-embeddings-clip", Request{Prompt: "hi", Model: "m"},
			`{"model":"m","input":"hi"}`},
		{"pooling text", "vllm-pooling", Request{Prompt: "hi", Model: "m"},
			`{"model":"m","truncate_prompt_tokens":-1,"input":"hi"}`},
		{"pooling batch", "vllm-pooling", Request{Prompts: []string{"a", "b"}, Model: "m", IgnoreEOS: true},
			`{"model":"m","truncate_prompt_tokens":-1,"input":["a","b"],"ignore_eos":true}`},
		{"pooling dict prompt merged", "vllm-pooling", Request{PromptObject: dict, Model: "m", ExtraBody: *extra},
			`{"model":"m","truncate_prompt_tokens":4,"input":["a","b"],"task":"embed","dimensions":8}`},
		{"embeddings batch", "openai-embeddings", Request{Prompts: []string{"a", "b"}, Model: "m"},
			`{"model":"m","input":["a","b"],"truncate_prompt_tokens":-1}`},
		{"completions token ids", "vllm", Request{Prompt: "a b", PromptTokenIDs: []int{5, 0, 17}, Model: "m", OutputLen: 3},
			`{"model":"m","prompt":[5,0,17],"repetition_penalty":1.0,"max_tokens":3,"logprobs":null,"stream":true,"stream_options":{"include_usage":true}}`},
		{"completions batch", "openai", Request{Prompts: []string{"a", "b"}, Model: "m"},
			`{"model":"m","prompt":["a","b"],"repetition_penalty":1.0,"max_tokens":0,"logprobs":null,"stream":true,"stream_options":{"include_usage":true}}`},
		{"rerank", "vllm-rerank", Request{Prompts: []string{"q", "d1", "d2"}, Model: "m"},
			`{"model":"m","query":"q","documents":["d1","d2"],"truncate_prompt_tokens":-1}`},
		{"rerank extra body", "vllm-rerank", Request{Prompts: []string{"q", "d1"}, Model: "m", ModelName: "s", ExtraBody: *extra},
			`{"model":"s","query":"q","documents":["d1"],"truncate_prompt_tokens":-1,"dimensions":8}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			impl := spec(t, tt.backend).Impl
			if _, ok := impl.(Pooler); !ok && spec(t, tt.backend).Task == Pooling {
				t.Fatalf("%s is not a Pooler", tt.backend)
			}
			if c, ok := impl.(Checker); ok {
				if err := c.Check(&tt.req); err != nil {
					t.Fatalf("Check: %v", err)
				}
			}
			if got := string(impl.Body(&tt.req)); got != tt.want {
				t.Errorf("\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestPoolingChecks: the requests vLLM's functions assert on are refused
// before the run, saying what the request lacks.
func TestPoolingChecks(t *testing.T) {
	t.Parallel()
	image := mustObject(t, `{"type":"image_url","image_url":{"url":"u"}}`)
	noURL := mustObject(t, `{"type":"image_url","image_url":{}}`)
	tests := []struct {
		backend string
		req     Request
		want    string
	}{
		{"vllm-rerank", Request{Prompt: "one"}, "this one has one text"},
		{"vllm-rerank", Request{Prompts: []string{"q"}}, "a list of 1 text(s)"},
		{"infinity-embeddings", Request{}, "has 0 media items"},
		{"infinity-embeddings", Request{MultiModal: []*pyjson.Object{image, image}}, "has 2 media items"},
		{"infinity-embeddings-clip", Request{Prompt: "x", MultiModal: []*pyjson.Object{noURL}}, `type "image_url" without a URL`},
	}
	for _, tt := range tests {
		err := spec(t, tt.backend).Impl.(Checker).Check(&tt.req)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %+v: error %v, want it to contain %q", tt.backend, tt.req, err, tt.want)
		}
	}
}

// TestPoolingDecode: every pooling backend reads its answer as
// _run_pooling_request does (usage.prompt_tokens), the rerank answer
// included.
func TestPoolingDecode(t *testing.T) {
	t.Parallel()
	answer := `{"id":"rerank-1","model":"m","usage":{"prompt_tokens":12,"total_tokens":12},` +
		`"results":[{"index":1,"document":{"text":"d2"},"relevance_score":0.9}]}`
	for _, name := range []string{"openai-embeddings-clip", "openai-embeddings-vlm2vec", "infinity-embeddings",
		"infinity-embeddings-clip", "vllm-pooling", "vllm-rerank"} {
		var c Chunk
		if err := spec(t, name).Impl.Decode("", []byte(answer), &c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if c.PromptTokens != 12 || c.Error != "" {
			t.Errorf("%s: prompt tokens %d, error %q", name, c.PromptTokens, c.Error)
		}
	}
}
