package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/argparse"
	"github.com/gobench/gobench/internal/capacity"
	"github.com/gobench/gobench/internal/compare"
	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/readlimit"
	"github.com/gobench/gobench/internal/sweep"
	"github.com/spf13/cobra"
)

// SLAOptions is what `gobench sweep sla` runs: a search (capacity.Config, whose
// Requests come from the serve command line's --num-prompts) over the
// serve run the command line after "--" describes.
type SLAOptions struct {
	// Serve is the serve command line's options: the base of every point.
	Serve *ServeOptions
	// Search is the search; its runner is built by runSLA.
	Search capacity.Config
	// OutputDir receives sla.json and a directory per point.
	OutputDir string
}

const slaLong = `Search the largest request rate (or concurrency) at which a server still
meets its service level objectives: vLLM's "vllm bench sweep serve_sla",
with verdicts that are statistically sound and a time budget.

The serve run to repeat is the command line after "--" (gobench serve's
flags, with or without a leading "serve", "gobench serve" or "vllm bench
serve"); every point is that run with --request-rate (or --max-concurrency)
set by the search and --num-prompts requests, its result saved in
OUTPUT-DIR/<variable>=<value>/run=<n>.json with per-request data and its
transcript in run=<n>.log.

Objectives: --goodput on the serve command line (ttft:500 tpot:50 e2el:...)
with --sla-good-ratio, the share of requests that must meet all of them; or
percentile objectives with --sla (p99_ttft_ms<=500, vLLM's --sla-params
form, which also reads them from a JSON file). A request that failed meets
no objective. Each becomes a statistic of per-request scores (value/limit,
the worst over the limits): the good-ratio form is the 100·R-th percentile
of the scores, which is at most 1 exactly when a share R of the requests
meets every limit.

Search: the maximum (--sla-max; request_rate inf) first, as vLLM does; then,
for the rate, the throughput the maximum reached (no larger rate can be
served), halving until a load passes; then geometric bisection until the
smallest failing load is within --sla-tolerance of the largest passing one
(one apart for the concurrency).

Verdicts: each point's statistic gets a percentile bootstrap interval over
its requests (compare's, at --sla-confidence). Pass: the interval is within
the limit; fail: it is past it; otherwise (or with too few requests for the
percentile: 2/(1 - P/100), 200 for p99) the point is run again with twice
the requests, up to --sla-max-reruns times, and then counts as failing: the
answer is a load shown to meet the objectives. At a finite request rate a
point also fails when the server did not keep up ("kept up" below 90%: the
requests' ends spread over more time than their starts), whatever the
latencies of a run too short for the queue to reach the objectives.

Output: a line per point on stderr as it ends; the table of points and the
answer on stdout, "[largest pass, smallest fail)"; sla.json in the output
directory. --time-budget bounds the whole search: a point that would not end
within it is not started, one running at its end is stopped.

Exit status: 0 searched (whatever the answer), 1 error, 2 bad command line,
130 interrupted (the points measured are still printed and saved).`

const slaExample = `  # The largest request rate at which 99% of requests get their first token
  # within 500 ms and their tokens every 50 ms, on the built-in simulator:
  gobench sweep sla --output-dir sla-out --time-budget 300 -- \
    --sim --sim-preset 8b-1gpu --dataset-name random --random-input-len 512 \
    --random-output-len 64 --num-prompts 400 --goodput ttft:500 tpot:50

  # The largest concurrency at which p99 TTFT stays under 2 s, against vLLM:
  gobench sweep sla --sla-variable max_concurrency --sla 'p99_ttft_ms<=2000' -- \
    vllm bench serve --base-url http://localhost:8000 --model Qwen/Qwen3-8B \
    --dataset-name random --num-prompts 500`

// slaFlags are `gobench sweep sla`'s own flags.
type slaFlags struct {
	variable                      *argparse.Choice
	criteria                      *argparse.List
	params, outputDir             string
	goodRatio, minLoad, maxLoad   *argparse.Float
	tolerance, confidence, budget *argparse.Float
	reruns                        *argparse.Int
}

func newSLACmd(deps *Deps, runF func(context.Context, *SLAOptions) error) *cobra.Command {
	f := &slaFlags{
		variable:  argparse.NewChoice("sla-variable", string(capacity.RequestRate), string(capacity.RequestRate), string(capacity.MaxConcurrency)),
		criteria:  &argparse.List{},
		goodRatio: argparse.NewFloat("sla-good-ratio", 0.99), minLoad: argparse.NewFloat("sla-min", 1), maxLoad: argparse.NewFloat("sla-max", 0),
		tolerance: argparse.NewFloat("sla-tolerance", 0.05), confidence: argparse.NewFloat("sla-confidence", 0.95),
		budget: argparse.NewFloat("time-budget", 3600), reruns: argparse.NewInt("sla-max-reruns", 2), outputDir: "results",
	}
	cmd := &cobra.Command{
		Use:     "serve_sla [flags] -- [serve] SERVE-FLAGS",
		Aliases: []string{"sla"},
		Short:   "Find the largest load that meets SLOs (vllm bench sweep serve_sla)",
		Long:    slaLong,
		Example: slaExample,
		Args: func(cmd *cobra.Command, args []string) error {
			if cmd.ArgsLenAtDash() != 0 {
				return argErrorf(`the serve run to search goes after "--": gobench sweep sla [flags] -- --sim --goodput ttft:500`)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o, err := f.options(cmd.Context(), deps, args)
			if err != nil {
				return err
			}
			return runF(cmd.Context(), o)
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.Var(f.variable, "sla-variable", "The load to search: request_rate (--request-rate) or max_concurrency (--max-concurrency).")
	fs.Var(f.criteria, "sla", "A percentile objective KEY<=MS (or KEY<MS), KEY a result statistic of ttft, tpot, itl or e2el: p99_ttft_ms<=500, median_e2el_ms<=3000. Repeat for several; a load meets them when all pass.")
	fs.StringVar(&f.params, "sla-params", "", "vLLM's JSON file of objectives: one object of KEY: \"<=MS\" (or a list holding one), as --sla.")
	fs.Var(f.goodRatio, "sla-good-ratio", "With --goodput on the serve command line: the share of requests that must meet every --goodput limit.")
	fs.Var(f.minLoad, "sla-min", "Smallest load searched.")
	fs.Var(f.maxLoad, "sla-max", "Largest load searched, tried first (default: request_rate inf; max_concurrency the --num-prompts).")
	fs.Var(f.tolerance, "sla-tolerance", "Relative resolution: the search ends when the smallest failing load is within this share above the largest passing one.")
	fs.Var(f.confidence, "sla-confidence", "Confidence level of each point's bootstrap interval.")
	fs.Var(f.reruns, "sla-max-reruns", "Longer re-runs (twice the requests each) of a point whose interval straddles a limit; still unsure after them, it counts as failing.")
	fs.Var(f.budget, "time-budget", "Seconds the whole search may take.")
	fs.StringVar(&f.outputDir, "output-dir", f.outputDir, "Directory of sla.json and of each point's result file and transcript.")
	return cmd
}

// options checks the flags and parses the serve command line.
func (f *slaFlags) options(ctx context.Context, deps *Deps, args []string) (*SLAOptions, error) {
	so, err := parseServeLine(ctx, deps, args)
	if err != nil {
		return nil, err
	}
	if so.Run.DryRun {
		return nil, argErrorf("--dry-run: gobench sweep sla runs its points; give --dry-run to gobench serve to see one point's requests")
	}
	if g := so.Gate; len(g.Thresholds) > 0 || g.SummaryFile != "" || g.Format != "text" {
		return nil, argErrorf("--threshold, --summary-file and --format are serve's: gobench sweep sla judges its points by its objectives and prints its own table")
	}
	switch {
	case f.variable.Value() == string(capacity.RequestRate) && !math.IsInf(so.Run.Schedule.RequestRate, 1):
		return nil, argErrorf("--request-rate: the search sets it (vLLM refuses it in bench_params too); leave it out of the serve line")
	case f.variable.Value() == string(capacity.MaxConcurrency) && so.Run.MaxConcurrency != 0:
		return nil, argErrorf("--max-concurrency: the search sets it (vLLM refuses it in bench_params too); leave it out of the serve line")
	}
	criteria, err := f.objectives(so)
	if err != nil {
		return nil, err
	}
	c := capacity.Config{Variable: capacity.Variable(f.variable.Value()), Criteria: criteria, Min: f.minLoad.Value(),
		Max: f.maxLoad.Value(), Tolerance: f.tolerance.Value(), Requests: so.Run.NumPrompts, MaxReruns: f.reruns.Value(), Now: deps.Now,
		Bootstrap: compare.Options{Confidence: f.confidence.Value(), Seed: uint64(so.Run.Seed)}}
	if !f.maxLoad.Given() {
		c.Max = math.Inf(1)
		if c.Variable == capacity.MaxConcurrency {
			c.Max = float64(so.Run.NumPrompts)
		}
	}
	if err := f.checkNumbers(&c); err != nil {
		return nil, err
	}
	return &SLAOptions{Serve: so, Search: c, OutputDir: f.outputDir}, nil
}

// checkNumbers checks the numeric flags, naming each.
func (f *slaFlags) checkNumbers(c *capacity.Config) error {
	switch {
	case !(f.confidence.Value() > 0.5 && f.confidence.Value() < 1):
		return argErrorf("argument --sla-confidence: must be between 0.5 and 1 (exclusive), e.g. 0.95 (got %s)", pyfmt.Float(f.confidence.Value()))
	case !(f.budget.Value() > 0) || !(f.budget.Value() < 1e7):
		return argErrorf("argument --time-budget: must be a positive number of seconds below 10**7 (got %s)", pyfmt.Float(f.budget.Value()))
	case !(f.minLoad.Value() > 0) || math.IsInf(f.minLoad.Value(), 0):
		return argErrorf("argument --sla-min: must be a positive number (got %s)", pyfmt.Float(f.minLoad.Value()))
	case !(c.Max >= c.Min):
		return argErrorf("argument --sla-max: must be at least --sla-min %s (got %s)", pyfmt.Float(c.Min), pyfmt.Float(c.Max))
	case c.Variable == capacity.MaxConcurrency && (c.Min != math.Floor(c.Min) || c.Max != math.Floor(c.Max) || math.IsInf(c.Max, 0)):
		return argErrorf("argument --sla-max/--sla-min: a concurrency is a whole number (got %s and %s)", pyfmt.Float(c.Min), pyfmt.Float(c.Max))
	case !(f.tolerance.Value() > 0 && f.tolerance.Value() <= 1):
		return argErrorf("argument --sla-tolerance: must be in (0, 1], e.g. 0.05 (got %s)", pyfmt.Float(f.tolerance.Value()))
	case f.reruns.Value() < 0 || f.reruns.Value() > 10:
		return argErrorf("argument --sla-max-reruns: must be between 0 and 10 (got %d)", f.reruns.Value())
	}
	c.Budget = time.Duration(f.budget.Value() * float64(time.Second))
	return c.Validate()
}

// objectives are the criteria: --goodput with --sla-good-ratio, --sla,
// --sla-params.
func (f *slaFlags) objectives(so *ServeOptions) ([]capacity.Criterion, error) {
	var cs []capacity.Criterion
	if len(so.Run.Goodput) > 0 {
		c, err := capacity.GoodputCriterion(so.Run.Goodput, f.goodRatio.Value())
		if err != nil {
			name := "--sla-good-ratio"
			if !strings.Contains(err.Error(), "share") {
				name = "--goodput"
			}
			return nil, argErrorf("argument %s: %v", name, err)
		}
		cs = append(cs, c)
	}
	texts := slices.Clone(f.criteria.Value())
	if f.params != "" {
		more, err := readSLAParams(f.params)
		if err != nil {
			return nil, err
		}
		texts = append(texts, more...)
	}
	for _, t := range texts {
		c, err := capacity.ParseCriterion(t)
		if err != nil {
			return nil, argErrorf("argument --sla: %v", err)
		}
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		return nil, argErrorf("no objective: give --goodput (with --sla-good-ratio) on the serve command line, or --sla 'p99_ttft_ms<=500'")
	}
	return cs, nil
}

// readSLAParams reads vLLM's --sla-params file: a JSON object of KEY:
// "<=VALUE" (or a list holding one, vLLM's form for several searches,
// which gobench runs one command each).
func readSLAParams(path string) ([]string, error) {
	data, err := readlimit.File(path, 1<<20)
	if err != nil {
		return nil, argErrorf("argument --sla-params: %v", err)
	}
	var list []map[string]string
	if err := json.Unmarshal(data, &list); err != nil {
		var one map[string]string
		if err2 := json.Unmarshal(data, &one); err2 != nil {
			return nil, argErrorf("argument --sla-params: %s: not a JSON object of KEY: \"<=VALUE\" strings: %v", path, err)
		}
		list = []map[string]string{one}
	}
	if len(list) != 1 {
		return nil, argErrorf("argument --sla-params: %s holds %d sets of objectives; gobench sweep sla searches one per command", path, len(list))
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(list[0])) {
		out = append(out, k+list[0][k])
	}
	return out, nil
}

// withoutServeWords is args after the command words they start with:
// "gobench serve" (gobench as any path to it, sweep.IsGobench), vLLM's
// "vllm bench serve", or "serve".
func withoutServeWords(args []string) []string {
	if rest, err := sweep.BenchArgs(args); err == nil {
		return rest[1:]
	}
	if len(args) > 0 && args[0] == "serve" {
		return args[1:]
	}
	return args
}

// parseServeLine parses the serve command line after "--" as `gobench
// serve` would (vLLM's spellings, prefixes, --config), without running it.
func parseServeLine(ctx context.Context, deps *Deps, args []string) (*ServeOptions, error) {
	so, _, err := parseServeArgs(ctx, deps, args)
	if err != nil {
		return nil, fmt.Errorf("the serve command line after --: %w", err)
	}
	return so, nil
}

// parseServeArgs parses a serve command line, with or without its command
// words, as `gobench serve` would, without running it; words is the line
// as serve normalizes it ("serve", "--name=value", ...).
func parseServeArgs(ctx context.Context, deps *Deps, args []string) (*ServeOptions, []string, error) {
	args = withoutServeWords(args)
	var got *ServeOptions
	cmd := newServeCmd(deps, func(_ context.Context, o *ServeOptions) error {
		got = o
		return nil
	})
	cmd.SetFlagErrorFunc(toArgError)
	cmd.SetOut(deps.Stderr)
	cmd.SetErr(deps.Stderr)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	norm, err := argparse.Normalize(args, cmd.Flags(), listFlags)
	if err == nil {
		norm, err = argparse.WithConfig(norm, cmd.Flags(), listFlags, freshServeFlags)
	}
	if err == nil {
		cmd.SetArgs(norm)
		err = cmd.ExecuteContext(ctx)
	}
	if err == nil && got == nil {
		err = argErrorf("--help is not a serve run")
	}
	if err != nil {
		return nil, nil, err
	}
	return got, append([]string{"serve"}, norm...), nil
}
