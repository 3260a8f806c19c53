package cli

import (
	"fmt"

	"github.com/gobench/gobench/internal/argparse"
	"github.com/gobench/gobench/internal/gate"
	"github.com/spf13/cobra"
)

// CheckOptions is what `gobench check` runs.
type CheckOptions struct {
	// Result names the result to check (PATH, PATH#INDEX or PATH#LABEL).
	Result string
	// Baseline names the result relative thresholds compare with ("" for
	// none).
	Baseline string
	// Thresholds are the parsed --threshold expressions.
	Thresholds []gate.Threshold
	// Format is text, markdown or json.
	Format string
}

const checkLong = `Check a saved result (gobench's or vLLM's own) against thresholds, the way
a CI job stops a merge that makes serving slower. Each --threshold prints
PASS or FAIL with the measured value; a result in which every request
failed never passes.

Thresholds: KEY OP LIMIT, with KEY any numeric key of the result
(p99_ttft_ms, mean_tpot_ms, request_throughput, completed, ...),
failed_ratio (failed / sent), or a dotted path into the server's figures
that gobench serve saves under server_view (server_view.verdict,
server_view.ratios.preemptions,
server_view.quantiles.vllm:time_to_first_token_seconds.p99,
server_view.client_vs_server.ttft.gap_mean: a row by its metric); OP one
of < <= > >= == !=; LIMIT a number, text for == and != (healthy,
queue/seq-limit, "in double quotes"), or relative to the same key in
--baseline: baseline, baseline*F, baseline+D, baseline-D. Quote them for
the shell.

A latency statistic the result lacks (p95_ttft_ms when the run printed only
P99) is computed from the file's per-request data (--save-detailed) exactly
as gobench analyze computes it, and the verdict says so. Without per-request
data the key is an error saying how to get it; any other key the result
lacks is an error that suggests the nearest one (did you mean
p99_ttft_ms?). A number too large for a float64 (1e999) is infinite, as
Python reads it, and the verdict says so.

With --baseline, every workload setting in which the result differs from
the baseline (rate, concurrency, seed, lengths, model, ...) is named before
the verdicts: a limit taken from another workload is no like-for-like gate.

A file written with --append-result holds several runs: choose one with
FILE#INDEX (from 0; -1 is the last) or FILE#LABEL. A damaged line (a record
cut short, garbage) is skipped with a warning naming the file and line;
INDEX counts the intact runs only.

` + gateExitDoc

const checkExample = `  gobench check result.json --threshold 'p99_ttft_ms<500' --threshold 'failed_ratio<0.01'
  gobench check new.json --baseline main.json --threshold 'p99_ttft_ms<=baseline*1.05' \
    --threshold 'output_throughput>=baseline*0.95'
  gobench check detailed.json --threshold 'p95_ttft_ms<100'   # computed from per-request data
  gobench check result.json --threshold 'server_view.verdict==healthy' --threshold 'server_view.ratios.preemptions<1'
  gobench check runs.jsonl#-1 --threshold 'mean_itl_ms<20' --format markdown >> "$GITHUB_STEP_SUMMARY"`

func newCheckCmd(_ *Deps, runF func(*CheckOptions) error) *cobra.Command {
	o := &CheckOptions{}
	var thresholds argparse.Strings
	format := formatFlag("text", "markdown", "json")
	cmd := &cobra.Command{
		Use:     "check RESULT --threshold EXPR [--threshold EXPR...] [--baseline BASE]",
		Short:   "Check a saved result against thresholds (exit status 4 when one fails)",
		Long:    checkLong,
		Example: checkExample,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return argErrorf("check takes exactly one result file, got %d", len(args))
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			if len(thresholds.Value()) == 0 {
				return argErrorf("give at least one --threshold, e.g. --threshold 'p99_ttft_ms<500'")
			}
			ths, err := parseThresholds(thresholds.Value())
			if err != nil {
				return err
			}
			o.Result, o.Thresholds, o.Format = args[0], ths, format.Value()
			return runF(o)
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.Var(&thresholds, "threshold", thresholdHelp)
	fs.StringVar(&o.Baseline, "baseline", "", "Result (PATH, PATH#INDEX or PATH#LABEL) that relative thresholds compare with.")
	fs.Var(format, "format", "Output: text, markdown (for a CI job summary) or json.")
	return cmd
}

// runCheck evaluates the thresholds on the saved result.
func runCheck(deps *Deps, o *CheckOptions) error {
	result, err := openRun(o.Result, deps.Stderr)
	if err != nil {
		return err
	}
	base, err := openBaseline("--baseline", o.Baseline, o.Thresholds, deps.Stderr)
	if err != nil {
		return err
	}
	rep, err := judge(o.Thresholds, result, result, base)
	if err != nil {
		return err
	}
	if o.Format == "text" {
		fmt.Fprintf(deps.Stdout, "Result: %s\n", result.Name())
		if base != nil {
			fmt.Fprintf(deps.Stdout, "Baseline: %s\n", base.Name())
		}
	}
	if err := writeVerdicts(deps.Stdout, rep, o.Format); err != nil {
		return err
	}
	return gateError(rep, result, result, base)
}
