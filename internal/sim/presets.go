package sim

import (
	"sort"
	"strings"
	"time"
)

// Preset is a named starting configuration for a typical case, so a user
// can see a realistic server (or a sick one) without tuning a dozen knobs.
// Flags given on the command line override the preset's values.
//
// A preset with a Verdict is a scenario: run `gobench serve` against it
// with its Load and the server shows one branch of the diagnosis of a slow
// server (queue, why waiting, thrashing, prefill, streaming), with the
// metric signature its Description names. The loads are sized to finish in
// a few seconds.
type Preset struct {
	// Name is what --preset takes.
	Name string
	// Aliases are older names --preset still takes.
	Aliases []string
	// Description says what the preset shows, for --help.
	Description string
	// Verdict is the diagnosis the scenario reproduces, one of the verdicts
	// of `gobench diagnose` (healthy, queue/seq-limit, ...); "" for a
	// preset that is no scenario.
	Verdict string
	// Load are the `gobench serve` arguments, after --base-url (or --sim
	// --sim-preset NAME), that show the scenario: dataset, lengths, rate
	// and concurrency.
	Load []string
	// Apply sets the preset's values on c.
	Apply func(c *Config)
}

// The fixed engine's latencies of the "fixed" preset, and of the flags by
// default.
const (
	defaultTTFT = 50 * time.Millisecond
	defaultITL  = 10 * time.Millisecond
)

// engine8B sets the engine model of an 8B model on one GPU. Its front end
// takes no time (--frontend-latency 0), so that TTFT is the engine's.
func engine8B(c *Config) {
	sc := DefaultSchedulerConfig()
	c.Scheduler = &sc
	if c.MaxModelLen == 0 {
		c.MaxModelLen = DefaultMaxModelLen
	}
}

// random is the start of a scenario's load: gobench's random dataset with
// input and output lengths as given (the range ratio stays 0, so every
// request is alike) and the number of prompts.
func random(input, output, prompts string, more ...string) []string {
	return append([]string{"--dataset-name", "random", "--random-input-len", input, "--random-output-len", output,
		"--num-prompts", prompts}, more...)
}

// Presets returns the presets, sorted by name.
func Presets() []Preset {
	ps := append(basePresets(), queuePresets()...)
	ps = append(ps, latencyPresets()...)
	sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
	return ps
}

// basePresets are the servers that are no scenario.
func basePresets() []Preset {
	return []Preset{
		{Name: "fixed", Description: "No contention: TTFT 50 ms and ITL 10 ms for every request however many run " +
			"(the default; what make bench measures the client against).",
			Apply: func(c *Config) {
				c.Scheduler = nil
				c.TTFT, c.ITL = defaultTTFT, defaultITL
			}},
		{Name: "8b-1gpu", Description: "An 8B model on one 80 GB GPU: the engine model with vLLM's default limits (256 sequences, " +
			"8192 batched tokens, prefix caching, ~490k tokens of KV cache), a 6 ms step plus 50 µs per prefill token and 40 µs " +
			"per sequence.",
			Apply: engine8B},
		{Name: "spec-decode", Description: "The 8B server with speculative decoding: 4 draft tokens per step accepted at 70 % each, " +
			"so an event carries several tokens and the client's ITL per event exceeds its TPOT per token; vllm:spec_decode_* " +
			"counters are exposed.",
			Apply: func(c *Config) {
				engine8B(c)
				c.Scheduler.NumSpeculativeTokens = 4
				c.Scheduler.SpecAcceptanceRate = 0.7
			}},
	}
}

// LookupPreset returns the preset called name (or aliased so).
func LookupPreset(name string) (Preset, bool) {
	for _, p := range Presets() {
		if p.Name == name {
			return p, true
		}
		for _, a := range p.Aliases {
			if a == name {
				return p, true
			}
		}
	}
	return Preset{}, false
}

// presetNames lists the presets' names and aliases, for a flag's help and
// an error.
func presetNames() string {
	var names []string
	for _, p := range Presets() {
		names = append(names, p.Name)
		names = append(names, p.Aliases...)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// LoadArgs is the scenario's Load as a shell command line takes it, each
// argument that holds a space or a quote in single quotes, so that help
// and documentation can print a command to copy.
func (p Preset) LoadArgs() string {
	out := make([]string, len(p.Load))
	for i, a := range p.Load {
		if strings.ContainsAny(a, " \"'{}$\\") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}
