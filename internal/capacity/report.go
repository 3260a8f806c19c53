package capacity

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/texttable"
)

// formatLoad prints a load: "inf", a whole concurrency, a rate with at
// most three decimals.
func formatLoad(v Variable, x float64) string {
	switch {
	case math.IsNaN(x):
		return "-"
	case math.IsInf(x, 1):
		return "inf"
	case v == MaxConcurrency:
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	s := strconv.FormatFloat(x, 'f', 3, 64)
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

// statCell prints a judgement: the statistic and its interval, as
// multiples of the limit.
func statCell(j Judgement) string {
	if math.IsNaN(j.Low) {
		return formatScore(j.Estimate)
	}
	return fmt.Sprintf("%s [%s, %s]", formatScore(j.Estimate), formatScore(j.Low), formatScore(j.High))
}

// progressLine is the line a point adds to the progress stream.
func progressLine(v Variable, k int, pr *PointResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "SLA point %d: %s=%s, %d requests", k, v, formatLoad(v, pr.Value), pr.Requests)
	if pr.Attempt > 0 {
		fmt.Fprintf(&b, " (re-run %d, longer)", pr.Attempt)
	}
	for _, j := range pr.Judgements {
		fmt.Fprintf(&b, "; %s %s", statName(j.Criterion.Stat), statCell(j))
	}
	if !math.IsNaN(pr.KeptUp) {
		fmt.Fprintf(&b, "; kept up %s%%", percent(pr.KeptUp))
	}
	fmt.Fprintf(&b, ": %s", verdictText(pr))
	return b.String()
}

// verdictText is a point's verdict with its reason when it did not pass.
func verdictText(p *PointResult) string {
	switch {
	case p.Cut:
		return "cut short"
	case p.Verdict == Fail && p.KeptUp < MinKeptUp:
		return "fail: did not keep up"
	case p.Verdict == Unsure:
		return "unsure: " + whyUnsure(p.Judgements)
	}
	return p.Verdict.String()
}

// WriteTable prints the points, one row each, then the answer: the table
// `gobench sweep sla` prints on its standard output.
func WriteTable(w io.Writer, r *Result) error {
	v := r.Config.Variable
	header := []string{"#", string(v), "requests", "duration s", "req/s", "good %"}
	if v == RequestRate {
		header = append(header, "kept up %")
	}
	for _, c := range r.Config.Criteria {
		header = append(header, c.Text)
	}
	header = append(header, "verdict")
	rows := make([][]string, 0, len(r.Points))
	for i := range r.Points {
		p := &r.Points[i]
		row := []string{strconv.Itoa(i + 1), formatLoad(v, p.Value), strconv.Itoa(p.Requests),
			strconv.FormatFloat(p.Duration, 'f', 2, 64), strconv.FormatFloat(p.Throughput, 'f', 2, 64), percent(p.GoodShare)}
		if v == RequestRate {
			row = append(row, percent(p.KeptUp))
		}
		for k := range r.Config.Criteria {
			cell := "-"
			if k < len(p.Judgements) {
				cell = statName(p.Judgements[k].Criterion.Stat) + " " + statCell(p.Judgements[k])
			}
			row = append(row, cell)
		}
		rows = append(rows, append(row, verdictText(&r.Points[i])))
	}
	lines := texttable.Lines(header, rows, false, "")
	lines = append(lines, "", answerLine(r))
	_, err := io.WriteString(w, strings.Join(lines, "\n")+"\n")
	return err
}

// whyUnsure is the reason of the first unsure criterion.
func whyUnsure(js []Judgement) string {
	for _, j := range js {
		if j.Verdict == Unsure {
			return j.Why
		}
	}
	return ""
}

// percent prints a share as a percentage with one decimal.
func percent(f float64) string {
	if math.IsNaN(f) {
		return "-"
	}
	return strconv.FormatFloat(100*f, 'f', 1, 64)
}

// answerLine states the answer with its interval and how the search ended.
func answerLine(r *Result) string {
	v, c := r.Config.Variable, r.Config
	conf := pyfmt.Float(100 * confidence(c))
	switch {
	case math.IsNaN(r.Answer) && r.Stop == StopMinimum:
		return fmt.Sprintf("No %s meets the objectives: they fail at the minimum %s (%s).", v, formatLoad(v, c.Min), r.Stop)
	case math.IsNaN(r.Answer):
		return fmt.Sprintf("No %s was shown to meet the objectives before the search ended (%s).", v, r.Stop)
	case math.IsNaN(r.Above):
		return fmt.Sprintf("Largest %s meeting the objectives: %s, the maximum searched (%s).", v, formatLoad(v, r.Answer), r.Stop)
	}
	return fmt.Sprintf("Largest %s meeting the objectives: %s (the limit lies in [%s, %s): each verdict at %s%% confidence; %s).",
		v, formatLoad(v, r.Answer), formatLoad(v, r.Answer), formatLoad(v, r.Above), conf, r.Stop)
}

// confidence is the confidence level the verdicts used.
func confidence(c Config) float64 {
	if c.Bootstrap.Confidence > 0 && c.Bootstrap.Confidence < 1 {
		return c.Bootstrap.Confidence
	}
	return 0.99 // compare.DefaultConfidence, which Options take when unset
}

// Object is the search as the JSON file `gobench sweep sla` writes (sla.json):
// the settings, the answer with its interval, and every point with its
// statistics and result file. Loads and statistics are floats (the rate
// inf as the string "inf", as gobench's result files hold it); a missing
// value is null.
func Object(r *Result) *pyjson.Object {
	c := r.Config
	o := pyjson.NewObject()
	o.Set("sla_variable", string(c.Variable))
	crit := make([]any, len(c.Criteria))
	for i, k := range c.Criteria {
		crit[i] = k.Text
	}
	o.Set("criteria", crit)
	o.Set("confidence", confidence(c))
	o.Set("min", c.Min)
	o.Set("max", c.Max)
	o.Set("tolerance", c.Tolerance)
	o.Set("answer", nullable(r.Answer))
	o.Set("answer_interval", []any{nullable(r.Answer), nullable(r.Above)})
	o.Set("stop", r.Stop)
	o.Set("elapsed_s", r.Elapsed)
	points := make([]any, len(r.Points))
	for i := range r.Points {
		points[i] = pointObject(c.Variable, &r.Points[i])
	}
	o.Set("points", points)
	return o
}

// pointObject is one point of Object.
func pointObject(v Variable, p *PointResult) *pyjson.Object {
	o := pyjson.NewObject()
	o.Set(string(v), p.Value)
	o.Set("num_prompts", p.Requests)
	o.Set("attempt", p.Attempt)
	o.Set("duration", p.Duration)
	o.Set("wall_s", p.Wall)
	o.Set("request_throughput", p.Throughput)
	o.Set("good_share", nullable(p.GoodShare))
	o.Set("kept_up", nullable(p.KeptUp))
	js := make([]any, len(p.Judgements))
	for i, j := range p.Judgements {
		jo := pyjson.NewObject()
		jo.Set("criterion", j.Criterion.Text)
		jo.Set("statistic", statName(j.Criterion.Stat))
		jo.Set("requests", j.Requests)
		jo.Set("estimate", nullable(j.Estimate))
		jo.Set("interval", []any{nullable(j.Low), nullable(j.High)})
		jo.Set("verdict", j.Verdict.String())
		jo.Set("why", j.Why)
		js[i] = jo
	}
	o.Set("criteria", js)
	o.Set("verdict", p.Verdict.String())
	o.Set("cut", p.Cut)
	o.Set("file", p.File)
	return o
}

// nullable is f, or nil (JSON null) when it is NaN.
func nullable(f float64) any {
	if math.IsNaN(f) {
		return nil
	}
	return f
}
