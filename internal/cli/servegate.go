package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/argparse"
	"github.com/gobench/gobench/internal/atomicfile"
	"github.com/gobench/gobench/internal/gate"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
	"github.com/gobench/gobench/internal/run"
	"github.com/gobench/gobench/internal/serverview"
	"github.com/spf13/pflag"
)

// ServeGate is what `gobench serve` does with its result besides vLLM's
// printout: thresholds, and a Markdown summary.
type ServeGate struct {
	// Thresholds are the --threshold expressions, checked after the run.
	Thresholds []gate.Threshold
	// Baseline is --threshold-baseline (PATH[#RUN]), for relative
	// thresholds.
	Baseline string
	// Format is what stdout gets: "text" (vLLM's block), "markdown" or
	// "json" (the result object, with the thresholds' verdicts).
	Format string
	// SummaryFile, when set, gets the Markdown summary appended.
	SummaryFile string
}

// gateFlags are serve's flags for ServeGate.
type gateFlags struct {
	thresholds  argparse.Strings
	baseline    string
	format      *argparse.Choice
	summaryFile string
}

// register defines the flags. (--threshold-baseline, not --baseline: a
// flag starting with "base" would make vLLM's abbreviation --base of
// --base-url ambiguous.)
func (g *gateFlags) register(fs *pflag.FlagSet) {
	fs.Var(&g.thresholds, "threshold", thresholdHelp+" Checked after the run; the verdicts follow the result block.")
	fs.StringVar(&g.baseline, "threshold-baseline", "", "Result file (PATH, PATH#INDEX or PATH#LABEL) that relative thresholds such as 'p99_ttft_ms<=baseline*1.05' compare with.")
	g.format = argparse.NewChoice("format", "text", "text", "markdown", "json")
	fs.Var(g.format, "format", "What the standard output gets: text (vLLM's block), markdown (a summary for a CI job or a pull request) or json (the result object as saved, on one line, with the thresholds' verdicts under gobench_thresholds; for jq). Everything else goes to the standard error.")
	fs.StringVar(&g.summaryFile, "summary-file", "", "Append a Markdown summary of the run (and the thresholds' verdicts) to this file, e.g. $GITHUB_STEP_SUMMARY.")
}

// options checks the flags against the run's options: thresholds parse,
// name keys this command line's result will have, and a dry run (which
// measures nothing) has none.
func (g *gateFlags) options(o *run.Options) (ServeGate, error) {
	sg := ServeGate{Baseline: g.baseline, Format: g.format.Value(), SummaryFile: g.summaryFile}
	ths, err := parseThresholds(g.thresholds.Value())
	if err != nil {
		return sg, err
	}
	sg.Thresholds = ths
	if o.DryRun && (len(ths) > 0 || g.summaryFile != "") {
		return sg, argErrorf("--threshold and --summary-file need a run: leave out --dry-run")
	}
	if gate.AnyRelative(ths) && g.baseline == "" {
		return sg, argErrorf("a threshold is relative to a baseline: give --threshold-baseline FILE")
	}
	sel := selectionOf(o)
	for _, t := range ths {
		if isServerViewKey(t.Key) {
			// Present when the server publishes /metrics, which only the
			// run finds out (gateError says so when it did not).
			if o.NoServerMetrics {
				return sg, argErrorf("argument --threshold: %q: --no-server-metrics leaves %s out of the result", t.Expr, resultkey.ServerView)
			}
			continue
		}
		// A statistic the selection leaves out is computed from the run's
		// per-request data after the run (finish).
		if !sel.Has(t.Key) && !sel.CanCompute(t.Key) {
			return sg, argErrorf("argument --threshold: %q: a result of this command line has no key %q; latency keys follow --percentile-metrics and --metric-percentiles (this run's: %s)",
				t.Expr, t.Key, strings.Join(sel.StatKeys(), ", "))
		}
	}
	return sg, nil
}

// selectionOf is what decides the keys of the result of a run with
// options o (the one place that reads run.Options for it).
func selectionOf(o *run.Options) resultkey.Selection {
	return resultkey.Selection{
		PercentileMetrics: o.PercentileMetricsOrDefault(), Percentiles: o.Percentiles,
		Tokenizer: !o.SkipTokenizerInit, ClientQueue: o.MaxConcurrency > 0, RampUp: o.Schedule.RampUp != nil,
		Detailed: o.SaveDetailed, ReportCachedTokens: o.ReportCachedTokens, Workload: true, Pooling: o.Pooling(),
		Probe: o.ProbeRequestRate > 0, MultiTurn: o.MultiTurn.Enabled,
		// run.execution.gobenchFigures: the steady state of every
		// generation run, the client's load where the dispatcher records
		// schedule lags (not --multi-turn's conversations).
		SteadyState: true, ClientLoad: !o.MultiTurn.Enabled,
	}
}

// serveGate is a ServeGate ready to judge a run: its baseline is loaded
// before the run, so that a wrong path fails at once.
type serveGate struct {
	ServeGate
	baseline *resultfile.Run
	// baseValues are the baseline's values, with the statistics it lacks
	// computed from its per-request data (thresholdValues).
	baseValues gate.Values
}

// prepare loads the baseline (warning on warn about damaged lines) and
// checks that it has, or its per-request data gives, the keys the
// relative thresholds need.
func (sg ServeGate) prepare(warn io.Writer) (*serveGate, error) {
	g := &serveGate{ServeGate: sg}
	if sg.SummaryFile != "" {
		// Appended after the run: a destination that cannot take it fails
		// before anything is sent, not after the whole run.
		if err := atomicfile.CheckAppend(sg.SummaryFile); err != nil {
			return nil, fmt.Errorf("--summary-file: %w", err)
		}
	}
	base, err := openBaseline("--threshold-baseline", sg.Baseline, sg.Thresholds, warn)
	if err != nil {
		return nil, err
	}
	g.baseline = base
	if g.baseValues, err = thresholdValues(base, base, sg.Thresholds, true); err != nil {
		return nil, fmt.Errorf("--threshold-baseline: %w", err)
	}
	for _, t := range sg.Thresholds {
		if !t.Relative {
			continue
		}
		_, isNumber := g.baseValues.Number(t.Key)
		if _, isText := g.baseValues.String(t.Key); !isNumber && !isText {
			return nil, argErrorf("threshold %q: the baseline %s", t.Expr, missingKey(base, base, t.Key))
		}
	}
	return g, nil
}

// renderer draws the result block where the run prints it: vLLM's block
// (nil, the run's default), a Markdown summary with --format markdown, or
// nothing with --format json, whose object is complete only after the run
// (finish prints it).
func (g *serveGate) renderer(deps *Deps) run.Renderer {
	switch g.Format {
	case "json":
		return func(io.Writer, run.Block) error { return nil }
	case "markdown":
	default:
		return nil
	}
	return func(w io.Writer, b run.Block) error {
		if err := report.Markdown(w, b.Metrics, b.Spec, blockTitle(b, deps.Now())); err != nil {
			return err
		}
		if b.MultiTurn != nil {
			if err := b.MultiTurn.Markdown(w); err != nil {
				return err
			}
		}
		if err := report.GobenchMarkdown(w, b.Metrics, b.Steady, b.Client); err != nil {
			return err
		}
		if b.ServerView == nil {
			return nil
		}
		return serverview.Render(w, b.ServerView, "markdown")
	}
}

// finish prints the Markdown summary and the thresholds' verdicts of a
// run, appends the summary file, and decides the outcome: the run's own
// error first (every request failed, interrupted, ...), then the
// thresholds.
func (g *serveGate) finish(deps *Deps, res *run.Result, runErr error) error {
	if res == nil || res.Metrics == nil {
		return runErr // nothing was measured
	}
	title := runTitle(res.Object)
	var rep *gate.Report
	if len(g.Thresholds) > 0 {
		values, data, err := runValues(res, g.Thresholds)
		if err != nil {
			return err
		}
		judged, err := thresholdValues(values, data, g.Thresholds, false)
		if err != nil {
			return err
		}
		rep = gate.Evaluate(g.Thresholds, judged, g.baseValues)
		rep.Warnings = baselineWarnings(g.baseline, values)
		if g.Format != "json" {
			fmt.Fprintln(deps.Stdout)
			if err := writeVerdicts(deps.Stdout, rep, g.Format); err != nil {
				return err
			}
		}
		if runErr == nil {
			runErr = gateError(rep, values, data, g.baseline)
		}
	}
	if g.Format == "json" {
		if err := writeResultJSON(deps.Stdout, res.Object, rep); err != nil {
			return err
		}
	}
	if g.SummaryFile != "" {
		var b strings.Builder
		_ = report.Markdown(&b, res.Metrics, res.Spec, title)
		if sv, ok := res.Object.Get(resultkey.ServerView); ok {
			_ = serverview.Render(&b, sv.(*pyjson.Object), "markdown")
		}
		if rep != nil {
			b.WriteString("\n")
			_ = rep.WriteMarkdown(&b)
		}
		b.WriteString("\n")
		if err := appendFile(g.SummaryFile, b.String()); err != nil && runErr == nil {
			return fmt.Errorf("--summary-file: %w", err)
		}
	}
	return runErr
}

// runValues reads the run's result object as `gobench check` would read
// its saved file (values), and the run with its per-request lists (data:
// values itself with --save-detailed, else the object with the lists the
// save left out), from which the thresholds' statistics that the
// selection left out are computed. The lists are added only when a
// threshold needs them.
func runValues(res *run.Result, ths []gate.Threshold) (values, data *resultfile.Run, err error) {
	const name = "the run's result"
	if values, err = resultfile.FromObject(name, res.Object); err != nil {
		return nil, nil, fmt.Errorf("thresholds: %w", err)
	}
	missing := slices.ContainsFunc(ths, func(t gate.Threshold) bool {
		_, ok := values.Number(t.Key)
		_, _, stat := resultkey.ParseStatKey(t.Key)
		return !ok && stat
	})
	if !missing || values.Has(resultkey.TTFTs) {
		return values, values, nil
	}
	obj := res.Object.Clone()
	obj.Update(report.RequestLists(res.Metrics))
	if data, err = resultfile.FromObject(name, obj); err != nil {
		return nil, nil, fmt.Errorf("thresholds: %w", err)
	}
	return values, data, nil
}

// runTitle is the Markdown heading of a saved run: model, label and date.
func runTitle(o *pyjson.Object) string {
	var values []string
	for _, k := range []string{"model_id", "label", "date"} {
		v, _ := o.Get(k)
		s, _ := v.(string)
		values = append(values, s)
	}
	return title(values...)
}

// blockTitle is the Markdown heading of a run's block, dated when it is
// printed.
func blockTitle(b run.Block, now time.Time) string {
	return title(b.ModelID, b.Label, report.DateString(now))
}

// title joins "gobench serve" and the non-empty parts that differ.
func title(values ...string) string {
	parts := []string{"gobench serve"}
	for _, s := range values {
		if s != "" && !slices.Contains(parts, s) {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " · ")
}

// writeResultJSON prints --format json: the result object as the file
// holds it, on one line, plus the thresholds' verdicts (when there are
// any) under gobench_thresholds, so that one `jq` reads both.
func writeResultJSON(w io.Writer, result *pyjson.Object, rep *gate.Report) error {
	o := result
	if rep != nil {
		o = result.Clone()
		o.Set(thresholdsKey, rep.Object())
	}
	return formats{object: func() *pyjson.Object { return o }}.write(w, "json")
}

// thresholdsKey holds the thresholds' verdicts in serve's --format json
// output (never in the result file, whose keys are the run's).
const thresholdsKey = "gobench_thresholds"
