// Package sim is gobench's built-in OpenAI-compatible server: a stand-in for
// vLLM's API server that the tests, `make demo` and local benchmark runs talk
// to instead of a GPU, whose truth is known.
//
// It serves what `vllm bench serve` calls (POST /v1/completions,
// POST /v1/chat/completions, GET /v1/models, GET /health, POST
// /start_profile and /stop_profile; /reset_prefix_cache, which empties the
// engine model's prefix cache between sweep points), and /v1/embeddings, /v1/responses
// (streamed, named events: responses.go), /v1/audio/transcriptions and
// /v1/audio/translations (a multipart WAV upload; audio.go), /embeddings
// (Infinity's), /pooling and /rerank (pooling.go), /tokenize, /detokenize
// and /metrics, with the wire format that vLLM's OpenAI
// server emits, so the client code under test parses exactly what it would
// parse in production.
//
// # Timing
//
// When tokens appear is decided by an [Engine], not by the HTTP layer.
//
// [FixedLatency] has no contention: the first token event of a request is
// due at receipt + TTFT and token k (0-based) at receipt + TTFT + k·ITL. The
// timeline is absolute, so a late wake-up never delays the tokens after it.
// It is what gobench's own tests and `make bench` measure the client
// against.
//
// [Scheduler] (Config.Scheduler) models vLLM's engine: a loop of steps, each
// with a token budget, running requests first and waiting ones admitted up
// to a sequence limit, chunked prefill, a KV cache of blocks with
// preemption of the newest running request and prefix caching, speculative
// decoding, and a step time that grows with the batch; see core for the
// rules and SchedulerConfig for the cost model. Its outputs carry the
// engine's timestamps, from which /metrics and the per-request metrics
// derive vLLM's intervals (queue to first SCHEDULED, prefill, decode,
// inference). --stream-interval (Config.StreamInterval) groups outputs
// into events as vLLM's output processor does.
//
// # Metrics, faults, ground truth
//
// /metrics serves vLLM's Prometheus families with their names, types, help,
// labels and buckets (promMetrics); Serve prints vLLM's periodic stats line
// to the logger (statLogger). Config.Faults makes chosen requests fail as
// real servers do (FaultKind). Config.Record receives the ground truth of
// every request: the send instant of each event on CLOCK_MONOTONIC and the
// server-side intervals (recorder).
//
// # Scenarios
//
// Besides typical servers, the presets hold one scenario per verdict of
// the diagnosis of a slow server (healthy, a sequence limit, a thrashing or
// a full KV cache, head-of-line blocking, a disabled prefix cache, a slow
// front end, prefill interference, an overloaded batch): a [Preset] with a
// Verdict is the 8B engine model made sick in one way, and its Load is the
// `gobench serve` load that shows it in a few seconds.
//
// # Configuration and start-up
//
// [Options] are the knobs as a user gives them, by name and as text: the
// flags of `gobench sim` and, prefixed "sim-", of `gobench serve --sim`,
// and a YAML config file of the same names ([Knobs] lists them with their
// defaults and help). [Options.Config] applies config file, preset and
// given knobs, chooses the engine and validates the result, naming the flag
// or the file and line of a mistake. [Start] serves a Config in the
// background, with its record file, until [Running.Close].
//
// # Wire format
//
// Streaming responses are Server-Sent Events, one `data: {json}\n\n` per
// event, flushed one by one, ending with `data: [DONE]\n\n`. The JSON of
// each event is byte-for-byte what vLLM's pydantic models dump
// (model_dump_json(exclude_unset=True)): compact, fields in declaration
// order, non-ASCII left as UTF-8.
//
// Completions token event:
//
//	{"id":"cmpl-ID","object":"text_completion","created":T,"model":M,
//	 "choices":[{"index":0,"text":" word","logprobs":null,"finish_reason":null,"stop_reason":null}]}
//
// Chat token event:
//
//	{"id":"chatcmpl-ID","object":"chat.completion.chunk","created":T,"model":M,
//	 "choices":[{"index":0,"delta":{"content":" word"},"logprobs":null,"finish_reason":null}]}
//
// The last token event carries finish_reason "length" (max tokens reached)
// or "stop" (end of sequence) and, as in vLLM, `"stop_reason":null`. A stop
// is modelled as vLLM's EOS: the final token is a special token that
// detokenizes to "", so the last event has empty text but still counts as a
// completion token.
//
// Chat streams start with a role event,
//
//	{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}], ...}
//
// sent, as vLLM's serving_chat does, on the first iteration over the
// engine's outputs, that is at the first token's time and immediately
// before the first content event. Its choices list is non-empty, so vLLM's
// benchmark client counts it as the first token event: TTFT is measured on
// it and the gap to the first content event (≈0) is the first ITL sample.
// The simulator keeps that quirk on purpose, because a real vLLM server
// produces it and the port must measure it the same way.
//
// With stream_options.include_usage (true when stream_options is present
// without the field, as in vLLM) a usage event with an empty choices list,
//
//	{"id":...,"object":...,"created":T,"model":M,"choices":[],
//	 "usage":{"prompt_tokens":N,"total_tokens":N+K,"completion_tokens":K}}
//
// precedes [DONE]. The response id is "cmpl-{x-request-id}" or
// "chatcmpl-{x-request-id}" when that header is present, else a random
// 32-digit hex id, as in vLLM.
//
// # Errors
//
// Request errors use vLLM's ErrorResponse shape,
// {"error":{"message":...,"type":...,"param":...,"code":N}}: body
// validation failures (malformed JSON, a missing prompt or messages field, a
// wrongly typed field) are 400 with type "Bad Request" and param the field
// path, as vLLM's RequestValidationError handler writes them; an unknown
// model is 404 "NotFoundError" ("The model `x` does not exist."); other
// rejected values are 400 "BadRequestError". Unknown paths and wrong methods
// get FastAPI's own {"detail":"Not Found"} (404) and
// {"detail":"Method Not Allowed"} (405), which vLLM does not wrap.
package sim
