package sweep

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Options are `gobench sweep serve`'s settings, vLLM's SweepServeArgs
// (vllm/benchmarks/sweep/serve.py@11dfa3169) with the commands already
// split (Split) and the parameter files read (ReadParams).
type Options struct {
	// ServeCmd starts the server of each serve combination; empty: the
	// server is already running (gobench's; vLLM requires one).
	ServeCmd []string
	// BenchCmd is a gobench serve command line (gobench serve ... or vllm
	// bench serve ...), as the sweep prints it; the Runner runs it.
	BenchCmd []string
	// BenchNumPrompts is the bench command's --num-prompts: the dataset
	// size of serve_workload where a combination does not set num_prompts
	// (vLLM's default when 0).
	BenchNumPrompts int
	// AfterBenchCmd runs after each benchmark run instead of the cache
	// resets; empty for the resets.
	AfterBenchCmd []string
	// ShowStdout shows the benchmark runs' and commands' standard output
	// (on Stderr: Stdout is the table's).
	ShowStdout bool
	// ServerReadyTimeout bounds the wait for a started server's /health.
	ServerReadyTimeout time.Duration
	// ServeParams and BenchParams are the combinations, each at least One().
	ServeParams, BenchParams Params
	// LinkVars pair a serve key with a bench key that must be equal for a
	// combination of both to run.
	LinkVars [][2]string
	// OutputDir and ExperimentName: the experiment is OutputDir/ExperimentName
	// (a timestamp when empty).
	OutputDir, ExperimentName string
	// NumRuns is the number of runs of each combination; WarmupNumPrompts
	// the prompts of one unmeasured run before them (0: none).
	NumRuns, WarmupNumPrompts int
	// ContinueOnError records a failed run or server and goes on.
	ContinueOnError bool
	// DryRun prints the commands without running them.
	DryRun bool
	// Resume continues an existing experiment: runs with a result file
	// are read back, not run again.
	Resume bool
	// Workload, when set, is serve_workload's exploration.
	Workload *Workload
}

// Workload is serve_workload's exploration of one load variable
// (vllm/benchmarks/sweep/serve_workload.py@11dfa3169).
type Workload struct {
	// Var is request_rate or max_concurrency.
	Var string
	// Iters is the number of load levels, the serial and the batch one
	// included (at least 2).
	Iters int
}

// ParseLinkVars reads --link-vars: "serve_key=bench_key" pairs separated
// by commas (parse_link_vars).
func ParseLinkVars(s string) ([][2]string, error) {
	if s == "" {
		return nil, nil
	}
	var out [][2]string
	for _, item := range strings.Split(s, ",") {
		a, b, ok := strings.Cut(item, "=")
		if !ok || strings.Contains(b, "=") {
			return nil, fmt.Errorf("%q is not serve_key=bench_key", item)
		}
		out = append(out, [2]string{strings.TrimSpace(a), strings.TrimSpace(b)})
	}
	return out, nil
}

// check refuses what vLLM refuses, with the flag named.
func (o *Options) check() error {
	switch {
	case o.NumRuns < 1:
		return errors.New("--num-runs should be at least 1")
	case o.WarmupNumPrompts < 0:
		return errors.New("--warmup-num-prompts should be at least 0")
	case o.Workload != nil && o.Workload.Iters < 2:
		return errors.New("--workload-iters should be at least 2")
	case o.Workload != nil && o.Workload.Var != "request_rate" && o.Workload.Var != "max_concurrency":
		return fmt.Errorf("--workload-var must be request_rate or max_concurrency, not %q", o.Workload.Var)
	case len(o.ServeParams) == 0 || len(o.BenchParams) == 0:
		return errors.New("a parameter file holds no combination")
	}
	if o.Workload != nil {
		for _, bc := range o.BenchParams {
			if bc.Has(o.Workload.Var) {
				return fmt.Errorf("--bench-params must not set %s: serve_workload explores it", o.Workload.Var)
			}
		}
	}
	_, err := BenchArgs(o.BenchCmd)
	return err
}

// BenchArgs are gobench's arguments for a bench command: "gobench serve
// ..." (gobench as a name, a path or the running executable, IsGobench)
// or vLLM's spelling "vllm bench serve ...", both as "serve ...".
func BenchArgs(cmd []string) ([]string, error) {
	prog := ""
	if len(cmd) > 0 {
		prog = programName(cmd[0])
	}
	switch {
	case len(cmd) > 1 && IsGobench(cmd[0]) && cmd[1] == "serve":
		return cmd[1:], nil
	case prog == "vllm" && len(cmd) > 2 && cmd[1] == "bench" && cmd[2] == "serve":
		return append([]string{"serve"}, cmd[3:]...), nil
	}
	return nil, fmt.Errorf("--bench-cmd must be a gobench serve command line (or vLLM's spelling vllm bench serve ...), got %q", strings.Join(cmd, " "))
}
