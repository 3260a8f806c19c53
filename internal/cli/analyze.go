package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gobench/gobench/internal/analyze"
	"github.com/gobench/gobench/internal/argparse"
	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/gate"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/serverview"
	"github.com/spf13/cobra"
)

// AnalyzeOptions is what `gobench analyze` runs.
type AnalyzeOptions struct {
	// Result names the detailed result (PATH, PATH#INDEX or PATH#LABEL).
	Result string
	// Recompute selects percentiles, metrics and SLOs ("" and nil: the
	// run's own, as far as the file tells).
	Recompute analyze.Options
	// Format is text (vLLM's block), markdown or json (the recomputed
	// result object).
	Format string
	// Thresholds are checked on the recomputed result.
	Thresholds []gate.Threshold
	// Baseline names the result relative thresholds compare with.
	Baseline string
}

const analyzeLong = `Recompute every metric of a run from its per-request data — a result saved
with --save-detailed by gobench serve or by vllm bench serve — and print the
block gobench serve prints, so that other percentiles or goodput SLOs can be
evaluated without sending the load again.

Without flags the block is the run's own: for a gobench file it equals, to
the last digit, the block the run printed, with the run's --goodput,
--percentile-metrics and --metric-percentiles as its gobench_workload
records them (older gobench files and vLLM's do not record --goodput: give
it again). --percentile-metrics, --metric-percentiles and --goodput take
vLLM's syntax and replace the run's selection. The server view the run
printed after its block (its server_view) follows, as it was.

vLLM's own files: per-request success is an empty error, output lengths
are the saved output_lens; where a file has no latencies, E2EL is TTFT plus
the ITLs, and what a file lacks the data for (start_times, queue_times) is
taken from its saved keys or left out, with a note on stderr.

--threshold checks the recomputed result (e.g. a new goodput) as gobench
check does, a statistic it lacks computed from the per-request data. Put the result file first: --goodput takes every value after it.

A file written with --append-result holds several runs: choose one with
FILE#INDEX (from 0; -1 is the last) or FILE#LABEL. A damaged line (a record
cut short, garbage) is skipped with a warning naming the file and line;
INDEX counts the intact runs only.

` + gateExitDoc

const analyzeExample = `  gobench analyze result.json
  gobench analyze result.json --goodput ttft:300 tpot:40 --metric-percentiles 50,90,99,99.9
  gobench analyze vllm-detailed.json --percentile-metrics ttft,tpot,itl,e2el --format markdown
  gobench analyze result.json --goodput ttft:300 --threshold 'request_goodput>=5'`

func newAnalyzeCmd(_ *Deps, runF func(*AnalyzeOptions) error) *cobra.Command {
	o := &AnalyzeOptions{}
	var thresholds argparse.Strings
	var goodput argparse.List
	format := formatFlag("text", "markdown", "json")
	cmd := &cobra.Command{
		Use:     "analyze RESULT [flags]",
		Short:   "Recompute the metrics of a --save-detailed result with other percentiles or SLOs",
		Long:    analyzeLong,
		Example: analyzeExample,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return argErrorf("analyze takes exactly one result file, got %d (%s); put it before --goodput, which takes every value after it",
					len(args), strings.Join(args, " "))
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			o.Result, o.Format = args[0], format.Value()
			if pm := o.Recompute.PercentileMetrics; pm != "" {
				if err := metrics.ValidatePercentileMetrics(metrics.ParsePercentileMetrics(pm)); err != nil {
					return exitcode.Usage(err)
				}
			}
			if o.Recompute.MetricPercentiles != "" {
				if _, err := metrics.ParseMetricPercentiles(o.Recompute.MetricPercentiles); err != nil {
					return exitcode.Usage(err)
				}
			}
			if items := goodput.Value(); goodput.Given() {
				g, err := metrics.ParseGoodput(items)
				if err != nil {
					return argErrorf("argument --goodput: %w%s", err, fileHint(items))
				}
				o.Recompute.Goodput = g
			}
			ths, err := parseThresholds(thresholds.Value())
			if err != nil {
				return err
			}
			o.Thresholds = ths
			return runF(o)
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&o.Recompute.PercentileMetrics, "percentile-metrics", "", `Metrics to report with mean, median and percentiles: ttft, tpot, itl, e2el (default: the run's).`)
	fs.StringVar(&o.Recompute.MetricPercentiles, "metric-percentiles", "", `Comma-separated percentiles, e.g. "50,90,99" (default: the run's).`)
	fs.Var(&goodput, "goodput", "SLOs KEY:VALUE in ms (ttft, tpot, e2el), e.g. --goodput ttft:500 tpot:50.")
	fs.Var(format, "format", "Output: text (gobench serve's block), markdown, or json (the recomputed result, without per-request lists).")
	fs.Var(&thresholds, "threshold", thresholdHelp)
	fs.StringVar(&o.Baseline, "baseline", "", "Result (PATH, PATH#INDEX or PATH#LABEL) that relative thresholds compare with.")
	return cmd
}

// fileHint suggests the cause when a --goodput item is a file name.
func fileHint(items []string) string {
	for _, it := range items {
		if _, err := os.Stat(it); err == nil && !strings.Contains(it, ":") {
			return fmt.Sprintf(" (%q looks like the result file: put it before --goodput)", it)
		}
	}
	return ""
}

// runAnalyze recomputes and prints.
func runAnalyze(deps *Deps, o *AnalyzeOptions) error {
	file, err := openRun(o.Result, deps.Stderr)
	if err != nil {
		return err
	}
	base, err := openBaseline("--baseline", o.Baseline, o.Thresholds, deps.Stderr)
	if err != nil {
		return err
	}
	res, err := analyze.Recompute(file, o.Recompute)
	if err != nil {
		return err
	}
	for _, n := range res.Notes {
		fmt.Fprintf(deps.Stderr, "note: %s\n", n)
	}
	m := &res.Metrics
	obj := res.Object(file)
	// The server view follows the block as serve printed it (the
	// server's figures are the file's, not recomputed).
	view := analyze.ServerView(file)
	out := formats{
		text: func(w io.Writer) error {
			return report.Block(deps.Stderr, m, func() error {
				if err := report.Text(w, m, res.Spec); err != nil {
					return err
				}
				if err := report.Gobench(w, m, res.Steady, res.Client); err != nil || view == nil {
					return err
				}
				return serverview.Render(w, view, "text")
			})
		},
		markdown: func(w io.Writer) error {
			if err := report.Markdown(w, m, res.Spec, "gobench analyze · "+file.Name()); err != nil {
				return err
			}
			if err := report.GobenchMarkdown(w, m, res.Steady, res.Client); err != nil || view == nil {
				return err
			}
			return serverview.Render(w, view, "markdown")
		},
		object: func() *pyjson.Object { return obj },
	}
	if err := out.write(deps.Stdout, o.Format); err != nil {
		return err
	}
	if len(o.Thresholds) == 0 {
		return nil
	}
	values, err := resultfile.FromObject(file.Name(), obj)
	if err != nil {
		return err
	}
	// A statistic the recomputation did not select comes from the file's
	// per-request data, as gobench check computes it.
	rep, err := judge(o.Thresholds, values, file, base)
	if err != nil {
		return err
	}
	if o.Format != "json" {
		fmt.Fprintln(deps.Stdout)
		if err := writeVerdicts(deps.Stdout, rep, o.Format); err != nil {
			return err
		}
	} else if err := writeVerdicts(deps.Stderr, rep, "text"); err != nil {
		return err
	}
	return gateError(rep, values, file, base)
}
