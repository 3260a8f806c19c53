package sim

import (
	"sort"
	"strings"
	"time"
)

// Preset is a named starting configuration for a typical case, so a user
// can see a realistic server (or a sick one) without tuning a dozen knobs.
// Flags given on the command line override the preset's values.
type Preset struct {
	// Name is what --preset takes.
	Name string
	// Description says what the preset shows, for --help.
	Description string
	// Apply sets the preset's values on c.
	Apply func(c *Config)
}

// The fixed engine's latencies of the "fixed" preset, and of the flags by
// default.
const (
	defaultTTFT = 50 * time.Millisecond
	defaultITL  = 10 * time.Millisecond
)

// engine8B sets the engine model of an 8B model on one GPU.
func engine8B(c *Config) {
	sc := DefaultSchedulerConfig()
	c.Scheduler = &sc
	c.FrontendLatency = 2 * time.Millisecond
	if c.MaxModelLen == 0 {
		c.MaxModelLen = DefaultMaxModelLen
	}
}

// Presets returns the presets, sorted by name.
func Presets() []Preset {
	ps := []Preset{
		{"fixed", "No contention: TTFT 50 ms and ITL 10 ms for every request however many run (the default; what make bench measures the client against).",
			func(c *Config) {
				c.Scheduler = nil
				c.TTFT, c.ITL = defaultTTFT, defaultITL
			}},
		{"8b-1gpu", "An 8B model on one 80 GB GPU: the engine model with vLLM's default limits (256 sequences, 8192 batched tokens, " +
			"prefix caching, ~490k tokens of KV cache), a 6 ms step plus 50 µs per prefill token and 40 µs per sequence.",
			engine8B},
		{"saturated", "The 8B server with room for only 8 running sequences: under load requests queue, queue time dominates TTFT, " +
			"num_requests_running sits at max_num_seqs while the KV cache is nearly empty.",
			func(c *Config) {
				engine8B(c)
				c.Scheduler.MaxNumSeqs = 8
			}},
		{"small-cache", "The 8B server with a KV cache too small (512 blocks of 16 tokens, 8192 tokens) for its load: " +
			"kv_cache_usage_perc near 1 and preemptions, which recompute requests and stretch their prefill or decode.",
			func(c *Config) {
				engine8B(c)
				c.Scheduler.NumGPUBlocks = 512
				c.MaxModelLen = 4096
			}},
		{"spec-decode", "The 8B server with speculative decoding: 4 draft tokens per step accepted at 70 % each, so an event carries " +
			"several tokens and the client's ITL per event exceeds its TPOT per token; vllm:spec_decode_* counters are exposed.",
			func(c *Config) {
				engine8B(c)
				c.Scheduler.NumSpeculativeTokens = 4
				c.Scheduler.SpecAcceptanceRate = 0.7
			}},
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
	return ps
}

// LookupPreset returns the preset called name.
func LookupPreset(name string) (Preset, bool) {
	for _, p := range Presets() {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

// presetNames lists the presets' names, for a flag's help and an error.
func presetNames() string {
	var names []string
	for _, p := range Presets() {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}
