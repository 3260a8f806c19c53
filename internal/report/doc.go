// Package report renders a metrics.Result the way vllm bench serve does:
// the printed result block (Text, with Failures and Warnings for the lines
// around it) and the result file (ResultObject, Filename, PrepareSave and Save), using
// package pyjson's writer (pyjson.Object, pyjson.AppendPython), which
// reproduces Python's json.dump byte for byte.
//
// # Printed block
//
// Text prints vLLM's block character for character: "{:<40} {:<10}" lines
// with their trailing spaces, Python's .2f rounding, centred 50-character
// headers ("=" for the title, "-" for sections), one section per selected
// metric with "Mean", "Median" and "P{p}" lines, the Speculative Decoding
// section, and a closing line of 50 "=". See Text for the conditional
// lines.
//
// # Result file
//
// The result file is one JSON object on one line (JSON Lines when
// appending), encoded as Python's json.dump with default arguments:
// separators ", " and ": ", non-ASCII escaped as \uXXXX, floats in Python's
// repr ("1.0", "1e-05"). Unlike vLLM, infinite and NaN floats are written as
// the strings "inf", "-inf", "nan" (vLLM writes bare Infinity, which is not
// JSON); vLLM itself already writes request_rate as "inf".
//
// The keys, their order and when each is present are package resultkey's
// schema, which every reader of result files asks; to add a key, follow
// the list of files in resultkey's documentation (this list is one of
// them). Keys, in order (all times in seconds unless the name ends in
// _ms):
//
//	date                     string, local start time "YYYYMMDD-HHMMSS"
//	endpoint_type            string, = backend (kept by vLLM for backward compatibility)
//	backend                  string, --backend
//	label                    string or null, --label
//	model_id                 string
//	tokenizer_id             string or null (null with --skip-tokenizer-init)
//	num_prompts              int, the --num-prompts flag
//	<metadata keys>          string, one per --metadata KEY=VALUE, in flag order
//	request_rate             number, or "inf"
//	burstiness               number, or "inf"
//	max_concurrency          int or null
//	ramp_up_strategy         string  } only with --ramp-up-strategy
//	ramp_up_start_rps        int     }
//	ramp_up_end_rps          int     }
//	duration                 number, benchmark duration
//	completed                int, successful requests
//	failed                   int, failed requests
//	total_input_tokens       int, sum of prompt lengths of successful requests
//	total_output_tokens      int, sum of output lengths
//	request_throughput       number, completed / duration (req/s)
//	request_goodput          number (req/s), or null without --goodput
//	output_throughput        number, total_output_tokens / duration (tok/s)
//	total_token_throughput   number, (input + output tokens) / duration (tok/s)
//	input_lens               [int], per request prompt length          } detailed
//	output_lens              [int], per request output length, 0 if failed } only
//	ttfts                    [number], per request TTFT (0 if failed)   }
//	itls                     [[number]], per request inter-token gaps   }
//	latencies                [number], per request E2E latency          }
//	start_times              [number], per request send time (monotonic clock) }
//	queue_times              [number], per request client queue time    }
//	generated_texts          [string], per request output text          }
//	errors                   [string], per request error ("" on success) }
//	server_queue_times       [number or null], server's queue time } detailed only, when the
//	server_ttfts             [number or null], server's TTFT       } server reports them
//	server_prompt_times      [number or null], the server's own prompt time (s) } gobench; detailed
//	server_decode_times      [number or null], the server's own generation time (s) } only, when the
//	                         answers carry them (llama.cpp's timings.prompt_ms, predicted_ms)
//	max_output_tokens_per_s  number, peak token events in a one-second bin
//	max_concurrent_requests  int, exact peak of overlapping requests
//	rtfx                     number, audio seconds / duration (0 without audio)
//	total_cached_tokens      int, only with --report-cached-tokens when reported
//	rps_change_events        [{"rps": int, "timestamp": string}], ramp-up only
//	spec_decode_acceptance_rate               number (percent)  } only when the
//	spec_decode_acceptance_length             number            } server exposes
//	spec_decode_num_drafts                    int               } spec-decode
//	spec_decode_draft_tokens                  int               } counters
//	spec_decode_accepted_tokens               int               }
//	spec_decode_per_position_acceptance_rates [number] (fractions) }
//	mean_{m}_ms, median_{m}_ms, std_{m}_ms, p{p}_{m}_ms
//	                         number, per reported metric m in the order ttft,
//	                         tpot, itl (with a tokenizer), e2el,
//	                         client_queue_time, e2el_including_client_queue
//	                         (see resultkey.Selection.Sections), and per
//	                         --metric-percentiles value p ("99", "99.9",
//	                         resultkey.PercentileLabel)
//	num_warmups              int, --num-warmups
//	gobench_workload         object, gobench's record of the workload (every gobench serve result):
//	  dataset_name           string, --dataset-name
//	  dataset_path           string or null, --dataset-path
//	  <dataset flags>        the dataset's own flags under vLLM's argument names and with their
//	                         values as the run used them (random: random_input_len,
//	                         random_output_len, random_prefix_len, random_range_ratio (a number,
//	                         or {"input": r, "output": r}), random_batch_size; sharegpt:
//	                         sharegpt_output_len (null: each answer's length); custom:
//	                         custom_output_len)
//	  seed                   int, --seed
//	  schedule_seed          int, the seed of the arrivals when it is not --seed's (run k > 1 of
//	                         serve --num-runs without --same-seed: --seed + k - 1); absent otherwise
//	  prefix_cache           str, how a run of a set or a sweep point was kept from the runs
//	                         before it: "reset" (POST /reset_prefix_cache before it),
//	                         "fresh_prompts" (no reset offered: prompts of its own, seed is
//	                         the dataset's), "warm" (--warm-cache); absent for a single run
//	                         without --reset-prefix-cache
//	  duration               float, --duration in seconds; absent without it
//	  warmup_duration        float, --warmup-duration in seconds; absent without it
//	  warmup_requests        int, requests released in the warm-up window (sent, left out
//	                         of every figure); with warmup_duration
//	  ignore_eos             bool, whether the requests carried ignore_eos (--ignore-eos, or
//	                         forced by the dataset)
//	  sampling_params        object, the sampling flags given ({"temperature": 0.0, ...}; {} none)
//	  goodput                object or null, the --goodput SLOs in ms ({"ttft": 500.0})
//	  percentile_metrics     string, --percentile-metrics as used ("ttft,tpot,itl")
//	  metric_percentiles     string, --metric-percentiles as used ("99")
//	  tokenizer_mode         string, --tokenizer-mode
//	  tokenizer_source       string or null, where the tokenizer named by tokenizer_id was found:
//	                         "builtin", "huggingface" (a local file or folder, the HF cache or a
//	                         download) or "server" (its /tokenize); null without a tokenizer
//	  command                string, the command line as gobench parsed it (each flag as
//	                         --name=value), with secrets redacted: credential-looking --header
//	                         values, credentials in URLs, and the values of OPENAI_API_KEY and
//	                         HF_TOKEN wherever they appear
//	gobench_version          string, `gobench version`'s version (a tag, a module
//	                         pseudo-version or "devel <commit>"), written with gobench_workload
//	resent_requests          int, requests sent a second time, once, on a new connection, because the
//	                         server closed a reused keep-alive connection before any byte of an
//	                         answer; each counts once (written with gobench_workload)
//	failure_kinds            [object], the failed requests grouped by kind, the most frequent
//	                         first ([] when none failed; written with gobench_workload):
//	  kind                   string, "connection refused", "connection closed (unexpected EOF)",
//	                         "HTTP 503", "read timeout (--read-timeout)", ..., else the text's first line
//	  count                  int, the failed requests of that kind
//	  example                string, the first error text of that kind, verbatim
//	server_view              object, the server's own account of the run from its /metrics (when
//	                         it has one and --no-server-metrics is not given): the object of
//	                         `gobench diagnose --format json` (window_s, quantiles, ratios,
//	                         gauges, findings, verdict, server (the engine), engine_figures,
//	                         verdict_reason, ...) plus client_vs_server (per metric: client and
//	                         server mean/p50/p99 in seconds, gap_mean, why, server_metric,
//	                         server_source; prefill and decode rows from llama.cpp's
//	                         per-request timings) and
//	                         timeline (t, running, waiting, kv_cache_usage_perc, preemptions since the first sample, in columns)
//	scheduled_offsets        [number], planned arrival offsets (gobench, detailed only)
//	end_reason               string, "completed" or "interrupted" (gobench serve, and detailed)
//	gobench_steady_state     object, the run over its steady-state window (gobench serve's
//	                         generation runs; metrics.FindSteadyWindow states the rule):
//	  found                  bool, whether a window was found
//	  reason                 string, why not (only when found is false; nothing follows)
//	  target_concurrency     int, the plateau's concurrency
//	  target_from            string, "max_concurrency" (--max-concurrency, reached) or
//	                         "top_level" (the highest level held 10 % of the time)
//	  threshold              number, 0.95: the share of the target that opens the window
//	  threshold_concurrency  int, ceil(threshold × target_concurrency)
//	  start_s, end_s         number, the window in seconds from the first request's start
//	  duration_s             number, end_s − start_s
//	  requests_started       int, successful requests started in the window
//	  requests_completed     int, successful requests ended in it
//	  requests_inside        int, successful requests wholly inside it
//	  request_throughput     number, requests_completed / duration_s
//	  input_throughput       number, prompt tokens of the requests started in it per second
//	  output_throughput      number, output tokens received in it per second (a token event
//	                         carries its request's output length / its events)
//	  total_token_throughput number, input_throughput + output_throughput
//	  mean_{m}_ms, median_{m}_ms, std_{m}_ms, p{p}_{m}_ms
//	                         number, over the requests inside the window, for the run's
//	                         ttft, tpot, itl and e2el sections
//	gobench_client           object, the client's own load (gobench serve's runs on a schedule,
//	                         not --multi-turn):
//	  schedule_lag_p50_ms, schedule_lag_p99_ms, schedule_lag_max_ms
//	                         number, a request's release by the dispatcher minus the instant it
//	                         was due (the run's start + its offset)
//	  schedule_lag_warn_ms   number, --schedule-lag-warn-ms
//	  client_may_be_bottleneck bool, schedule_lag_p99_ms > schedule_lag_warn_ms
//	  cpu_seconds            number or null, the process's CPU time over the run (getrusage;
//	                         null where the platform has none)
//	  wall_seconds           number, the run's length
//	  cpu_share              number or null, cpu_seconds / wall_seconds (1: one core busy)
//	schedule_lags            [number], each request's schedule lag in seconds (gobench_client's
//	                         runs, detailed only)
//	multi_turn               object, a --multi-turn run's conversations and completed_conversations
//	                         (every turn answered) and per_turn: per turn index, requests,
//	                         completed, mean_input_len (history included) and mean, median and
//	                         p99 of ttft_ms and e2el_ms (gobench)
//	conversation_ids         [string], each request's conversation } --multi-turn,
//	turn_indices             [int], each request's turn (0: first) } detailed only
//	gobench_shard            object, a shard's identity and wall-clock anchors (serve --num-shards,
//	                         --start-at): num_shards, shard_index, start_at (RFC 3339 or null),
//	                         start_wall (RFC 3339, ns: the dispatcher's start), start_clock and
//	                         end_clock (the start_times' clock then and at the end),
//	                         global_requests, request_indices (detailed only: each request's index
//	                         in the global plan), server_dates (the server's Date headers seen:
//	                         responses, undated_responses, and per Date value in Unix seconds,
//	                         values, last_send, first_arrival on the start_times' clock, counts)
//	gobench_merge            object, gobench merge's account: num_shards, start_at, start_wall (the
//	                         merged run's start: the earliest shard's), start_spread_ms,
//	                         max_start_lateness_ms, clock_skew_note, skew_bound_ms (from the
//	                         server's Date headers; null when some shard has no bound),
//	                         skew_bound_note, skew_corrected, shards (file, shard_index,
//	                         start_wall, start_lateness_ms, requests, date_changes,
//	                         offset_vs_shard0_ms [low, high] or null, offset_date_changes,
//	                         offset_note, correction_ms)
//
// gobench_workload is one object rather than flat keys so that it can
// never collide with a --metadata key or a later vLLM key, and so that
// readers that take every numeric key as a measurement (thresholds, the
// metrics of compare) never mistake the seed or a length for one.
//
// A pooling backend (--backend openai-embeddings and the other pooling
// APIs) writes vLLM's pooling result (serve.py@11dfa3169 benchmark, the
// EmbedBenchmarkMetrics branch): the keys above without failed,
// total_output_tokens, request_goodput, output_throughput, the generation
// lists (output_lens to generated_texts, the server's lists),
// max_output_tokens_per_s, max_concurrent_requests, rtfx and
// total_cached_tokens (resultkey.GenerationKeys); total_input_tokens is the
// sum of the server's usage.prompt_tokens, total_token_throughput is
// total_input_tokens / duration, and the only statistics are e2el's.
//
// Metadata keys that collide with later keys keep their position and take
// the later value, as in vLLM's {**setup, **benchmark} merge. The lists
// marked "detailed only" are present only with --save-detailed.
//
// # File name
//
// Filename builds vLLM's name,
// {label}-{rate}qps[-concurrency{N}]-{model base}-{date}.json, e.g.
// openai-infqps-Llama-3.2-1B-Instruct-20260101-010203.json.
package report
