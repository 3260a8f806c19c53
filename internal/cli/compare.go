package cli

import (
	"io"
	"math"

	"github.com/gobench/gobench/internal/argparse"
	"github.com/gobench/gobench/internal/compare"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/spf13/cobra"
)

// CompareOptions is what `gobench compare` runs.
type CompareOptions struct {
	// Specs name the results (PATH, PATH#INDEX or PATH#LABEL); the first
	// is the baseline.
	Specs []string
	// Format is text, markdown or json.
	Format string
	// Stats sets the significance test.
	Stats compare.Options
}

const compareLong = `Compare saved results (gobench's or vLLM's own --save-result files): one
table of every metric the files share, the value in each, the absolute and
relative change from the first file (the baseline) and whether lower or
higher is better, after a list of the runs' settings: vLLM's (rate,
concurrency, model, ...) and the workload gobench records (dataset,
lengths, seed, sampling parameters, SLOs, percentiles, tokenizer), then
each run's command line. A metric that is 0 or absent in every file (rtfx
of text runs) is left out and named below the table; failed stays.
Results of gobench serve against a server with /metrics add a "Server
view" part: each run's diagnosis verdict (a change is marked) and the
server's figures (latency p50/p99, client-vs-server gaps, prefix-cache hit
rate, preemptions, peak gauges), keyed as --threshold names them.

When the results carry per-request data (--save-detailed), each latency
statistic (mean, median, percentiles of TTFT, TPOT, ITL, E2EL) also says
whether the change is real or noise: a two-sample percentile bootstrap
confidence interval of the difference, resampling the successful requests
(a request's ITLs stay together), seeded and reproducible. "real" means the
interval excludes 0. The default 99% level keeps the chance that two runs
of one configuration show any "real" change among a dozen statistics near
one in ten; at 95% it would be one in two.

A file written with --append-result holds several runs: choose one with
FILE#INDEX (from 0; -1 is the last) or FILE#LABEL, or give that file alone
to compare all its runs with its first. A damaged line (a record cut short,
garbage) is skipped with a warning naming the file and line; INDEX counts
the intact runs only.

Set files (FILE-set.json, written by serve --num-runs) compare with other
set files only: each metric's mean and standard deviation across each
set's runs, the change of the means, and two verdicts: across runs
(Welch's t interval of the difference of the runs' values: larger than the
run-to-run spread?) and within runs (the bootstrap above over each set's
requests pooled: larger than the request-to-request spread?), both at
--confidence.

Exit status: 0 compared, 1 unreadable file, 2 bad command line or no such
run.`

const compareExample = `  gobench compare base.json new.json
  gobench compare base-set.json new-set.json   # two sets of serve --num-runs
  gobench compare runs.jsonl#base runs.jsonl#-1 --format markdown >> "$GITHUB_STEP_SUMMARY"
  gobench compare a.json b.json c.json --format json`

// maxResamples bounds --resamples: 500 times the default, and an interval
// array of that many floats per statistic still fits in memory.
const maxResamples = 1_000_000

func newCompareCmd(_ *Deps, runF func(*CompareOptions) error) *cobra.Command {
	o := &CompareOptions{}
	format := formatFlag("text", "markdown", "json")
	var seed, resamples *argparse.Int
	var confidence *argparse.Float
	cmd := &cobra.Command{
		Use:     "compare BASELINE RESULT [RESULT...] | compare RUNS.jsonl",
		Short:   "Compare saved results: every shared metric, its change, and whether it is real or noise",
		Long:    compareLong,
		Example: compareExample,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) < 1 {
				return argErrorf("compare needs at least two results (the first is the baseline), or one --append-result file of several runs")
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			if seed.Value() < 0 {
				return argErrorf("argument --seed: must be >= 0")
			}
			if resamples.Value() < 100 || resamples.Value() > maxResamples {
				return argErrorf("argument --resamples: must be between 100 and %d (got %d)", maxResamples, resamples.Value())
			}
			if !(confidence.Value() > 0.5 && confidence.Value() < 1) || math.IsNaN(confidence.Value()) {
				return argErrorf("argument --confidence: must be between 0.5 and 1 (exclusive), e.g. 0.99")
			}
			o.Specs, o.Format = args, format.Value()
			o.Stats = compare.Options{Seed: uint64(seed.Value()), Resamples: resamples.Value(), Confidence: confidence.Value()}
			return runF(o)
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.Var(format, "format", "Output: text, markdown (for a pull-request comment or CI summary) or json.")
	seed = argparse.NewInt("seed", 0)
	fs.Var(seed, "seed", "Seed of the bootstrap: the same files and seed give the same intervals.")
	resamples = argparse.NewInt("resamples", compare.DefaultResamples)
	fs.Var(resamples, "resamples", "Bootstrap resamples.")
	confidence = argparse.NewFloat("confidence", compare.DefaultConfidence)
	fs.Var(confidence, "confidence", "Confidence level of the intervals.")
	return cmd
}

// runCompare reads the results and prints the comparison.
func runCompare(deps *Deps, o *CompareOptions) error {
	if done, err := compareSets(deps, o); done {
		return err
	}
	runs, err := compareRuns(o.Specs, deps.Stderr)
	if err != nil {
		return err
	}
	c, err := compare.Compare(runs, o.Stats)
	if err != nil {
		return err
	}
	return formats{text: c.WriteText, markdown: c.WriteMarkdown, object: c.Object}.write(deps.Stdout, o.Format)
}

// compareRuns opens the results named on the command line, warning on
// warn about damaged lines. A single file of several runs
// (--append-result), named without a selector, stands for all its runs.
func compareRuns(specs []string, warn io.Writer) ([]*resultfile.Run, error) {
	if len(specs) == 1 {
		path, sel := resultfile.SplitSpec(specs[0])
		if sel != "" {
			return nil, argErrorf("compare needs at least two results (the first is the baseline)")
		}
		all, err := resultfile.ReadFile(path, warn)
		if err != nil {
			return nil, err
		}
		if len(all) < 2 {
			return nil, argErrorf("%s holds one run: give at least two results to compare", path)
		}
		return all, nil
	}
	runs := make([]*resultfile.Run, len(specs))
	for i, spec := range specs {
		r, err := openRun(spec, warn)
		if err != nil {
			return nil, err
		}
		runs[i] = r
	}
	return runs, nil
}
