package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
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

// TestSimFlags: `gobench sim`'s flags, presets and --config file give the
// simulator's configuration, which starts.
func TestSimFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "sim.yaml")
	if err := os.WriteFile(cfgFile, []byte("# an engine that is easy to fill\nmax-num-seqs: 4\nmax_num_batched_tokens: 512\n"+
		"fault-http-503: '0.25'\nenable-prefix-caching: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, c sim.Config)
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o, errOut, code := parseSim(t, tt.args...)
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

// TestSimFlagErrors: a mistake on `gobench sim`'s command line or in its
// --config file is a usage error that says what is wrong.
func TestSimFlagErrors(t *testing.T) {
	t.Parallel()
	badFile := filepath.Join(t.TempDir(), "bad.yaml")
	_ = os.WriteFile(badFile, []byte("max-num-sequences: 4\n"), 0o644)
	for _, tt := range []struct {
		name    string
		args    []string
		wantErr string
	}{
		{name: "unknown preset", args: []string{"--preset", "h100"}, wantErr: "unknown preset \"h100\" (choose from 8b-1gpu, batch-overload, fixed, frontend-delay, head-of-line, healthy, kv-full, kv-thrashing, prefill-interference, prefix-hostile, saturated, seq-limit, small-cache, spec-decode)"},
		{name: "fixed engine with engine flags", args: []string{"--engine", "fixed", "--max-num-seqs", "4"},
			wantErr: "--max-num-seqs configure the scheduler engine, not --engine fixed"},
		{name: "latency flags with the scheduler", args: []string{"--preset", "8b-1gpu", "--ttft", "0.1"},
			wantErr: "--ttft set the fixed engine's latencies"},
		{name: "bad fault rule", args: []string{"--fault-http-429", "2"}, wantErr: "argument --fault-http-429: fault rate \"2\" must be in [0, 1]"},
		{name: "bad engine", args: []string{"--engine", "gpu"}, wantErr: "argument --engine: invalid choice: 'gpu'"},
		{name: "unknown config option", args: []string{"--config", badFile}, wantErr: "line 1: unknown option \"max-num-sequences\""},
		{name: "cache smaller than a request", args: []string{"--num-gpu-blocks-override", "16"},
			wantErr: "cannot hold one request of the max model length 32768 (--max-model-len)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, errOut, code := parseSim(t, tt.args...)
			if code != int(exitcode.BadUsage) || !strings.Contains(errOut, tt.wantErr) {
				t.Fatalf("exit %d, stderr %q, want %q", code, errOut, tt.wantErr)
			}
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
	if o.Sim == nil || o.Sim.Scheduler == nil || o.Sim.Scheduler.MaxNumSeqs != 8 || o.Sim.RecordPath != "t.jsonl" ||
		o.Sim.Faults.Rules[sim.FaultHTTP503].Rate != 0.5 || !o.Sim.EnablePerRequestMetrics {
		t.Errorf("sim options %+v, record %q", o.Sim, o.Sim.RecordPath)
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

// TestSimCommand runs `gobench sim` on a free port until its context ends:
// it prints its banner, serves, writes the record's header and exits 0.
func TestSimCommand(t *testing.T) {
	t.Parallel()
	rec := filepath.Join(t.TempDir(), "truth.jsonl")
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"sim", "--port", "0", "--preset", "saturated", "--record", rec, "--disable-log-stats"},
			Deps{Stdout: pw, Stderr: io.Discard})
		_ = pw.Close()
	}()
	banner, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	const want = `(model "gobench/sim", engine scheduler: max-num-seqs 8, `
	if !strings.HasPrefix(banner, "gobench sim listening on http://127.0.0.1:") || !strings.Contains(banner, want) {
		t.Errorf("banner %q", banner)
	}
	url := strings.Fields(banner)[4]
	resp, err := http.Get(url + "/health")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("GET /health: %v", err)
	}
	if resp != nil {
		_ = resp.Body.Close()
	}
	cancel()
	if code := <-done; code != int(exitcode.OK) {
		t.Errorf("exit %d", code)
	}
	if b, err := os.ReadFile(rec); err != nil || !strings.Contains(string(b), `"engine":"scheduler"`) {
		t.Errorf("record %q (%v)", b, err)
	}
}

// TestSimLogsRequestsOnlyWhenAsked: `gobench sim` writes no line per
// request unless --enable-log-requests asks for it, as `vllm serve` does;
// --disable-log-stats keeps the periodic stats line off either way (issue
// 10, item 10).
func TestSimLogsRequestsOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		flags []string
		want  bool
	}{
		{nil, false},
		{[]string{"--enable-log-requests"}, true},
	} {
		t.Run(strings.Join(append([]string{"flags"}, tt.flags...), " "), func(t *testing.T) {
			t.Parallel()
			stderr := simLog(t, tt.flags...)
			request := regexp.MustCompile(`(?m)^\S+ sim: POST /v1/completions 200 id=cmpl-log-1 stream=false prompt_tokens=\d+ ` +
				`completion_tokens=3/3 finish=length dur=\S+$`)
			if got := request.MatchString(stderr); got != tt.want {
				t.Errorf("a line for the request: %t, want %t; stderr:\n%s", got, tt.want, stderr)
			}
			if strings.Contains(stderr, "Avg prompt throughput") || !strings.Contains(stderr, "sim: shutting down") {
				t.Errorf("stderr:\n%s", stderr)
			}
		})
	}
}

// simLog runs `gobench sim` with flags, sends it one request, stops it and
// returns what it wrote on stderr.
func simLog(t *testing.T, flags ...string) string {
	t.Helper()
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr bytes.Buffer // written by the server until Main returns
	done := make(chan int, 1)
	go func() {
		args := append([]string{"sim", "--port", "0", "--disable-log-stats", "--log-stats-interval", "0.01"}, flags...)
		done <- Main(ctx, args, Deps{Stdout: pw, Stderr: &stderr})
		_ = pw.Close()
	}()
	banner, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	req, _ := http.NewRequest(http.MethodPost, strings.Fields(banner)[4]+"/v1/completions",
		strings.NewReader(`{"prompt":"a b","max_tokens":3,"ignore_eos":true}`))
	req.Header.Set("X-Request-Id", "log-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	cancel()
	if code := <-done; code != int(exitcode.OK) {
		t.Fatalf("exit %d\n%s", code, &stderr)
	}
	return stderr.String()
}
