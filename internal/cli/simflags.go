package cli

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/sim"
	"github.com/spf13/pflag"
)

// simFlags are the simulator's knobs beyond the fixed latencies: the
// engine model (names as in vllm serve), presets, faults, the ground-truth
// record and a config file. `gobench sim` registers them as they are,
// `gobench serve` with the prefix "sim-" (--sim-max-num-seqs ...), so both
// build the same sim.Config.
type simFlags struct {
	prefix     string
	standalone bool // gobench sim (log flags), not serve --sim

	preset, engine, config, record string

	maxModelLen, maxNumSeqs, maxNumBatchedTokens, blockSize, numGPUBlocks *intFlag
	prefixCaching, noPrefixCaching, perRequestMetrics                     bool
	streamInterval, specTokens                                            *intFlag
	specAcceptance, stepBase, stepPerToken, stepPerSeq, frontend          *floatFlag

	faults            [len(sim.Faults{}.Rules)]string
	stallFor, dripDur *floatFlag
	dripBytes         *intFlag

	disableLogStats  bool
	logStatsInterval *floatFlag
}

// engineFlags are the flags that configure the engine model; giving one
// selects it unless --engine says fixed.
var engineFlags = []string{"max-num-seqs", "max-num-batched-tokens", "block-size", "num-gpu-blocks-override",
	"enable-prefix-caching", "no-enable-prefix-caching", "num-speculative-tokens", "spec-acceptance-rate",
	"step-time-base", "step-time-per-token", "step-time-per-seq"}

// presetNames lists the presets for a flag's help.
func presetNames() string {
	var names []string
	for _, p := range sim.Presets() {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}

// presetsHelp describes every preset, for the long help of `gobench sim`.
func presetsHelp() string {
	var b strings.Builder
	b.WriteString("Presets:\n")
	for _, p := range sim.Presets() {
		fmt.Fprintf(&b, "\n  %s\n", p.Name)
		line := "     "
		for _, w := range strings.Fields(p.Description) {
			if len(line)+1+len(w) > 76 {
				b.WriteString(line + "\n")
				line = "     "
			}
			line += " " + w
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// register defines the flags on fs, each name prefixed.
func (f *simFlags) register(fs *pflag.FlagSet, prefix string, standalone bool) {
	f.prefix, f.standalone = prefix, standalone
	d := sim.DefaultSchedulerConfig()
	n := func(name string) string { return prefix + name }
	str := func(p *string, name, usage string) { fs.StringVar(p, n(name), "", usage) }
	integer := func(p **intFlag, name string, v int, usage string) {
		*p = newInt(n(name), v)
		fs.Var(*p, n(name), usage)
	}
	float := func(p **floatFlag, name string, v float64, usage string) {
		*p = newFloat(n(name), v)
		fs.Var(*p, n(name), usage)
	}
	str(&f.preset, "preset", "Start from a preset ("+presetNames()+"), then apply the other flags; gobench sim --help describes them.")
	str(&f.engine, "engine", "fixed (every request waits TTFT, then ITL per token, however many run) or scheduler "+
		"(vLLM's scheduler loop: batching, chunked prefill, KV cache, preemption). Default fixed, or scheduler when a preset "+
		"or an engine flag (--"+n("max-num-seqs")+", ...) asks for it.")
	str(&f.config, "config", "YAML `FILE` of simulator options, one 'option: value' per line (names as the flags, without "+
		"dashes in front); flags on the command line win.")
	integer(&f.maxModelLen, "max-model-len", sim.DefaultMaxModelLen, "Context length: reported in /v1/models; a request "+
		"whose prompt plus max_tokens exceeds it gets vLLM's 400.")
	fs.BoolVar(&f.perRequestMetrics, n("enable-per-request-metrics"), false, "Add vLLM's per-request metrics object "+
		"(queue_time_ms, time_to_first_token_ms, ...) to the final usage event.")
	integer(&f.maxNumSeqs, "max-num-seqs", d.MaxNumSeqs, "Engine: most requests running at once; the rest wait.")
	integer(&f.maxNumBatchedTokens, "max-num-batched-tokens", d.MaxNumBatchedTokens, "Engine: token budget of one step, "+
		"shared by decode tokens and prompt chunks (smaller: lower ITL, higher TTFT).")
	integer(&f.blockSize, "block-size", d.BlockSize, "Engine: tokens per KV cache block.")
	integer(&f.numGPUBlocks, "num-gpu-blocks-override", d.NumGPUBlocks, "Engine: KV cache size in blocks; when a running "+
		"request needs a block and none is free, the newest running request is preempted.")
	fs.BoolVar(&f.prefixCaching, n("enable-prefix-caching"), false, "Engine: reuse cached blocks of shared prompt prefixes (on by default, as in vLLM).")
	fs.BoolVar(&f.noPrefixCaching, n("no-enable-prefix-caching"), false, "Engine: turn prefix caching off.")
	integer(&f.streamInterval, "stream-interval", 1, "Tokens per streamed event after the first (vLLM's --stream-interval).")
	integer(&f.specTokens, "num-speculative-tokens", 0, "Engine: draft tokens per decoding step (speculative decoding; "+
		"exposes vllm:spec_decode_* counters).")
	float(&f.specAcceptance, "spec-acceptance-rate", d.SpecAcceptanceRate, "Engine: probability that each draft token is accepted.")
	float(&f.stepBase, "step-time-base", d.StepBase.Seconds(), "Engine: fixed part of a step's time, in seconds.")
	float(&f.stepPerToken, "step-time-per-token", d.StepPerToken.Seconds(), "Engine: step time per prefill token "+
		"(prompt chunks, recomputation, draft tokens to verify), in seconds.")
	float(&f.stepPerSeq, "step-time-per-seq", d.StepPerSeq.Seconds(), "Engine: step time per sequence in the batch, in seconds.")
	float(&f.frontend, "frontend-latency", 0, "Seconds between receiving a request and queueing it in the engine "+
		"(chat template, tokenisation): part of TTFT, not of queue time.")
	str(&f.record, "record", "Write the ground truth to `FILE`: one JSON line per request with the send instant of "+
		"every event and the server-side intervals, on CLOCK_MONOTONIC (see tools/simbench).")
	faultHelp := map[sim.FaultKind]string{
		sim.FaultHTTP429:    "answer 429 with a JSON error body",
		sim.FaultHTTP500:    "answer 500 with a JSON error body",
		sim.FaultHTTP503:    "answer 503 with a JSON error body",
		sim.FaultReset:      "reset the connection mid-stream",
		sim.FaultErrorEvent: "send an error event (and [DONE]) mid-stream in the 200 stream",
		sim.FaultMalformed:  "send an event with cut-short JSON mid-stream",
		sim.FaultStall:      "send nothing for --" + n("fault-stall-seconds") + " mid-stream",
		sim.FaultSlowDrip:   "write every event in pieces of --" + n("fault-drip-bytes") + ", --" + n("fault-drip-interval") + " apart",
		sim.FaultNoDone:     "end the stream without data: [DONE]",
		sim.FaultNoUsage:    "leave out the usage event",
		sim.FaultWrongUsage: "report twice the completion tokens in the usage",
	}
	for _, k := range sim.FaultKinds() {
		str(&f.faults[k], "fault-"+k.String(), "Fault: "+faultHelp[k]+"; `RULE` is a fraction of requests (0.05, 5%) "+
			"or a regular expression over request ids.")
	}
	float(&f.stallFor, "fault-stall-seconds", 30, "Fault: how long a stall lasts.")
	integer(&f.dripBytes, "fault-drip-bytes", 8, "Fault: bytes per piece of a slow drip.")
	float(&f.dripDur, "fault-drip-interval", 0.01, "Fault: seconds between the pieces of a slow drip.")
	if standalone {
		fs.BoolVar(&f.disableLogStats, n("disable-log-stats"), false, "Do not print vLLM's periodic stats line on stderr.")
		float(&f.logStatsInterval, "log-stats-interval", 10, "Seconds between the periodic stats lines (VLLM_LOG_STATS_INTERVAL).")
	}
}

// changed reports whether the flag name (unprefixed) was given.
func (f *simFlags) changed(fs *pflag.FlagSet, name string) bool {
	fl := fs.Lookup(f.prefix + name)
	return fl != nil && fl.Changed
}

// applyConfigFile sets, from --config, the options not given on the
// command line.
func (f *simFlags) applyConfigFile(fs *pflag.FlagSet) error {
	if f.config == "" {
		return nil
	}
	b, err := os.ReadFile(f.config)
	if err != nil {
		return fmt.Errorf("--%sconfig: %w", f.prefix, err)
	}
	kvs, err := parseSimConfig(string(b))
	if err != nil {
		return argErrorf("--%sconfig %s: %v", f.prefix, f.config, err)
	}
	for _, kv := range kvs {
		name := strings.ReplaceAll(kv.key, "_", "-")
		fl := fs.Lookup(f.prefix + name)
		if fl == nil || name == "config" {
			return argErrorf("--%sconfig %s line %d: unknown option %q", f.prefix, f.config, kv.line, kv.key)
		}
		if fl.Changed {
			continue
		}
		if err := fs.Set(fl.Name, kv.value); err != nil {
			return argErrorf("--%sconfig %s line %d: %v", f.prefix, f.config, kv.line, err)
		}
	}
	return nil
}

// build turns the flags into a simulator configuration: config file, then
// preset, then the flags given. ttft and itl are the fixed engine's
// latencies; latencyFlags names their flags when they were given, which the
// scheduler engine refuses. The result is checked as NewServer checks it,
// so a bad value is a command-line error.
func (f *simFlags) build(fs *pflag.FlagSet, ttft, itl time.Duration, latencyFlags []string) (sim.Config, error) {
	var cfg sim.Config
	if err := f.applyConfigFile(fs); err != nil {
		return cfg, err
	}
	if err := f.selectEngine(fs, &cfg, ttft, itl, latencyFlags); err != nil {
		return cfg, err
	}
	if f.changed(fs, "max-model-len") || cfg.MaxModelLen == 0 {
		cfg.MaxModelLen = f.maxModelLen.v
	}
	cfg.EnablePerRequestMetrics = f.perRequestMetrics
	cfg.StreamInterval = f.streamInterval.v
	cfg.FrontendLatency = metrics.Duration(f.frontend.v)
	if cfg.Scheduler != nil {
		if err := f.applyScheduler(fs, cfg.Scheduler); err != nil {
			return cfg, err
		}
	}
	if err := f.applyFaults(&cfg); err != nil {
		return cfg, err
	}
	if f.standalone {
		cfg.LogStatsInterval = metrics.Duration(f.logStatsInterval.v)
		if f.disableLogStats || !(f.logStatsInterval.v > 0) {
			cfg.LogStatsInterval = -1
		}
	}
	if _, err := sim.NewServer(cfg); err != nil {
		return cfg, exitcode.Usage(err)
	}
	return cfg, nil
}

// selectEngine applies the preset and chooses the engine: the scheduler
// when the preset, --engine or an engine flag asks for it, else the fixed
// latencies.
func (f *simFlags) selectEngine(fs *pflag.FlagSet, cfg *sim.Config, ttft, itl time.Duration, latencyFlags []string) error {
	p := f.prefix
	if f.preset != "" {
		pr, ok := sim.LookupPreset(f.preset)
		if !ok {
			return argErrorf("argument --%spreset: unknown preset %q (choose from %s)", p, f.preset, presetNames())
		}
		pr.Apply(cfg)
	}
	if cfg.Scheduler == nil {
		cfg.TTFT, cfg.ITL = ttft, itl
	}
	var given []string
	for _, name := range engineFlags {
		if f.changed(fs, name) {
			given = append(given, "--"+p+name)
		}
	}
	switch f.engine {
	case "":
		if len(given) > 0 && cfg.Scheduler == nil {
			d := sim.DefaultSchedulerConfig()
			cfg.Scheduler = &d
		}
	case "fixed":
		if len(given) > 0 {
			return argErrorf("%s configure the scheduler engine, not --%sengine fixed", strings.Join(given, ", "), p)
		}
		cfg.Scheduler = nil
		cfg.TTFT, cfg.ITL = ttft, itl
	case "scheduler":
		if cfg.Scheduler == nil {
			d := sim.DefaultSchedulerConfig()
			cfg.Scheduler = &d
		}
	default:
		return argErrorf("argument --%sengine: invalid choice: '%s' (choose from 'fixed', 'scheduler')", p, f.engine)
	}
	if cfg.Scheduler != nil && len(latencyFlags) > 0 {
		return argErrorf("%s set the fixed engine's latencies; the scheduler engine's come from --%sstep-time-*",
			strings.Join(latencyFlags, " and "), p)
	}
	return nil
}

// applyScheduler sets the engine flags that were given on sc.
func (f *simFlags) applyScheduler(fs *pflag.FlagSet, sc *sim.SchedulerConfig) error {
	p := f.prefix
	setInt := func(dst *int, name string, v int) {
		if f.changed(fs, name) {
			*dst = v
		}
	}
	setDur := func(dst *time.Duration, name string, v float64) {
		if f.changed(fs, name) {
			*dst = metrics.Duration(v)
		}
	}
	setInt(&sc.MaxNumSeqs, "max-num-seqs", f.maxNumSeqs.v)
	setInt(&sc.MaxNumBatchedTokens, "max-num-batched-tokens", f.maxNumBatchedTokens.v)
	setInt(&sc.BlockSize, "block-size", f.blockSize.v)
	setInt(&sc.NumGPUBlocks, "num-gpu-blocks-override", f.numGPUBlocks.v)
	setInt(&sc.NumSpeculativeTokens, "num-speculative-tokens", f.specTokens.v)
	setDur(&sc.StepBase, "step-time-base", f.stepBase.v)
	setDur(&sc.StepPerToken, "step-time-per-token", f.stepPerToken.v)
	setDur(&sc.StepPerSeq, "step-time-per-seq", f.stepPerSeq.v)
	if f.changed(fs, "spec-acceptance-rate") {
		sc.SpecAcceptanceRate = f.specAcceptance.v
	}
	if f.prefixCaching && f.noPrefixCaching {
		return argErrorf("--%senable-prefix-caching and --%sno-enable-prefix-caching contradict each other", p, p)
	}
	if f.prefixCaching {
		sc.EnablePrefixCaching = true
	}
	if f.noPrefixCaching {
		sc.EnablePrefixCaching = false
	}
	return nil
}

// applyFaults parses the --fault-* rules and their parameters.
func (f *simFlags) applyFaults(cfg *sim.Config) error {
	p := f.prefix
	for _, k := range sim.FaultKinds() {
		if f.faults[k] == "" {
			continue
		}
		r, err := sim.ParseFaultRule(f.faults[k])
		if err != nil {
			return argErrorf("argument --%sfault-%s: %v", p, k, err)
		}
		cfg.Faults.Set(k, r)
	}
	for _, d := range []struct {
		name string
		v    float64
	}{{"fault-stall-seconds", f.stallFor.v}, {"fault-drip-interval", f.dripDur.v}, {"frontend-latency", f.frontend.v}} {
		if !(d.v >= 0) {
			return argErrorf("argument --%s%s: must be non-negative seconds, got %v", p, d.name, d.v)
		}
	}
	if f.dripBytes.v < 1 {
		return argErrorf("argument --%sfault-drip-bytes: must be at least 1, got %d", p, f.dripBytes.v)
	}
	cfg.Faults.StallFor, cfg.Faults.DripEvery, cfg.Faults.DripBytes = metrics.Duration(f.stallFor.v), metrics.Duration(f.dripDur.v), f.dripBytes.v
	return nil
}

// describe summarises cfg's engine for the start-up banner.
func describeSim(cfg sim.Config) string {
	if sc := cfg.Scheduler; sc != nil {
		s := fmt.Sprintf("engine scheduler: max-num-seqs %d, max-num-batched-tokens %d, %d KV blocks of %d tokens, prefix caching %t, "+
			"step %v + %v/prefill token + %v/seq", sc.MaxNumSeqs, sc.MaxNumBatchedTokens, sc.NumGPUBlocks, sc.BlockSize,
			sc.EnablePrefixCaching, sc.StepBase, sc.StepPerToken, sc.StepPerSeq)
		if sc.NumSpeculativeTokens > 0 {
			s += fmt.Sprintf(", %d speculative tokens accepted at %.0f%%", sc.NumSpeculativeTokens, 100*sc.SpecAcceptanceRate)
		}
		return s
	}
	return fmt.Sprintf("TTFT %s, ITL %s", cfg.TTFT, cfg.ITL)
}
