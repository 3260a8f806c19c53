package cli

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gobench/gobench/internal/argparse"
	"github.com/gobench/gobench/internal/compare"
	"github.com/gobench/gobench/internal/exitcode"
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
	// All shows every metric, the settings and the command lines, not
	// only what changed for real.
	All bool
	// FailOn is "never" or "regression": exit status 4 when a change is
	// real and worse.
	FailOn string
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

The output leads with the workload settings in which a run differs from
the baseline (endpoint type, backend, model, tokenizer, prompts, rate,
burstiness, concurrency, ramp-up, and every value of gobench_workload
but the command line, percentiles and SLOs), then one headline per run
("B vs A: 3 real regressions, 2 real improvements, 14 within noise"),
then only the metrics that changed for real or could not be tested; --all
shows every metric, the settings, the command lines and the server's
figures. Text fits 100 columns.

--fail-on regression exits 4 when a change is real and worse: a latency
statistic whose interval lies wholly on the worse side of 0 (above it for
latencies); for sets, a metric whose interval across runs does. The
regressions are named on stderr.

Exit status: 0 compared, 1 unreadable file, 2 bad command line, no such
run, or --fail-on with nothing it can judge, 4 a real regression with
--fail-on regression.`

const compareExample = `  gobench compare base.json new.json
  gobench compare base-set.json new-set.json   # two sets of serve --num-runs
  gobench compare runs.jsonl#base runs.jsonl#-1 --format markdown >> "$GITHUB_STEP_SUMMARY"
  gobench compare a.json b.json c.json --format json
  gobench compare main.json pr.json --fail-on regression   # exit status 4 on a real regression
  gobench compare base.json new.json --all                 # every metric, the settings, the command lines`

// maxResamples bounds --resamples: 500 times the default, and an interval
// array of that many floats per statistic still fits in memory.
const maxResamples = 1_000_000

func newCompareCmd(_ *Deps, runF func(*CompareOptions) error) *cobra.Command {
	o := &CompareOptions{}
	format := formatFlag("text", "markdown", "json")
	failOn := argparse.NewChoice("fail-on", failNever, failNever, failRegression)
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
			o.Specs, o.Format, o.FailOn = args, format.Value(), failOn.Value()
			o.Stats = compare.Options{Seed: uint64(seed.Value()), Resamples: resamples.Value(), Confidence: confidence.Value()}
			return runF(o)
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.Var(format, "format", "Output: text, markdown (for a pull-request comment or CI summary) or json.")
	fs.BoolVar(&o.All, "all", false, "Show every metric, the settings, the command lines and the server's figures, not only what changed for real.")
	fs.Var(failOn, "fail-on", "Exit status 4 on a real change for the worse (regression), or never.")
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
	c.All = o.All
	tallies := make([]compare.Tally, len(runs)-1)
	for j := range tallies {
		tallies[j] = c.Tally(j + 1)
	}
	if err := (formats{text: c.WriteText, markdown: c.WriteMarkdown, object: c.Object}).write(deps.Stdout, o.Format); err != nil {
		return err
	}
	return failOnError(o.FailOn, c.Names, tallies, "the latency statistics' test needs per-request data: save both runs with --save-detailed")
}

// Values of compare's --fail-on.
const (
	failNever      = "never"
	failRegression = "regression"
)

// regressionError reports real regressions (exit status 4): per run, the
// metrics that changed for the worse.
type regressionError struct{ lines []string }

func (e *regressionError) Error() string {
	return "real regression: " + strings.Join(e.lines, "; ")
}

// ExitCode is exitcode.ThresholdFailed, the status of a failed gate.
func (e *regressionError) ExitCode() exitcode.Code { return exitcode.ThresholdFailed }

// failOnError is the outcome of --fail-on: a regressionError naming every
// real regression of each run (names[j+1] against names[0]), or, when
// nothing could be judged, a command-line error saying why (untested)
// rather than a pass that judged nothing.
func failOnError(failOn string, names []string, tallies []compare.Tally, untested string) error {
	if failOn != failRegression {
		return nil
	}
	var lines []string
	judged := false
	for j, t := range tallies {
		judged = judged || t.Tested()
		if len(t.Regressed) > 0 {
			judgedHere := t.Regressions + t.Improvements + t.Real + t.Noise
			lines = append(lines, fmt.Sprintf("%s vs %s: %s (%d of the %d metrics judged)", names[j+1], names[0],
				strings.Join(t.Regressed, ", "), len(t.Regressed), judgedHere))
		}
	}
	switch {
	case len(lines) > 0:
		return &regressionError{lines: lines}
	case !judged:
		return argErrorf("argument --fail-on: no change could be judged real or noise: %s", untested)
	}
	return nil
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
