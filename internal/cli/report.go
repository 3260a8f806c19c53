package cli

import (
	"fmt"
	"os"

	"github.com/gobench/gobench/internal/htmlreport"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/spf13/cobra"
)

// ReportOptions is what `gobench report` runs.
type ReportOptions struct {
	// Specs name result files (PATH, PATH#INDEX or PATH#LABEL) or one
	// sweep directory.
	Specs []string
	// Output is the HTML file written.
	Output string
	// Title heads the page.
	Title string
}

const reportLong = `Write one self-contained HTML report of saved results, readable offline:
every script and style is inline (the chart library, uPlot, is embedded in
gobench), and the page requests nothing from any host.

One result: cards of the figures checked first (requests, failures,
throughput, TTFT, ITL and E2EL p50 and p99, goodput, the server's verdict);
TTFT, TPOT, ITL and E2EL histograms and CDFs with the printed percentiles
and the goodput SLOs marked (a log axis when the largest value is 20 times
the median or more); requests in flight, output tokens per second, the
schedule lag and the server's gauges over the whole run; the per-request
timeline (queue, wait for the first token, decode; failures in red); the
server view and its diagnosis; failures counted by kind; input and output
length distributions; what was run and vLLM's result block, folded at the
end. The charts need the per-request data of --save-detailed: a file
without it gets its cards, its tables and a note.

Several results (or one --append-result file of several runs): a row of
cards per run, compare's headline, the settings that differ and the
metrics with real/noise verdicts coloured, and every chart overlaying the
runs.

A sweep directory (gobench sweep serve, serve --sweep-*, gobench sweep
serve_sla): latency against achieved throughput and throughput against
each load (the unlimited rate included), the Pareto front of tokens/s/user
against tokens/s/GPU (vLLM's plot_pareto), and the SLA search's points and
answer.

Charts: hover for values, drag or wheel to zoom a time axis, shift-drag to
pan, double-click to reset, click a legend entry to hide its series. A line
longer than 2,000 points is drawn downsampled (each bucket's minimum and
maximum kept); the tables hold exact numbers.

Exit status: 0 written, 1 unreadable file or write failure, 2 bad command
line or no such run.`

const reportExample = `  gobench serve --sim --save-result --save-detailed --result-filename run.json
  gobench report run.json -o report.html
  gobench report base.json new.json -o compare.html
  gobench report sweep-results/ -o sweep.html`

func newReportCmd(_ *Deps, runF func(*ReportOptions) error) *cobra.Command {
	o := &ReportOptions{Output: "report.html"}
	cmd := &cobra.Command{
		Use:     "report FILE... | report SWEEP_DIR [-o report.html]",
		Short:   "Write an offline HTML report (charts and tables) of results, a comparison or a sweep",
		Long:    reportLong,
		Example: reportExample,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) < 1 {
				return argErrorf("report needs a result file or a sweep directory")
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			if o.Output == "" {
				return argErrorf("argument -o/--output: expected a file name")
			}
			o.Specs = args
			return runF(o)
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVarP(&o.Output, "output", "o", o.Output, "The HTML file to write.")
	fs.StringVar(&o.Title, "title", "", "The page's title (default: gobench report).")
	return cmd
}

// runReport reads the results or the sweep and writes the page.
func runReport(deps *Deps, o *ReportOptions) error {
	in := htmlreport.Input{Title: o.Title, Version: deps.Version}
	for _, spec := range o.Specs {
		if fi, err := os.Stat(spec); err == nil && fi.IsDir() {
			if in.Sweep != nil {
				return argErrorf("report takes one sweep directory (got %s and %s)", in.Sweep.Dir, spec)
			}
			s, err := htmlreport.ReadSweep(spec)
			if err != nil {
				return err
			}
			in.Sweep = s
			continue
		}
		runs, err := reportRuns(spec, deps)
		if err != nil {
			return err
		}
		in.Runs = append(in.Runs, runs...)
	}
	if err := htmlreport.WriteFile(o.Output, in); err != nil {
		return err
	}
	fmt.Fprintf(deps.Stderr, "Wrote the report to %s\n", o.Output)
	return nil
}

// reportRuns opens one spec: a file without a selector stands for all
// its runs (an --append-result file), with one for that run.
func reportRuns(spec string, deps *Deps) ([]*resultfile.Run, error) {
	if path, sel := resultfile.SplitSpec(spec); sel == "" && path != "" {
		return resultfile.ReadFile(path, deps.Stderr)
	}
	r, err := openRun(spec, deps.Stderr)
	if err != nil {
		return nil, err
	}
	return []*resultfile.Run{r}, nil
}
