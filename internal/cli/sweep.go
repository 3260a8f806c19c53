package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/gobench/gobench/internal/argparse"
	"github.com/gobench/gobench/internal/run"
	"github.com/gobench/gobench/internal/sweep"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// SweepOptions is what `gobench sweep serve` and `sweep serve_workload`
// run.
type SweepOptions struct {
	// Sweep holds the commands, combinations and layout.
	Sweep sweep.Options
	// bench is the bench command, parsed once; each run sets its
	// parameters on a copy of its options.
	bench *benchLine
}

const sweepLong = `Run gobench serve over combinations of server and benchmark parameters, as
"vllm bench sweep" does, with vLLM's layout of result files, so that vLLM's
"vllm bench sweep plot" reads gobench's sweeps and gobench resumes vLLM's.`

// newSweepCmd builds the `gobench sweep` group. A further kind of sweep is
// one more AddCommand here (e.g. cmd.AddCommand(newSweepSLACmd(deps, ...))).
func newSweepCmd(deps *Deps, intr *interrupts) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Sweep server and benchmark parameters, or search the largest load meeting SLOs (vllm bench sweep serve, serve_workload, serve_sla)",
		Long:  sweepLong,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return argErrorf("unknown command %q for %q%s", args[0], "gobench sweep", suggestCommand(cmd, args[0]))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	runF := func(ctx context.Context, o *SweepOptions) error { return runSweep(ctx, deps, o, intr) }
	cmd.AddCommand(newSweepServeCmd(deps, false, runF), newSweepServeCmd(deps, true, runF),
		newSLACmd(deps, func(ctx context.Context, o *SLAOptions) error { return runSLA(ctx, deps, o, intr) }))
	return cmd
}

const sweepServeLong = `Start the server of --serve-cmd once per combination of --serve-params
(health-checked on GET /health, stopped afterwards: SIGTERM to its process
group, SIGKILL after 10 s), and run the --bench-cmd against it once per
combination of --bench-params, --num-runs times each; vLLM's "vllm bench
sweep serve". Without --serve-cmd the server is already running.

The bench command is a gobench serve command line; vLLM's "vllm bench serve
..." is the same command. It is read once and its runs go inside this
process (no shell, no second binary). Commands are split as Python's
shlex.split does.

A parameter file is a JSON list of objects, or an object of named objects:
[{"max_num_seqs": 8}, {"max_num_seqs": 32}] or {"small": {"max_num_seqs": 8}}.
Each key is a flag (max_num_seqs or max-num-seqs). On the server command it
replaces the flag or is appended; true is --key, false --no-key, an object
its JSON. On the bench command it sets that gobench serve flag for the run,
as the command line would; a key that names no such flag, or one no single
run can set (--num-runs, --threshold, --sim-*, ...), is refused before the
first run.

Results: OUTPUT_DIR/EXPERIMENT/SERVE--<serve comb>-BENCH--<bench comb>/
run=N.json (the run's result with run_number and the parameters),
summary.json (the list of runs: what "vllm bench sweep plot" reads) and
OUTPUT_DIR/EXPERIMENT/summary.csv; gobench adds the server's output
(SERVE-<name>-server.log) and a table of the runs (printed, and saved as
sweep_table.csv and sweep_table.json). A run that fails or is interrupted
leaves no result; --resume runs only what has none.

Exit status: 0 success, 1 a server or run failed, 2 bad command line, 130
interrupted (completed runs are kept).`

const sweepServeExample = `  gobench sweep serve --serve-cmd 'gobench sim --port 8000 --preset 8b-1gpu' \
    --bench-cmd 'gobench serve --base-url http://localhost:8000 --num-prompts 200' \
    --serve-params serve.json --bench-params bench.json --num-runs 1 -e demo
  gobench sweep serve ... -e demo --resume      # continue an interrupted sweep
  gobench sweep serve ... --dry-run             # list the commands only`

const sweepWorkloadLong = `Explore the latency-throughput trade-off of each combination, as "vllm bench
sweep serve_workload" does: a serial run (max concurrency 1) and a batch run
(max concurrency = the number of prompts) measure the load the server
sustains, then --workload-iters levels of --workload-var (request_rate or
max_concurrency) in between, each in a folder ending WL-<var>=<value>.
Everything else is "gobench sweep serve".`

// newSweepServeCmd builds `sweep serve`, or `sweep serve_workload` when
// workload is set.
func newSweepServeCmd(deps *Deps, workload bool, runF func(context.Context, *SweepOptions) error) *cobra.Command {
	f := newSweepFlags(workload)
	cmd := &cobra.Command{
		Use:     "serve [flags]",
		Short:   "Run a benchmark for every combination of server and benchmark parameters",
		Long:    sweepServeLong,
		Example: sweepServeExample,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := f.options(cmd.Context(), deps)
			if err != nil {
				return err
			}
			return runF(cmd.Context(), o)
		},
	}
	if workload {
		cmd.Use, cmd.Aliases = "serve_workload [flags]", []string{"serve-workload"}
		cmd.Short = "Explore the latency-throughput trade-off between serial and batch load"
		cmd.Long, cmd.Example = sweepWorkloadLong, ""
	}
	f.register(cmd.Flags())
	cmd.Flags().SortFlags = false
	return cmd
}

// runSweep runs a parsed sweep: the first interrupt stops it (the run in
// progress is cancelled and leaves no result; the completed ones stay).
func runSweep(ctx context.Context, deps *Deps, o *SweepOptions, intr *interrupts) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-intr.stop:
			fmt.Fprintln(deps.Stderr, "Stopping the sweep: the run in progress is cancelled; completed runs are kept (--resume continues).")
			cancel()
		case <-ctx.Done():
		}
	}()
	// One live view (and --metrics-listen endpoint) for the whole sweep,
	// its runs counted in turn, as serve's own sweeps draw it.
	live := o.bench.base.Live
	stopLive, err := live.start(deps, o.bench.base.Run.DisableProgress || o.Sweep.DryRun)
	if err != nil {
		return err
	}
	defer stopLive()
	env := sweep.Env{Stdout: deps.Stdout, Stderr: deps.Stderr, Now: deps.Now, Run: o.bench.runner(deps, &live)}
	return sweep.Run(ctx, o.Sweep, env)
}

// runner runs a sweep's benchmark runs in this process, each one serve
// run of the bench command's options with the run's parameters set, as
// `gobench serve` carries it out (printed, reported, gated; the simulator
// started for it when the command says --sim), with this process's
// surroundings but no interrupt steps of its own (the sweep's context
// carries an interrupt) and no progress bar.
func (b *benchLine) runner(deps *Deps, live *ServeLive) sweep.Runner {
	guard := &cacheGuard{what: "run"}
	return func(ctx context.Context, bench sweep.Bench) error {
		so, err := b.apply(bench.Params)
		if err != nil {
			return err
		}
		if !bench.ResetsCaches && so.Sim == nil { // a server of the user's, which nothing else clears
			same := func(o run.Options) run.Options { return o }
			if err := guard.prepare(ctx, deps, same, &so.Run, bench.Index+1, true); err != nil {
				return err
			}
		}
		so.Live = *live // the sweep's watchers; the bar is theirs to draw
		d := *deps
		d.Stdout, d.IsTerminal, d.Signals = bench.Stdout, false, nil
		_, err = serveRuns(ctx, &d, so, newInterrupts())
		return err
	}
}

// expandSweepShort spells the short flags -o and -e of vLLM's sweep long
// (--output-dir, --experiment-name) before argparse.Normalize, which reads
// long flags only.
func expandSweepShort(args []string) []string {
	return argparse.ExpandShort(args, map[string]string{"-o": "--output-dir", "-e": "--experiment-name"})
}

// isSweepCmd reports whether cmd is a subcommand of `gobench sweep`.
func isSweepCmd(cmd *cobra.Command) bool {
	return cmd.HasParent() && cmd.Parent().Name() == "sweep" && cmd.Parent().HasParent() && !cmd.Parent().Parent().HasParent()
}

// sweepFlags are the flags of `sweep serve` (vLLM's SweepServeArgs
// add_cli_args, vllm/benchmarks/sweep/serve.py@11dfa3169) and of
// serve_workload (SweepServeWorkloadArgs).
type sweepFlags struct {
	serveCmd, benchCmd, afterBenchCmd       string
	serveParams, benchParams, linkVars      string
	outputDir, experimentName               string
	showStdout, continueOnError, dry, resum bool
	readyTimeout, numRuns, warmup           *argparse.Int
	workloadVar                             *argparse.Choice
	workloadIters                           *argparse.Int
	workload                                bool
}

func newSweepFlags(workload bool) *sweepFlags {
	return &sweepFlags{outputDir: "results", workload: workload,
		readyTimeout: argparse.NewInt("server-ready-timeout", 300), numRuns: argparse.NewInt("num-runs", 3), warmup: argparse.NewInt("warmup-num-prompts", 0),
		workloadVar: argparse.NewChoice("workload-var", "request_rate", "request_rate", "max_concurrency"), workloadIters: argparse.NewInt("workload-iters", 10)}
}

func (f *sweepFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.serveCmd, "serve-cmd", "", "The command that starts the server, e.g. 'vllm serve MODEL --port 8000' or 'gobench sim --port 8000'; none: the server is already running.")
	fs.StringVar(&f.benchCmd, "bench-cmd", "", "The benchmark: 'gobench serve ...' or vLLM's 'vllm bench serve ...' (required).")
	fs.StringVar(&f.afterBenchCmd, "after-bench-cmd", "", "Run after each benchmark run instead of resetting the server's caches (POST /reset_prefix_cache, /reset_mm_cache, /reset_encoder_cache; vllm and gobench servers only).")
	fs.BoolVar(&f.showStdout, "show-stdout", false, "Show the standard output of the runs and commands (on stderr).")
	fs.Var(f.readyTimeout, "server-ready-timeout", "Seconds to wait for the server to answer GET /health.")
	fs.StringVar(&f.serveParams, "serve-params", "", "JSON file of the server's parameter combinations (a list of objects, or an object of named objects).")
	fs.StringVar(&f.linkVars, "link-vars", "", "Serve and bench keys that must be equal for a combination to run, e.g. max_num_seqs=max_concurrency.")
	fs.StringVar(&f.benchParams, "bench-params", "", "JSON file of the benchmark's parameter combinations; with --serve-params, their Cartesian product runs.")
	fs.StringVarP(&f.outputDir, "output-dir", "o", f.outputDir, "The folder of the experiments.")
	fs.StringVarP(&f.experimentName, "experiment-name", "e", "", "The experiment's folder in --output-dir (default: the time, YYYYmmdd_HHMMSS).")
	fs.Var(f.numRuns, "num-runs", "Runs of each combination.")
	fs.Var(f.warmup, "warmup-num-prompts", "Prompts of an unmeasured warm-up run before each combination (warmup.json); 0: none.")
	fs.BoolVar(&f.continueOnError, "continue-on-error", false, "Record a failed run or server (*.failure.json) and go on.")
	fs.BoolVar(&f.dry, "dry-run", false, "Print the commands, run nothing.")
	fs.BoolVar(&f.resum, "resume", false, "Continue the experiment: run only the runs that have no result file.")
	if f.workload {
		fs.Var(f.workloadVar, "workload-var", "The load variable to explore: request_rate or max_concurrency.")
		fs.Var(f.workloadIters, "workload-iters", "Load levels to run, the serial and the batch one included.")
	}
}

// options splits the commands, reads the parameter files, parses the
// bench command and checks the values, every bench combination's among
// them.
func (f *sweepFlags) options(ctx context.Context, deps *Deps) (*SweepOptions, error) {
	if f.benchCmd == "" {
		return nil, argErrorf("the following arguments are required: --bench-cmd")
	}
	o := sweep.Options{OutputDir: f.outputDir, ExperimentName: f.experimentName, ShowStdout: f.showStdout,
		ServerReadyTimeout: time.Duration(f.readyTimeout.Value()) * time.Second, NumRuns: f.numRuns.Value(),
		WarmupNumPrompts: f.warmup.Value(), ContinueOnError: f.continueOnError, DryRun: f.dry, Resume: f.resum}
	if f.workload {
		o.Workload = &sweep.Workload{Var: f.workloadVar.Value(), Iters: f.workloadIters.Value()}
	}
	for _, c := range []struct {
		flag, text string
		dst        *[]string
	}{{"serve-cmd", f.serveCmd, &o.ServeCmd}, {"bench-cmd", f.benchCmd, &o.BenchCmd}, {"after-bench-cmd", f.afterBenchCmd, &o.AfterBenchCmd}} {
		words, err := sweep.Split(c.text)
		if err != nil {
			return nil, argErrorf("argument --%s: %v", c.flag, err)
		}
		*c.dst = words
	}
	var err error
	if o.ServeParams, err = readParams("serve-params", f.serveParams); err != nil {
		return nil, err
	}
	if o.BenchParams, err = readParams("bench-params", f.benchParams); err != nil {
		return nil, err
	}
	if o.LinkVars, err = sweep.ParseLinkVars(f.linkVars); err != nil {
		return nil, argErrorf("argument --link-vars: %v", err)
	}
	if f.experimentName == "" {
		o.ExperimentName = deps.Now().Format("20060102_150405")
	}
	bench, err := parseBenchLine(ctx, deps, o.BenchCmd)
	if err != nil {
		return nil, err
	}
	if err := bench.checkParams(o.BenchParams); err != nil {
		return nil, err
	}
	o.BenchNumPrompts = bench.base.Run.NumPrompts
	return &SweepOptions{Sweep: o, bench: bench}, nil
}

// readParams reads a parameter file, or gives the one empty combination
// when none is named.
func readParams(flag, path string) (sweep.Params, error) {
	if path == "" {
		return sweep.One(), nil
	}
	p, err := sweep.ReadParams(path)
	if err != nil {
		return nil, argErrorf("argument --%s: %v", flag, err)
	}
	return p, nil
}
