package sim

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/tokenizer"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// simDefaults is what `gobench sim` runs without flags.
func simDefaults() Config {
	return Config{
		TTFT: 50 * time.Millisecond, ITL: 10 * time.Millisecond, MaxModelLen: DefaultMaxModelLen, StreamInterval: 1,
		Faults: Faults{StallFor: 30 * time.Second, DripEvery: 10 * time.Millisecond, DripBytes: 8},
		Addr:   "127.0.0.1:8000", Model: DefaultModel, Root: tokenizer.BuiltinName, DefaultMaxTokens: DefaultMaxTokens,
		LogStatsInterval: 10 * time.Second,
	}
}

// serveDefaults is what `gobench serve --sim` runs without --sim-* flags.
func serveDefaults() Config {
	c := simDefaults()
	c.Addr, c.Model, c.DefaultMaxTokens, c.LogStatsInterval = "", "", 0, 0
	return c
}

// scheduler returns the default engine model changed by edit.
func scheduler(edit func(*SchedulerConfig)) *SchedulerConfig {
	sc := DefaultSchedulerConfig()
	if edit != nil {
		edit(&sc)
	}
	return &sc
}

// optionsCase is a command line (and config file) and the configuration
// it builds, as an edit of simDefaults.
type optionsCase struct {
	name  string
	serve bool     // gobench serve: prefix "sim-", no standalone knobs
	file  string   // config file given as --config, when set
	set   []string // name, value, ... as given on the command line
	want  func(c *Config)
}

// optionsCases are TestOptionsConfig's cases.
var optionsCases = []optionsCase{
	{name: "sim defaults", want: func(*Config) {}},
	{name: "serve defaults", serve: true, want: func(c *Config) { *c = serveDefaults() }},
	{name: "preset", set: []string{"preset", "8b-1gpu"}, want: func(c *Config) {
		// The preset's engine model leaves the fixed latencies unset, and
		// takes no time in the front end.
		c.Scheduler, c.TTFT, c.ITL = scheduler(nil), 0, 0
	}},
	{name: "flags over the preset", set: []string{"preset", "small-cache", "num-gpu-blocks-override", "1024", "max-model-len", "2048"},
		want: func(c *Config) {
			c.Scheduler, c.MaxModelLen = scheduler(func(sc *SchedulerConfig) { sc.NumGPUBlocks = 1024 }), 2048
			c.TTFT, c.ITL = 0, 0
		}},
	{name: "config file over the preset, flags over the file", file: "preset: saturated\nmax_num_seqs: 4\nblock-size: 32\n",
		set: []string{"max-num-seqs", "6"}, want: func(c *Config) {
			c.Scheduler = scheduler(func(sc *SchedulerConfig) { sc.MaxNumSeqs, sc.BlockSize = 6, 32 })
			c.TTFT, c.ITL = 0, 0
		}},
	{name: "a scheduler knob selects the scheduler", serve: true, set: []string{"max-num-seqs", "4", "no-enable-prefix-caching", "true",
		"step-time-base", "0.002"}, want: func(c *Config) {
		*c = serveDefaults()
		c.Scheduler = scheduler(func(sc *SchedulerConfig) {
			sc.MaxNumSeqs, sc.EnablePrefixCaching, sc.StepBase = 4, false, 2*time.Millisecond
		})
	}},
	{name: "a preset's front-end latency", set: []string{"preset", "frontend-delay"}, want: func(c *Config) {
		c.Scheduler, c.TTFT, c.ITL, c.FrontendLatency = scheduler(nil), 0, 0, time.Second
	}},
	{name: "the flag over a preset's front-end latency", set: []string{"preset", "frontend-delay", "frontend-latency", "0.2"},
		want: func(c *Config) {
			c.Scheduler, c.TTFT, c.ITL, c.FrontendLatency = scheduler(nil), 0, 0, 200*time.Millisecond
		}},
	{name: "--engine scheduler", set: []string{"engine", "scheduler"}, want: func(c *Config) { c.Scheduler = scheduler(nil) }},
	{name: "--engine fixed over a preset", set: []string{"preset", "spec-decode", "engine", "fixed", "ttft", "0.2"},
		want: func(c *Config) { c.TTFT = 200 * time.Millisecond }},
	{name: "latencies from the config file", file: "ttft: 0.2\nitl: '0.005'\n", want: func(c *Config) {
		c.TTFT, c.ITL = 200*time.Millisecond, 5*time.Millisecond
	}},
	{name: "a false switch in the file", file: "enable-prefix-caching: false\n", want: func(c *Config) { c.Scheduler = scheduler(nil) }},
	{name: "gobench sim's own knobs", set: []string{"host", "::1", "port", "0", "model", "weights", "served-model-name", "m",
		"seed", "7", "default-max-tokens", "3", "disable-log-stats", "true", "record", "t.jsonl", "engine", "scheduler"},
		want: func(c *Config) {
			c.Addr, c.Model, c.Root, c.Seed, c.DefaultMaxTokens, c.LogStatsInterval = "[::1]:0", "m", "weights", 7, 3, -1
			c.RecordPath, c.Scheduler = "t.jsonl", scheduler(func(sc *SchedulerConfig) { sc.Seed = 7 })
		}},
	{name: "faults", serve: true, set: []string{"fault-reset", "10%", "fault-no-usage", "bench-.*-7$", "fault-stall-seconds", "2"},
		want: func(c *Config) {
			*c = serveDefaults()
			c.Faults.Rules[FaultReset].Rate = 0.1
			c.Faults.Rules[FaultNoUsage].Pattern = regexp.MustCompile("bench-.*-7$")
			c.Faults.StallFor = 2 * time.Second
		}},
}

// TestOptionsConfig: presets, config files and flags build the
// configuration they name, later sources over earlier ones.
func TestOptionsConfig(t *testing.T) {
	t.Parallel()
	opts := []cmp.Option{cmpopts.IgnoreFields(Config{}, "Tokenizer"),
		cmp.Comparer(func(a, b *regexp.Regexp) bool {
			return a == nil && b == nil || a != nil && b != nil && a.String() == b.String()
		})}
	for _, tt := range optionsCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := testOptions(t, tt.serve, tt.file, tt.set...)
			got, err := o.Config()
			if err != nil {
				t.Fatal(err)
			}
			if got.Tokenizer == nil {
				t.Error("no tokenizer")
			}
			want := simDefaults()
			tt.want(&want)
			if diff := cmp.Diff(want, got, opts...); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("the configuration does not validate: %v", err)
			}
		})
	}
}

func TestOptionsConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		serve   bool
		file    string
		set     []string
		wantErr string // FILE stands for the config file's path
	}{
		{name: "unknown preset", set: []string{"preset", "h100"},
			wantErr: `argument --preset: unknown preset "h100" (choose from 8b-1gpu, batch-overload, fixed, frontend-delay, head-of-line, healthy, kv-full, kv-thrashing, prefill-interference, prefix-hostile, saturated, seq-limit, small-cache, spec-decode)`},
		{name: "unknown preset in the file", serve: true, file: "\npreset: h100\n",
			wantErr: `argument preset (--sim-config FILE line 2): unknown preset "h100"`},
		{name: "bad engine", serve: true, set: []string{"engine", "gpu"},
			wantErr: `argument --sim-engine: invalid choice: 'gpu' (choose from 'fixed', 'scheduler')`},
		{name: "fixed engine with scheduler knobs", serve: true, set: []string{"engine", "fixed", "max-num-seqs", "4", "block-size", "8"},
			wantErr: "--sim-max-num-seqs, --sim-block-size configure the scheduler engine, not --sim-engine fixed"},
		{name: "fixed engine with a scheduler knob in the file", file: "max-num-seqs: 4\n", set: []string{"engine", "fixed"},
			wantErr: "max-num-seqs (--config FILE line 1) configure the scheduler engine, not --engine fixed"},
		{name: "latencies with the scheduler", serve: true, set: []string{"preset", "8b-1gpu", "ttft", "0.1", "itl", "0.1"},
			wantErr: "--sim-ttft and --sim-itl set the fixed engine's latencies; the scheduler engine's come from --sim-step-time-*"},
		{name: "too few sequences", serve: true, set: []string{"max-num-seqs", "0"},
			wantErr: "argument --sim-max-num-seqs: must be at least 1, got 0"},
		{name: "too few sequences in the file", file: "# engine\nmax-num-seqs: 0\n",
			wantErr: "argument max-num-seqs (--config FILE line 2): must be at least 1, got 0"},
		{name: "acceptance rate", set: []string{"spec-acceptance-rate", "1.5"},
			wantErr: "argument --spec-acceptance-rate: must be in [0, 1], got 1.5"},
		{name: "negative step time", set: []string{"step-time-base", "-1"},
			wantErr: "argument --step-time-base: must be non-negative seconds, got -1"},
		{name: "negative latency", serve: true, set: []string{"ttft", "nan"},
			wantErr: "argument --sim-ttft: must be non-negative seconds, got NaN"},
		{name: "drip bytes", set: []string{"fault-drip-bytes", "0"},
			wantErr: "argument --fault-drip-bytes: must be at least 1, got 0"},
		{name: "cache smaller than a request", serve: true, set: []string{"num-gpu-blocks-override", "16"},
			wantErr: "(--sim-num-gpu-blocks-override × --sim-block-size = 256 tokens) cannot hold one request of the max " +
				"model length 32768 (--sim-max-model-len): lower --sim-max-model-len or add blocks"},
		{name: "bad fault rule", set: []string{"fault-http-429", "2"},
			wantErr: `argument --fault-http-429: fault rate "2" must be in [0, 1]`},
		{name: "prefix caching on and off", set: []string{"enable-prefix-caching", "true", "no-enable-prefix-caching", "true"},
			wantErr: "--enable-prefix-caching and --no-enable-prefix-caching contradict each other"},
		{name: "unknown option in the file", serve: true, file: "max-num-seqs: 4\nmax-num-sequences: 4\n",
			wantErr: `--sim-config FILE line 2: unknown option "max-num-sequences"`},
		{name: "gobench sim's knob in serve's file", serve: true, file: "port: 9000\n",
			wantErr: `--sim-config FILE line 1: unknown option "port"`},
		{name: "the file names a file", file: "config: other.yaml\n",
			wantErr: `--config FILE line 1: unknown option "config"`},
		{name: "bad value in the file", file: "max_num_seqs: many\n",
			wantErr: `--config FILE line 1: max_num_seqs: invalid int value: 'many'`},
		{name: "nested value in the file", file: "max-num-seqs:\n  value: 4\n",
			wantErr: "--config FILE: line 1: max-num-seqs: only plain values are supported, got a map"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := testOptions(t, tt.serve, tt.file, tt.set...)
			_, err := o.Config()
			want := strings.ReplaceAll(tt.wantErr, "FILE", o.configFile)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("error %v\nwant %q", err, want)
			}
			if !errors.As(err, new(*OptionError)) {
				t.Errorf("%T is not an *OptionError", err)
			}
		})
	}
}

// testOptions are the options of gobench sim (or serve) given set and, when
// file is not empty, a config file holding it.
func testOptions(t *testing.T, serve bool, file string, set ...string) *Options {
	t.Helper()
	o := NewOptions("", true)
	if serve {
		o = NewOptions("sim-", false)
	}
	if file != "" {
		path := filepath.Join(t.TempDir(), "sim.yaml")
		if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		set = append([]string{"config", path}, set...)
	}
	for i := 0; i+1 < len(set); i += 2 {
		if err := o.Set(set[i], set[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	return o
}

func TestOptionsSet(t *testing.T) {
	t.Parallel()
	o := NewOptions("sim-", false)
	for _, tt := range []struct{ name, value, wantErr string }{
		{"max-num-seqs", "1_000", ""},
		{"max-num-seqs", "x", "argument --sim-max-num-seqs: invalid int value: 'x'"},
		{"ttft", "inf", ""},
		{"itl", "fast", "argument --sim-itl: invalid float value: 'fast'"},
		{"enable-prefix-caching", "maybe", "argument --sim-enable-prefix-caching: invalid bool value: 'maybe'"},
		{"port", "9000", `unknown option "port"`},
	} {
		err := o.Set(tt.name, tt.value)
		if (tt.wantErr == "") != (err == nil) || err != nil && err.Error() != tt.wantErr {
			t.Errorf("Set(%q, %q) = %v, want %q", tt.name, tt.value, err, tt.wantErr)
		}
	}
	if o.maxNumSeqs != 1000 || !o.isGiven("max-num-seqs") || o.isGiven("block-size") {
		t.Errorf("max-num-seqs %d, given %v", o.maxNumSeqs, o.given)
	}
	// Config reads the file into a copy: o keeps what the command line gave.
	o.configFile = filepath.Join(t.TempDir(), "missing.yaml")
	if _, err := o.Config(); err == nil || errors.As(err, new(*OptionError)) || !strings.HasPrefix(err.Error(), "--sim-config: open ") {
		t.Errorf("a missing config file: %v", err)
	}
}

// TestKnobs: each command's knobs have a name, a default of their kind and
// help that names other flags with the command's prefix.
func TestKnobs(t *testing.T) {
	t.Parallel()
	sim, serve := Knobs("", true), Knobs("sim-", false)
	if len(sim) != len(serve)+10 {
		t.Errorf("%d knobs for gobench sim, %d for serve --sim: want serve's and sim's own 10", len(sim), len(serve))
	}
	seen := map[string]bool{}
	for _, k := range serve {
		if seen[k.Name] || len(k.Usage) < 20 || strings.Contains(k.Usage, "{p}") {
			t.Errorf("knob %+v", k)
		}
		seen[k.Name] = true
		switch k.Default.(type) {
		case int, float64, bool, string:
		default:
			t.Errorf("%s: default %T", k.Name, k.Default)
		}
		if k.Name == "engine" && !strings.Contains(k.Usage, "--sim-max-num-seqs") {
			t.Errorf("engine's help: %s", k.Usage)
		}
		if k.Name == "ttft" && !strings.HasPrefix(k.Usage, "With --sim:") {
			t.Errorf("ttft's help under serve: %s", k.Usage)
		}
	}
}

// TestOptionsConfigBounds: seconds must be durations
// (inf used to become a negative one, printed as such), the port a port,
// and the sizes allocatable; in the config file too.
func TestOptionsConfigBounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		serve   bool
		file    string
		set     []string
		wantErr string
	}{
		{serve: true, set: []string{"itl", "inf"}, wantErr: "argument --sim-itl: must be a finite number of seconds within 292 years, got +Inf"},
		{set: []string{"ttft", "1e10"}, wantErr: "argument --ttft: must be a finite number of seconds within 292 years, got 1e+10"},
		{set: []string{"frontend-latency", "inf"}, wantErr: "argument --frontend-latency: must be a finite number of seconds"},
		{set: []string{"step-time-per-token", "inf"}, wantErr: "argument --step-time-per-token: must be a finite number of seconds"},
		{set: []string{"fault-stall-seconds", "1e300"}, wantErr: "argument --fault-stall-seconds: must be a finite number of seconds"},
		{file: "fault-drip-interval: inf\n", wantErr: "argument fault-drip-interval (--config FILE line 1): must be a finite number of seconds"},
		{set: []string{"log-stats-interval", "nan"}, wantErr: "argument --log-stats-interval: must be a finite number of seconds within 292 years, got NaN"},
		{set: []string{"port", "65536"}, wantErr: "argument --port: must be a port number in [0, 65535], got 65536"},
		{set: []string{"num-gpu-blocks-override", "16777217"}, wantErr: "argument --num-gpu-blocks-override: must be at most 16777216, got 16777217"},
		{serve: true, set: []string{"num-speculative-tokens", "1025"}, wantErr: "argument --sim-num-speculative-tokens: must be at most 1024, got 1025"},
	}
	for _, tt := range tests {
		o := testOptions(t, tt.serve, tt.file, tt.set...)
		_, err := o.Config()
		want := strings.ReplaceAll(tt.wantErr, "FILE", o.configFile)
		if err == nil || !strings.Contains(err.Error(), want) || !errors.As(err, new(*OptionError)) {
			t.Errorf("%v %q: error %v, want an *OptionError with %q", tt.set, tt.file, err, want)
		}
	}
	for _, set := range [][]string{{"port", "0"}, {"log-stats-interval", "-1"}, {"itl", "0"}, {"ttft", "9e9"}} {
		if _, err := testOptions(t, false, "", set...).Config(); err != nil {
			t.Errorf("%v: %v", set, err)
		}
	}
}
