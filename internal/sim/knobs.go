package sim

import (
	"fmt"
	"strconv"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyfmt"
)

// check is the range a numeric knob must be in.
type check int

const (
	anyValue      check = iota
	nonNegSeconds       // a float >= 0 that a time.Duration holds
	anySeconds          // a float a time.Duration holds (<= 0 turns something off)
	atLeastOne          // an int >= 1
	notNegative         // an int >= 0 (0 is the default)
	fraction            // a float in [0, 1]
	portNumber          // an int in [0, 65535] (0 picks a free port)
)

// Bounds of the int knobs that size what the simulator allocates.
const (
	// maxBlocks bounds --num-gpu-blocks-override: the KV cache holds a
	// record per block and indexes blocks with int32.
	maxBlocks = 1 << 24
	// maxSpeculativeTokens bounds --num-speculative-tokens: every step
	// counts acceptances per draft position.
	maxSpeculativeTokens = 1 << 10
)

// knob is one option: its name, help, range and where Options keeps it.
type knob struct {
	name string
	// usage is the help; "{p}" stands for the prefix of flag names.
	// serveUsage, when set, is the help under gobench serve.
	usage, serveUsage string
	// standalone knobs are gobench sim's alone.
	standalone bool
	check      check
	// most, when > 0, bounds an int knob: past it the simulator would
	// allocate more than memory holds.
	most int
	// field points into the Options: *int, *float64, *bool or *string.
	field func(*Options) any
}

// get returns the knob's value in o.
func (k knob) get(o *Options) any {
	switch p := k.field(o).(type) {
	case *int:
		return *p
	case *float64:
		return *p
	case *bool:
		return *p
	default:
		return *p.(*string)
	}
}

// set parses s into the knob's field of o.
func (k knob) set(o *Options, s string) error {
	switch p := k.field(o).(type) {
	case *int:
		v, err := pyfmt.ParseInt(s)
		if err != nil {
			return fmt.Errorf("invalid int value: %s", pyfmt.StrRepr(s))
		}
		*p = v
	case *float64:
		v, err := pyfmt.ParseFloat(s)
		if err != nil {
			return fmt.Errorf("invalid float value: %s", pyfmt.StrRepr(s))
		}
		*p = v
	case *bool:
		v, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("invalid bool value: %s", pyfmt.StrRepr(s))
		}
		*p = v
	default:
		*p.(*string) = s
	}
	return nil
}

// inRange checks the knob's value in o against its range.
func (k knob) inRange(o *Options) error {
	switch v := k.get(o).(type) {
	case float64:
		return k.check.floatInRange(v)
	case int:
		if err := k.check.intInRange(v); err != nil {
			return err
		}
		if k.most > 0 && v > k.most {
			return fmt.Errorf("must be at most %d, got %d", k.most, v)
		}
	}
	return nil
}

// floatInRange checks a float knob. Seconds must convert to a
// time.Duration: NaN, inf and values past 292 years convert to arbitrary,
// even negative, durations.
func (c check) floatInRange(f float64) error {
	fits := metrics.FitsDuration(f)
	switch {
	case c == nonNegSeconds && !(f >= 0):
		return fmt.Errorf("must be non-negative seconds, got %v", f)
	case (c == nonNegSeconds || c == anySeconds) && !fits:
		return fmt.Errorf("must be a finite number of seconds within 292 years, got %v", f)
	case c == fraction && !(f >= 0 && f <= 1):
		return fmt.Errorf("must be in [0, 1], got %v", f)
	}
	return nil
}

// intInRange checks an int knob.
func (c check) intInRange(n int) error {
	switch {
	case c == atLeastOne && n < 1:
		return fmt.Errorf("must be at least 1, got %d", n)
	case c == notNegative && n < 0:
		return fmt.Errorf("must not be negative, got %d", n)
	case c == portNumber && (n < 0 || n > 65535):
		return fmt.Errorf("must be a port number in [0, 65535], got %d", n)
	}
	return nil
}

// allKnobs are every option, in the order of gobench sim's help: where the
// server listens and what it is called, the engine, the faults, then the
// rest of gobench sim's own.
func allKnobs() []knob {
	ks := serverKnobs()
	ks = append(ks, engineKnobs()...)
	ks = append(ks, schedulerKnobs()...)
	ks = append(ks, faultKnobs()...)
	return append(ks, closingKnobs()...)
}

// serverKnobs say where gobench sim listens and what it serves.
func serverKnobs() []knob {
	return []knob{
		{name: "host", usage: "Address to listen on.", standalone: true, field: func(o *Options) any { return &o.host }},
		{name: "port", usage: "Port to listen on (0 picks a free one).", standalone: true,
			check: portNumber, field: func(o *Options) any { return &o.port }},
		{name: "model", usage: "Model name served in /v1/models and responses.", standalone: true,
			field: func(o *Options) any { return &o.model }},
		{name: "served-model-name", usage: "Name clients use; --model then becomes the model's root.", standalone: true,
			field: func(o *Options) any { return &o.servedModel }},
	}
}

// engineKnobs choose the engine and set what both engines share.
func engineKnobs() []knob {
	return []knob{
		{name: "ttft", usage: "Fixed engine: time to first token, in seconds.",
			serveUsage: "With --sim: the simulated time to first token, in seconds.",
			check:      nonNegSeconds, field: func(o *Options) any { return &o.ttft }},
		{name: "itl", usage: "Fixed engine: time between tokens, in seconds.",
			serveUsage: "With --sim: the simulated time between tokens, in seconds.",
			check:      nonNegSeconds, field: func(o *Options) any { return &o.itl }},
		{name: "preset", usage: "Start from a preset (" + presetNames() + "), then apply the other flags; gobench sim --help describes them.",
			field: func(o *Options) any { return &o.preset }},
		{name: "engine", usage: "fixed (every request waits TTFT, then ITL per token, however many run) or scheduler " +
			"(vLLM's scheduler loop: batching, chunked prefill, KV cache, preemption). Default fixed, or scheduler when a preset " +
			"or an engine flag (--{p}max-num-seqs, ...) asks for it.",
			field: func(o *Options) any { return &o.engine }},
		{name: "config", usage: "YAML `FILE` of simulator options, one 'option: value' per line (names as the flags, without " +
			"dashes in front); flags on the command line win.",
			field: func(o *Options) any { return &o.configFile }},
		{name: "max-model-len", usage: "Context length: reported in /v1/models; a request " +
			"whose prompt plus max_tokens exceeds it gets vLLM's 400.",
			check: notNegative, field: func(o *Options) any { return &o.maxModelLen }},
		{name: "enable-per-request-metrics", usage: "Add vLLM's per-request metrics object " +
			"(queue_time_ms, time_to_first_token_ms, ...) to the final usage event.",
			field: func(o *Options) any { return &o.perRequestMetrics }},
	}
}

// schedulerKnobs are the scheduler engine's knobs, with the stream
// interval, the front end's latency and the record among them.
func schedulerKnobs() []knob {
	return []knob{
		{name: "max-num-seqs", usage: "Engine: most requests running at once; the rest wait.",
			check: atLeastOne, field: func(o *Options) any { return &o.maxNumSeqs }},
		{name: "max-num-batched-tokens", usage: "Engine: token budget of one step, " +
			"shared by decode tokens and prompt chunks (smaller: lower ITL, higher TTFT).",
			check: atLeastOne, field: func(o *Options) any { return &o.maxNumBatchedTokens }},
		{name: "block-size", usage: "Engine: tokens per KV cache block.",
			check: atLeastOne, field: func(o *Options) any { return &o.blockSize }},
		{name: "num-gpu-blocks-override", usage: "Engine: KV cache size in blocks; when a running " +
			"request needs a block and none is free, the newest running request is preempted.",
			check: atLeastOne, most: maxBlocks, field: func(o *Options) any { return &o.numGPUBlocks }},
		{name: "enable-prefix-caching", usage: "Engine: reuse cached blocks of shared prompt prefixes (on by default, as in vLLM).",
			field: func(o *Options) any { return &o.prefixCaching }},
		{name: "no-enable-prefix-caching", usage: "Engine: turn prefix caching off.",
			field: func(o *Options) any { return &o.noPrefixCaching }},
		{name: "stream-interval", usage: "Tokens per streamed event after the first (vLLM's --stream-interval).",
			check: notNegative, field: func(o *Options) any { return &o.streamInterval }},
		{name: "num-speculative-tokens", usage: "Engine: draft tokens per decoding step (speculative decoding; " +
			"exposes vllm:spec_decode_* counters).",
			check: notNegative, most: maxSpeculativeTokens, field: func(o *Options) any { return &o.specTokens }},
		{name: "spec-acceptance-rate", usage: "Engine: probability that each draft token is accepted.",
			check: fraction, field: func(o *Options) any { return &o.specAcceptance }},
		{name: "step-time-base", usage: "Engine: fixed part of a step's time, in seconds.",
			check: nonNegSeconds, field: func(o *Options) any { return &o.stepBase }},
		{name: "step-time-per-token", usage: "Engine: step time per prefill token " +
			"(prompt chunks, recomputation, draft tokens to verify), in seconds.",
			check: nonNegSeconds, field: func(o *Options) any { return &o.stepPerToken }},
		{name: "step-time-per-seq", usage: "Engine: step time per sequence in the batch, in seconds.",
			check: nonNegSeconds, field: func(o *Options) any { return &o.stepPerSeq }},
		{name: "frontend-latency", usage: "Seconds between receiving a request and queueing it in the engine " +
			"(chat template, tokenisation): part of TTFT, not of queue time.",
			check: nonNegSeconds, field: func(o *Options) any { return &o.frontend }},
		{name: "record", usage: "Write the ground truth to `FILE`: one JSON line per request with the send instant of " +
			"every event and the server-side intervals, on CLOCK_MONOTONIC (see tools/simbench). It is written beside FILE " +
			"as .FILE.RANDOM.tmp and renamed to FILE when the simulator stops.",
			field: func(o *Options) any { return &o.record }},
	}
}

// faultKnobs are a rule per fault and the faults' parameters.
func faultKnobs() []knob {
	help := [numFaultKinds]string{
		FaultHTTP429:    "answer 429 with a JSON error body",
		FaultHTTP500:    "answer 500 with a JSON error body",
		FaultHTTP503:    "answer 503 with a JSON error body",
		FaultReset:      "reset the connection mid-stream",
		FaultErrorEvent: "send an error event (and [DONE]) mid-stream in the 200 stream",
		FaultMalformed:  "send an event with cut-short JSON mid-stream",
		FaultStall:      "send nothing for --{p}fault-stall-seconds mid-stream",
		FaultSlowDrip:   "write every event in pieces of --{p}fault-drip-bytes, --{p}fault-drip-interval apart",
		FaultNoDone:     "end the stream without data: [DONE]",
		FaultNoUsage:    "leave out the usage event",
		FaultWrongUsage: "report twice the completion tokens in the usage",
	}
	var ks []knob
	for _, k := range FaultKinds() {
		ks = append(ks, knob{name: "fault-" + k.String(), usage: "Fault: " + help[k] + "; `RULE` is a fraction of requests (0.05, 5%) " +
			"or a regular expression over request ids.", field: func(o *Options) any { return &o.faults[k] }})
	}
	return append(ks,
		knob{name: "fault-stall-seconds", usage: "Fault: how long a stall lasts.",
			check: nonNegSeconds, field: func(o *Options) any { return &o.stallFor }},
		knob{name: "fault-drip-bytes", usage: "Fault: bytes per piece of a slow drip.",
			check: atLeastOne, field: func(o *Options) any { return &o.dripBytes }},
		knob{name: "fault-drip-interval", usage: "Fault: seconds between the pieces of a slow drip.",
			check: nonNegSeconds, field: func(o *Options) any { return &o.dripEvery }},
	)
}

// closingKnobs are the rest of gobench sim's own knobs.
func closingKnobs() []knob {
	return []knob{
		{name: "disable-log-stats", usage: "Do not print vLLM's periodic stats line on stderr.", standalone: true,
			field: func(o *Options) any { return &o.disableLogStats }},
		{name: "enable-log-requests", usage: "Print a line per request on stderr (how it ended, its tokens, its duration), " +
			"as vllm serve --enable-log-requests does; off by default.", standalone: true,
			field: func(o *Options) any { return &o.logRequests }},
		{name: "log-stats-interval", usage: "Seconds between the periodic stats lines (VLLM_LOG_STATS_INTERVAL).",
			standalone: true, check: anySeconds, field: func(o *Options) any { return &o.logStatsInterval }},
		{name: "default-max-tokens", usage: "Output length of requests that set no max_tokens.", standalone: true,
			check: notNegative, field: func(o *Options) any { return &o.defaultMaxTokens }},
		{name: "seed", usage: "Seed of the random stop of requests without ignore_eos, of fault rates and of draft acceptance.",
			standalone: true, field: func(o *Options) any { return &o.seed }},
		{name: "tokenizer", usage: "tokenizer.json (or folder) used to count prompt tokens; default: gobench's built-in tokenizer.",
			standalone: true, field: func(o *Options) any { return &o.tokenizer }},
	}
}
