package sim

import (
	"fmt"
	"maps"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/tokenizer"
)

// Options are the simulator's knobs as a user gives them: by name and as
// text, on a command line (`gobench sim --max-num-seqs 8`, `gobench serve
// --sim-max-num-seqs 8`) or in a config file (`max-num-seqs: 8`). Every
// knob starts at its default; Set gives one; Config turns them into a
// Config. Keeping the knobs here, with their names, defaults, checks and
// help (Knobs), lets the flags of both commands and the config file share
// one definition.
type Options struct {
	// prefix is put before every knob's name to make its flag ("sim-" for
	// gobench serve), so errors name the flag the user typed.
	prefix string
	// standalone is gobench sim, whose own knobs (host, port, model, seed,
	// tokenizer, stats log ...) serve --sim does not take.
	standalone bool
	// given holds the knobs given: the config file line each came from, 0
	// for the command line.
	given map[string]int

	host, model, servedModel, tokenizer   string
	port, defaultMaxTokens, seed          int
	ttft, itl                             float64
	preset, engine, configFile, record    string
	maxModelLen, streamInterval           int
	perRequestMetrics                     bool
	maxNumSeqs, maxNumBatchedTokens       int
	blockSize, numGPUBlocks, specTokens   int
	prefixCaching, noPrefixCaching        bool
	specAcceptance, frontend              float64
	stepBase, stepPerToken, stepPerSeq    float64
	faults                                [numFaultKinds]string
	stallFor, dripEvery, logStatsInterval float64
	dripBytes                             int
	disableLogStats, logRequests          bool
}

// NewOptions returns every knob at its default, for a command whose flags
// are the knobs' names after prefix. standalone adds the knobs of
// `gobench sim` alone.
func NewOptions(prefix string, standalone bool) *Options {
	d := DefaultSchedulerConfig()
	return &Options{
		prefix: prefix, standalone: standalone, given: map[string]int{},
		host: "127.0.0.1", port: 8000, model: DefaultModel, defaultMaxTokens: DefaultMaxTokens,
		ttft: defaultTTFT.Seconds(), itl: defaultITL.Seconds(), maxModelLen: DefaultMaxModelLen, streamInterval: 1,
		maxNumSeqs: d.MaxNumSeqs, maxNumBatchedTokens: d.MaxNumBatchedTokens, blockSize: d.BlockSize,
		numGPUBlocks: d.NumGPUBlocks, specAcceptance: d.SpecAcceptanceRate,
		stepBase: d.StepBase.Seconds(), stepPerToken: d.StepPerToken.Seconds(), stepPerSeq: d.StepPerSeq.Seconds(),
		stallFor: defaultStallFor.Seconds(), dripEvery: defaultDripEvery.Seconds(), dripBytes: defaultDripBytes,
		logStatsInterval: DefaultLogStatsInterval.Seconds(),
	}
}

// Knob describes one option for a command line or a config file.
type Knob struct {
	// Name is the option's name, and its flag's after the prefix.
	Name string
	// Default is its default value: an int, float64, bool or string.
	Default any
	// Usage is its help, naming other flags with the prefix.
	Usage string
}

// Knobs lists the options of a command that names them after prefix, in
// the order of its help; standalone adds the knobs of `gobench sim` alone.
func Knobs(prefix string, standalone bool) []Knob {
	o := NewOptions(prefix, standalone)
	var out []Knob
	for _, k := range o.knobs() {
		usage := k.usage
		if !standalone && k.serveUsage != "" {
			usage = k.serveUsage
		}
		out = append(out, Knob{Name: k.name, Default: k.get(o), Usage: strings.ReplaceAll(usage, "{p}", prefix)})
	}
	return out
}

// Set gives the knob name (without prefix) the value written as text, as
// its flag takes it: Python's int() and float() for numbers, true or
// false for switches.
func (o *Options) Set(name, value string) error {
	k, ok := o.knob(name)
	if !ok {
		return optionErrorf("unknown option %q", name)
	}
	if err := k.set(o, value); err != nil {
		return optionErrorf("argument %s: %v", o.flag(name), err)
	}
	o.given[name] = 0
	return nil
}

// knob returns the knob called name, if the command has it.
func (o *Options) knob(name string) (knob, bool) {
	for _, k := range o.knobs() {
		if k.name == name {
			return k, true
		}
	}
	return knob{}, false
}

// isGiven reports whether the knob was given, on the command line or in the
// config file.
func (o *Options) isGiven(name string) bool {
	_, ok := o.given[name]
	return ok
}

// flag is the knob's flag: --max-num-seqs, --sim-max-num-seqs.
func (o *Options) flag(name string) string { return "--" + o.prefix + name }

// named names a knob for an error: its flag, or where in the config file it
// was given.
func (o *Options) named(name string) string {
	if line := o.given[name]; line > 0 {
		return fmt.Sprintf("%s (%s %s line %d)", name, o.flag("config"), o.configFile, line)
	}
	return o.flag(name)
}

// givenNamed names the knobs among names that were given.
func (o *Options) givenNamed(names ...string) []string {
	var out []string
	for _, n := range names {
		if o.isGiven(n) {
			out = append(out, o.named(n))
		}
	}
	return out
}

// clone is a copy of o that Config can add the config file's knobs to.
func (o *Options) clone() *Options {
	c := *o
	c.given = maps.Clone(o.given)
	return &c
}

// OptionError is a knob given a value the simulator cannot take, or knobs
// that contradict each other: the user's mistake, which a command line
// reports as a usage error.
type OptionError struct{ msg string }

func (e *OptionError) Error() string { return e.msg }

func optionErrorf(format string, a ...any) error {
	return &OptionError{msg: fmt.Sprintf(format, a...)}
}

// knobs are the options of o's command, in the order of its help.
func (o *Options) knobs() []knob {
	var out []knob
	for _, k := range allKnobs() {
		if o.standalone || !k.standalone {
			out = append(out, k)
		}
	}
	return out
}

// Config turns the options into the simulator's configuration, as
// `vllm serve` does: the config file (--config) gives the knobs not given
// on the command line, a preset (--preset) starts the configuration, and
// every knob given overrides it. The engine is the scheduler when the
// preset, --engine or a scheduler knob asks for it, else the fixed
// latencies. The result is validated as NewServer validates it; a mistake
// is an *OptionError naming the flag, or the config file and line. o is not
// changed.
func (o *Options) Config() (Config, error) {
	o = o.clone()
	if err := o.readConfigFile(); err != nil {
		return Config{}, err
	}
	for _, k := range o.knobs() {
		if err := k.inRange(o); err != nil {
			return Config{}, optionErrorf("argument %s: %v", o.named(k.name), err)
		}
	}
	var cfg Config
	if err := o.chooseEngine(&cfg); err != nil {
		return cfg, err
	}
	if o.isGiven("max-model-len") || cfg.MaxModelLen == 0 {
		cfg.MaxModelLen = o.maxModelLen
	}
	cfg.EnablePerRequestMetrics, cfg.StreamInterval = o.perRequestMetrics, o.streamInterval
	if o.isGiven("frontend-latency") {
		cfg.FrontendLatency = metrics.Duration(o.frontend)
	}
	cfg.RecordPath = o.record
	if cfg.Scheduler != nil {
		if err := o.tuneScheduler(cfg.Scheduler); err != nil {
			return cfg, err
		}
	}
	if err := o.faultRules(&cfg.Faults); err != nil {
		return cfg, err
	}
	if o.standalone {
		o.serverSettings(&cfg)
	}
	if _, err := cfg.withDefaults(o.named); err != nil {
		return cfg, &OptionError{msg: err.Error()}
	}
	return cfg, o.loadTokenizer(&cfg)
}

// chooseEngine applies the preset and chooses the engine.
func (o *Options) chooseEngine(cfg *Config) error {
	if o.preset != "" {
		pr, ok := LookupPreset(o.preset)
		if !ok {
			return optionErrorf("argument %s: unknown preset %q (choose from %s)", o.named("preset"), o.preset, presetNames())
		}
		pr.Apply(cfg)
	}
	if cfg.Scheduler == nil {
		cfg.TTFT, cfg.ITL = metrics.Duration(o.ttft), metrics.Duration(o.itl)
	}
	given := o.givenNamed("max-num-seqs", "max-num-batched-tokens", "block-size", "num-gpu-blocks-override",
		"enable-prefix-caching", "no-enable-prefix-caching", "num-speculative-tokens", "spec-acceptance-rate",
		"step-time-base", "step-time-per-token", "step-time-per-seq")
	switch o.engine {
	case "":
		if len(given) > 0 && cfg.Scheduler == nil {
			d := DefaultSchedulerConfig()
			cfg.Scheduler = &d
		}
	case "fixed":
		if len(given) > 0 {
			return optionErrorf("%s configure the scheduler engine, not %s fixed", strings.Join(given, ", "), o.flag("engine"))
		}
		cfg.Scheduler = nil
		cfg.TTFT, cfg.ITL = metrics.Duration(o.ttft), metrics.Duration(o.itl)
	case "scheduler":
		if cfg.Scheduler == nil {
			d := DefaultSchedulerConfig()
			cfg.Scheduler = &d
		}
	default:
		return optionErrorf("argument %s: invalid choice: '%s' (choose from 'fixed', 'scheduler')", o.named("engine"), o.engine)
	}
	if latency := o.givenNamed("ttft", "itl"); cfg.Scheduler != nil && len(latency) > 0 {
		return optionErrorf("%s set the fixed engine's latencies; the scheduler engine's come from %s",
			strings.Join(latency, " and "), o.flag("step-time-*"))
	}
	return nil
}

// tuneScheduler sets the scheduler knobs that were given on sc.
func (o *Options) tuneScheduler(sc *SchedulerConfig) error {
	for _, s := range []struct {
		name string
		dst  *int
		v    int
	}{
		{"max-num-seqs", &sc.MaxNumSeqs, o.maxNumSeqs},
		{"max-num-batched-tokens", &sc.MaxNumBatchedTokens, o.maxNumBatchedTokens},
		{"block-size", &sc.BlockSize, o.blockSize},
		{"num-gpu-blocks-override", &sc.NumGPUBlocks, o.numGPUBlocks},
		{"num-speculative-tokens", &sc.NumSpeculativeTokens, o.specTokens},
	} {
		if o.isGiven(s.name) {
			*s.dst = s.v
		}
	}
	for _, s := range []struct {
		name string
		dst  *time.Duration
		v    float64
	}{
		{"step-time-base", &sc.StepBase, o.stepBase},
		{"step-time-per-token", &sc.StepPerToken, o.stepPerToken},
		{"step-time-per-seq", &sc.StepPerSeq, o.stepPerSeq},
	} {
		if o.isGiven(s.name) {
			*s.dst = metrics.Duration(s.v)
		}
	}
	if o.isGiven("spec-acceptance-rate") {
		sc.SpecAcceptanceRate = o.specAcceptance
	}
	if o.prefixCaching && o.noPrefixCaching {
		return optionErrorf("%s and %s contradict each other", o.named("enable-prefix-caching"), o.named("no-enable-prefix-caching"))
	}
	if o.prefixCaching {
		sc.EnablePrefixCaching = true
	}
	if o.noPrefixCaching {
		sc.EnablePrefixCaching = false
	}
	return nil
}

// faultRules parses the fault rules and sets the faults' parameters.
func (o *Options) faultRules(f *Faults) error {
	for _, k := range FaultKinds() {
		if o.faults[k] == "" {
			continue
		}
		r, err := ParseFaultRule(o.faults[k])
		if err != nil {
			return optionErrorf("argument %s: %v", o.named("fault-"+k.String()), err)
		}
		f.Set(k, r)
	}
	f.StallFor, f.DripEvery, f.DripBytes = metrics.Duration(o.stallFor), metrics.Duration(o.dripEvery), o.dripBytes
	return nil
}

// serverSettings sets what gobench sim's own knobs say: where it listens,
// the model it serves, its seed and its stats log.
func (o *Options) serverSettings(cfg *Config) {
	cfg.Addr = net.JoinHostPort(o.host, strconv.Itoa(o.port))
	cfg.Model, cfg.DefaultMaxTokens, cfg.Seed = o.model, o.defaultMaxTokens, int64(o.seed)
	if o.servedModel != "" {
		// vllm serve: --model names the weights (root), the served name is
		// what clients send.
		cfg.Model, cfg.Root = o.servedModel, o.model
	}
	if cfg.Scheduler != nil {
		cfg.Scheduler.Seed = int64(o.seed)
	}
	cfg.LogRequests = o.logRequests
	cfg.LogStatsInterval = metrics.Duration(o.logStatsInterval)
	if o.disableLogStats || !(o.logStatsInterval > 0) {
		cfg.LogStatsInterval = -1
	}
}

// loadTokenizer sets the tokenizer that counts prompt tokens: --tokenizer,
// else gobench's built-in one, which is then the model's root so that a
// client asking /v1/models finds it.
func (o *Options) loadTokenizer(cfg *Config) error {
	if o.tokenizer == "" {
		cfg.Tokenizer = tokenizer.Builtin()
		if cfg.Root == "" {
			cfg.Root = tokenizer.BuiltinName
		}
		return nil
	}
	t, err := tokenizer.Load(o.tokenizer)
	if err != nil {
		return fmt.Errorf("argument %s: %s: %w", o.named("tokenizer"), pyfmt.StrRepr(o.tokenizer), err)
	}
	cfg.Tokenizer = t
	return nil
}
