package diagnose

import (
	"fmt"
	"math"
)

// Options are what a diagnosis needs besides the scrapes.
type Options struct {
	// Model selects the served model (the model_name label). "" reads the
	// only model the server serves, and is an error when it serves
	// several.
	Model string
	// MaxNumSeqs is the server's --max-num-seqs, per engine; 0 when not
	// known. vLLM does not publish it, so question 2 can only compare the
	// running requests with it when it is given.
	MaxNumSeqs int
	// MaxNumSeqsFlag is the flag that gives MaxNumSeqs, which the
	// evidence names: "" means diagnose's --max-num-seqs (gobench serve
	// passes --server-max-num-seqs).
	MaxNumSeqsFlag string
	// Thresholds are the procedure's comparisons.
	Thresholds Thresholds
}

// Thresholds are the numbers the five questions compare with. Each is a
// command-line flag (Knobs); DefaultThresholds holds the defaults.
type Thresholds struct {
	// DominantShare is the share of TTFT at which a part of it (the
	// queue, prefill, the frontend) dominates.
	DominantShare float64
	// NoiseFloor (seconds) is the length below which a part of TTFT is
	// never called the problem, whatever its share.
	NoiseFloor float64
	// KVHigh is the KV-cache usage that counts as "near 1.0": memory
	// binds.
	KVHigh float64
	// MinPreemptions is the number of preemptions in the window that
	// makes the cache "thrashing" rather than full.
	MinPreemptions float64
	// ExpectedPrefixHitRate is the prefix-cache hit rate the workload
	// should reach; below it, with prefill dominating TTFT, the prompts'
	// structure is the problem. 0 is "not known", and skips that check:
	// only the workload's author knows what its prompts share, and a
	// benchmark of random prompts shares nothing, so a default above 0
	// would blame the cache for every long prompt.
	ExpectedPrefixHitRate float64
	// ITLHigh (seconds) is the inter-token latency that counts as high:
	// at p99 for uneven streaming, at p50 for a whole distribution that
	// is high.
	ITLHigh float64
	// ITLTailRatio is how far p99 must be above p50 (as a multiple) for
	// streaming to be uneven.
	ITLTailRatio float64
}

// DefaultThresholds are the defaults of the threshold flags.
func DefaultThresholds() Thresholds {
	t := Thresholds{}
	for _, k := range Knobs() {
		*k.Field(&t) = k.Default
	}
	return t
}

// DefaultOptions are the options of a diagnosis without flags.
func DefaultOptions() Options { return Options{Thresholds: DefaultThresholds()} }

// Knob is one threshold's flag: its name, help, default, range and field.
type Knob struct {
	// Flag is the command-line flag, without dashes.
	Flag string
	// Help says what it compares, and why the default.
	Help string
	// Default is the flag's default.
	Default float64
	// Min and Max bound the value (inclusive).
	Min, Max float64
	// Field points at the threshold in t.
	Field func(t *Thresholds) *float64
}

// Knobs lists the threshold flags, in the order of the questions that use
// them. The defaults read the procedure's words as numbers: "dominates" is
// more than half, "near 1.0" is 90 %, "sustained preemptions" is any in
// the window (a healthy server preempts none), "far above" is three times;
// "lower than the workload should give" needs the workload's own figure,
// so it is not assumed.
func Knobs() []Knob {
	return []Knob{
		{Flag: "dominant-share", Default: 0.5, Min: 0, Max: 1,
			Help: "Share of time to first token at which a part of it dominates: the queue on average or at p50, p95 or p99 " +
				"(a quantile inside the queue histogram's lowest bucket never counts), prefill or the frontend on average.",
			Field: func(t *Thresholds) *float64 { return &t.DominantShare }},
		{Flag: "noise-floor", Default: 0.05, Min: 0, Max: math.Inf(1),
			Help:  "Seconds below which a part of time to first token is never called the problem, whatever its share.",
			Field: func(t *Thresholds) *float64 { return &t.NoiseFloor }},
		{Flag: "kv-high", Default: 0.9, Min: 0, Max: 1,
			Help:  "KV-cache usage (0-1, the highest engine's, peak over the window) at which memory binds.",
			Field: func(t *Thresholds) *float64 { return &t.KVHigh }},
		{Flag: "min-preemptions", Default: 1, Min: 0, Max: math.Inf(1),
			Help:  "Preemptions in the window that make a full cache thrashing rather than full of useful work.",
			Field: func(t *Thresholds) *float64 { return &t.MinPreemptions }},
		{Flag: "expected-prefix-hit-rate", Default: 0, Min: 0, Max: 1,
			Help: "Prefix-cache hit rate (0-1, in tokens) the workload should reach, e.g. the share of each prompt that is a shared system prompt; " +
				"0, the default, is not known: a low hit rate is then not called the problem (prefix caching turned off still is).",
			Field: func(t *Thresholds) *float64 { return &t.ExpectedPrefixHitRate }},
		{Flag: "itl-high", Default: 0.1, Min: 0, Max: math.Inf(1),
			Help:  "Inter-token latency in seconds that counts as high: at p99 for uneven streaming, at p50 for a distribution that is high throughout.",
			Field: func(t *Thresholds) *float64 { return &t.ITLHigh }},
		{Flag: "itl-tail-ratio", Default: 3, Min: 1, Max: math.Inf(1),
			Help:  "How many times p50 the inter-token latency's p99 must reach for streaming to be uneven.",
			Field: func(t *Thresholds) *float64 { return &t.ITLTailRatio }},
	}
}

// Validate checks every threshold against its range; the error names the
// flag.
func (t Thresholds) Validate() error {
	for _, k := range Knobs() {
		v := *k.Field(&t)
		if math.IsNaN(v) || v < k.Min || v > k.Max {
			return fmt.Errorf("--%s: %v is outside [%v, %v]", k.Flag, v, k.Min, k.Max)
		}
	}
	return nil
}
