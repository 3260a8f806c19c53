package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/sim"
	"github.com/spf13/pflag"
)

// parseSim is parseWith for `gobench sim`.
func parseSim(t *testing.T, args ...string) (*SimOptions, string, int) {
	t.Helper()
	return parseWith(t, "sim", newSimCmd, args...)
}

func TestSimFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "sim.yaml")
	if err := os.WriteFile(cfgFile, []byte("# an engine that is easy to fill\nmax-num-seqs: 4\nmax_num_batched_tokens: 512\n"+
		"fault-http-503: '0.25'\nenable-prefix-caching: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badFile := filepath.Join(dir, "bad.yaml")
	_ = os.WriteFile(badFile, []byte("max-num-sequences: 4\n"), 0o644)
	tests := []struct {
		name    string
		args    []string
		check   func(t *testing.T, c sim.Config)
		wantErr string
	}{
		{name: "fixed by default", check: func(t *testing.T, c sim.Config) {
			if c.Scheduler != nil || c.TTFT != 50*time.Millisecond || c.ITL != 10*time.Millisecond || c.MaxModelLen != sim.DefaultMaxModelLen {
				t.Errorf("%+v", c)
			}
		}},
		{name: "preset", args: []string{"--preset", "8b-1gpu"}, check: func(t *testing.T, c sim.Config) {
			d := sim.DefaultSchedulerConfig()
			if c.Scheduler == nil || c.Scheduler.MaxNumSeqs != d.MaxNumSeqs || c.Scheduler.NumGPUBlocks != d.NumGPUBlocks ||
				c.Scheduler.StepBase != d.StepBase || !c.Scheduler.EnablePrefixCaching {
				t.Errorf("scheduler %+v", c.Scheduler)
			}
		}},
		{name: "flag over preset", args: []string{"--preset", "small-cache", "--num-gpu-blocks-override", "1024", "--max-model-len", "2048"},
			check: func(t *testing.T, c sim.Config) {
				if c.Scheduler.NumGPUBlocks != 1024 || c.MaxModelLen != 2048 {
					t.Errorf("blocks %d, max model len %d", c.Scheduler.NumGPUBlocks, c.MaxModelLen)
				}
			}},
		{name: "engine flag selects the scheduler", args: []string{"--max-num-seqs", "4", "--no-enable-prefix-caching", "--step-time-base", "0.002"},
			check: func(t *testing.T, c sim.Config) {
				if c.Scheduler == nil || c.Scheduler.MaxNumSeqs != 4 || c.Scheduler.EnablePrefixCaching || c.Scheduler.StepBase != 2*time.Millisecond {
					t.Errorf("scheduler %+v", c.Scheduler)
				}
			}},
		{name: "config file, command line wins", args: []string{"--config", cfgFile, "--max-num-seqs", "6"},
			check: func(t *testing.T, c sim.Config) {
				if c.Scheduler.MaxNumSeqs != 6 || c.Scheduler.MaxNumBatchedTokens != 512 || c.Faults.Rules[sim.FaultHTTP503].Rate != 0.25 {
					t.Errorf("scheduler %+v, faults %+v", c.Scheduler, c.Faults.Rules[sim.FaultHTTP503])
				}
			}},
		{name: "faults", args: []string{"--fault-reset", "0.1", "--fault-no-usage", "bench-.*-7$", "--fault-stall-seconds", "2"},
			check: func(t *testing.T, c sim.Config) {
				if c.Faults.Rules[sim.FaultReset].Rate != 0.1 || c.Faults.Rules[sim.FaultNoUsage].Pattern == nil || c.Faults.StallFor != 2*time.Second {
					t.Errorf("faults %+v", c.Faults)
				}
			}},
		{name: "stream interval and speculative decoding", args: []string{"--stream-interval", "4", "--num-speculative-tokens", "3"},
			check: func(t *testing.T, c sim.Config) {
				if c.StreamInterval != 4 || c.Scheduler.NumSpeculativeTokens != 3 {
					t.Errorf("%+v", c)
				}
			}},
		{name: "record and log stats", args: []string{"--record", "truth.jsonl", "--disable-log-stats"}, check: func(t *testing.T, c sim.Config) {
			if c.LogStatsInterval >= 0 {
				t.Errorf("log stats interval %v", c.LogStatsInterval)
			}
		}},
		{name: "unknown preset", args: []string{"--preset", "h100"}, wantErr: "unknown preset \"h100\" (choose from 8b-1gpu, fixed, saturated, small-cache, spec-decode)"},
		{name: "fixed engine with engine flags", args: []string{"--engine", "fixed", "--max-num-seqs", "4"},
			wantErr: "--max-num-seqs configure the scheduler engine, not --engine fixed"},
		{name: "latency flags with the scheduler", args: []string{"--preset", "8b-1gpu", "--ttft", "0.1"},
			wantErr: "--ttft set the fixed engine's latencies"},
		{name: "bad fault rule", args: []string{"--fault-http-429", "2"}, wantErr: "argument --fault-http-429: fault rate \"2\" must be in [0, 1]"},
		{name: "bad engine", args: []string{"--engine", "gpu"}, wantErr: "argument --engine: invalid choice: 'gpu'"},
		{name: "unknown config option", args: []string{"--config", badFile}, wantErr: "line 1: unknown option \"max-num-sequences\""},
		{name: "cache smaller than a request", args: []string{"--num-gpu-blocks-override", "16"},
			wantErr: "cannot hold one request of the max model length 32768 (--max-model-len)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o, errOut, code := parseSim(t, tt.args...)
			if tt.wantErr != "" {
				if code != int(exitcode.BadUsage) || !strings.Contains(errOut, tt.wantErr) {
					t.Fatalf("exit %d, stderr %q, want %q", code, errOut, tt.wantErr)
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if _, err := sim.NewServer(o.Config); err != nil {
				t.Fatalf("the configuration does not start: %v", err)
			}
			tt.check(t, o.Config)
		})
	}
}

func TestServeSimFlags(t *testing.T) {
	t.Parallel()
	o, errOut, code := parse(t, "--sim", "--sim-preset", "saturated", "--sim-record", "t.jsonl", "--sim-fault-http-503", "0.5",
		"--sim-enable-per-request-metrics", "--num-prompts", "5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if o.Sim == nil || o.Sim.Scheduler == nil || o.Sim.Scheduler.MaxNumSeqs != 8 || o.SimRecord != "t.jsonl" ||
		o.Sim.Faults.Rules[sim.FaultHTTP503].Rate != 0.5 || !o.Sim.EnablePerRequestMetrics {
		t.Errorf("sim options %+v, record %q", o.Sim, o.SimRecord)
	}
	if _, errOut, code := parse(t, "--sim", "--sim-preset", "8b-1gpu", "--sim-ttft", "0.2"); code != int(exitcode.BadUsage) ||
		!strings.Contains(errOut, "--sim-ttft set the fixed engine's latencies; the scheduler engine's come from --sim-step-time-*") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// TestSimHelpExplainsEveryKnob: `gobench sim --help` names and explains
// every flag, the presets and the faults.
func TestSimHelpExplainsEveryKnob(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if code := Main(context.Background(), []string{"sim", "--help"}, Deps{Stdout: &out, Stderr: &out}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	help := out.String()
	cmd := newSimCmd(&Deps{}, nil)
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !strings.Contains(help, "--"+f.Name+" ") || len(f.Usage) < 20 {
			t.Errorf("--%s is not explained in the help", f.Name)
		}
	})
	for _, want := range []string{"fixed", "scheduler", "8b-1gpu", "saturated", "small-cache", "spec-decode", "CLOCK_MONOTONIC",
		"/metrics", "preempted"} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

func TestParseSimConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       []string // key=value
		wantErr    string
	}{
		{"plain", "a: 1\nb-c: x y\n", []string{"a=1", "b-c=x y"}, ""},
		{"comments and quotes", "# c\n---\na: '0.5' # rate\nb: \"re:7\"\nc: -1\n\n", []string{"a=0.5", "b=re:7", "c=-1"}, ""},
		{"trailing comment", "a: 3 # three", []string{"a=3"}, ""},
		{"nested", "a:\n  b: 1\n", nil, "line 1: a: missing value"},
		{"indented", "  b: 1\n", nil, "nested values are not supported"},
		{"list", "a: [1, 2]\n", nil, "only plain values"},
		{"no colon", "a\n", nil, "expected 'option: value'"},
		{"duplicate", "a: 1\na: 2\n", nil, "line 2: a already set on line 1"},
		{"unterminated", "a: 'x\n", nil, "unterminated quote"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseSimConfig(tt.text)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var kv []string
			for _, e := range got {
				kv = append(kv, e.key+"="+e.value)
			}
			if strings.Join(kv, ",") != strings.Join(tt.want, ",") {
				t.Errorf("got %v, want %v", kv, tt.want)
			}
		})
	}
}

func FuzzParseSimConfig(f *testing.F) {
	for _, s := range []string{"a: 1\n", "# x\nb: 'y' # z\n", "a:\n  b: 1", "a: [1]", "a: \"", "---\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		entries, err := parseSimConfig(text)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, e := range entries {
			if e.key == "" || seen[e.key] || strings.ContainsAny(e.key, " \t\"'\n") || e.line < 1 {
				t.Fatalf("bad entry %+v from %q", e, text)
			}
			seen[e.key] = true
		}
	})
}
