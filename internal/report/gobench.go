package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultkey"
	"github.com/gobench/gobench/internal/texttable"
)

// steadySections are the sections of a run (metrics.Result.Sections)
// whose statistics the steady state has: the client queue sections are
// the dispatcher's, not the server's, and are left out.
func steadySections(r *metrics.Result) []metrics.Section {
	var out []metrics.Section
	for _, sec := range r.Sections() {
		switch sec.Key {
		case resultkey.MetricTTFT, resultkey.MetricTPOT, resultkey.MetricITL, resultkey.MetricE2EL:
			out = append(out, sec)
		}
	}
	return out
}

// steadyStats returns the steady state's statistics of a metric.
func steadyStats(s *metrics.SteadyState, metric string) metrics.Stats {
	switch metric {
	case resultkey.MetricTTFT:
		return s.TTFT
	case resultkey.MetricTPOT:
		return s.TPOT
	case resultkey.MetricITL:
		return s.ITL
	}
	return s.E2EL
}

// SteadyObject is the gobench_steady_state object of a run: the window and
// its rule, its requests, throughputs, and the statistics of the run's
// latency sections over the requests inside it (keys in resultkey's
// gobench.go order).
func SteadyObject(r *metrics.Result, s *metrics.SteadyState) *pyjson.Object {
	o := pyjson.NewObject()
	o.Set(resultkey.SteadyFound, s.Found)
	if !s.Found {
		o.Set(resultkey.SteadyReason, s.Reason)
		return o
	}
	w := s.Window
	from := resultkey.SteadyFromTopLevel
	if w.FromLimit {
		from = resultkey.SteadyFromMaxConcurrency
	}
	o.Set(resultkey.SteadyTargetConcurrency, w.Target)
	o.Set(resultkey.SteadyTargetFrom, from)
	o.Set(resultkey.SteadyThreshold, metrics.SteadyThreshold)
	o.Set(resultkey.SteadyThresholdConcurrency, w.Level)
	o.Set(resultkey.SteadyStartS, w.Start-s.RunStart)
	o.Set(resultkey.SteadyEndS, w.End-s.RunStart)
	o.Set(resultkey.SteadyDurationS, s.Duration())
	o.Set(resultkey.SteadyRequestsStarted, s.Started)
	o.Set(resultkey.SteadyRequestsCompleted, s.Completed)
	o.Set(resultkey.SteadyRequestsInside, s.Inside)
	o.Set(resultkey.SteadyRequestThroughput, s.RequestThroughput)
	o.Set(resultkey.SteadyInputThroughput, s.InputThroughput)
	o.Set(resultkey.SteadyOutputThroughput, s.OutputThroughput)
	o.Set(resultkey.SteadyTotalTokenThroughput, s.TotalTokenThroughput)
	for _, sec := range steadySections(r) {
		setStats(o, sec.Key, steadyStats(s, sec.Key))
	}
	return o
}

// setGobench writes gobench_steady_state, gobench_client and, detailed,
// schedule_lags, for the figures the run has.
func setGobench(o *pyjson.Object, r *metrics.Result, run *Run) {
	if run.Steady != nil && !r.Pooling {
		o.Set(resultkey.GobenchSteadyState, SteadyObject(r, run.Steady))
	}
	if run.Client != nil {
		o.Set(resultkey.GobenchClient, ClientObject(run.Client))
		if run.SaveDetailed {
			o.Set(resultkey.ScheduleLags, run.Client.Lags)
		}
	}
}

// ClientObject is the gobench_client object of a run.
func ClientObject(c *metrics.ClientLoad) *pyjson.Object {
	o := pyjson.NewObject()
	o.Set(resultkey.ClientLagP50MS, 1000*c.LagPercentile(50))
	o.Set(resultkey.ClientLagP99MS, 1000*c.LagPercentile(99))
	o.Set(resultkey.ClientLagMaxMS, 1000*c.LagMax())
	o.Set(resultkey.ClientLagWarnMS, 1000*c.WarnLag)
	o.Set(resultkey.ClientBottleneck, c.Bottleneck())
	var cpu, share any
	if c.CPUKnown {
		cpu, share = c.CPUSeconds, c.CPUShare()
	}
	o.Set(resultkey.ClientCPUSeconds, cpu)
	o.Set(resultkey.ClientWallSeconds, c.WallSeconds)
	o.Set(resultkey.ClientCPUShare, share)
	return o
}

// GobenchMinRequests is the number of requests a run needs for Gobench to
// draw its section: below 100, a p99 is the maximum of a handful and a
// plateau a few requests long, so the figures are saved but not printed.
const GobenchMinRequests = 100

// Gobench draws gobench's own section after vLLM's block (never inside
// it, which stays vLLM's character for character) in a few lines: the
// steady state when it says something the whole run does not
// (steadyMatters), and the client's schedule lag and CPU use. It draws
// nothing when it has no line to draw, or when the run sent fewer than
// GobenchMinRequests requests. GobenchDetails draws the whole section.
func Gobench(w io.Writer, r *metrics.Result, s *metrics.SteadyState, c *metrics.ClientLoad) error {
	if s == nil && c == nil || len(r.Outputs) < GobenchMinRequests {
		return nil
	}
	var b strings.Builder
	if s != nil && steadyMatters(r, s) {
		w := s.Window
		writeWrapped(&b, fmt.Sprintf("Steady state %s-%s s (%d+ in flight): %s req/s, whole run %s (--details for its table).",
			format2f(w.Start-s.RunStart), format2f(w.End-s.RunStart), w.Level, format2f(s.RequestThroughput), format2f(r.RequestThroughput)))
	}
	if c != nil {
		cpu := "CPU not known here"
		if c.CPUKnown {
			cpu = "CPU " + format2f(100*c.CPUShare()) + " % of a core"
		}
		line := fmt.Sprintf("Client: schedule lag p99 %s ms (max %s ms), %s", format2f(1000*c.LagPercentile(99)), format2f(1000*c.LagMax()), cpu)
		if c.Bottleneck() {
			line += "; may be the bottleneck"
		}
		writeWrapped(&b, line+".")
	}
	if b.Len() == 0 {
		return nil // nothing the default screen needs
	}
	_, err := io.WriteString(w, center(" gobench ", "=", headerWidth)+"\n"+b.String()+strings.Repeat("=", headerWidth)+"\n")
	return err
}

// steadyShift is the relative difference between the steady state's
// request throughput and the whole run's from which the default screen
// shows the steady state: below it, ramp-up and drain changed little.
const steadyShift = 0.1

// steadyMatters reports whether the steady state's figures differ enough
// from the whole run's to earn a line of the default screen.
func steadyMatters(r *metrics.Result, s *metrics.SteadyState) bool {
	if !s.Found || r.RequestThroughput <= 0 {
		return false
	}
	return math.Abs(s.RequestThroughput-r.RequestThroughput) > steadyShift*r.RequestThroughput
}

// writeWrapped writes text as lines of at most texttable.Width columns,
// the continuation lines indented by two.
func writeWrapped(b *strings.Builder, text string) {
	for _, l := range texttable.Wrap(text, texttable.Width, "", "  ") {
		b.WriteString(l + "\n")
	}
}

// GobenchDetails is Gobench's whole section (--details): the steady state
// beside the whole run's figures, and the client's schedule lag and CPU
// use.
func GobenchDetails(w io.Writer, r *metrics.Result, s *metrics.SteadyState, c *metrics.ClientLoad) error {
	return gobench(w, r, s, c, false)
}

// GobenchMarkdown is GobenchDetails for a Markdown summary (--format
// markdown, --summary-file): the same figures under "####" headings, the
// table in Markdown.
func GobenchMarkdown(w io.Writer, r *metrics.Result, s *metrics.SteadyState, c *metrics.ClientLoad) error {
	return gobench(w, r, s, c, true)
}

// gobench draws the whole section as text or Markdown.
func gobench(w io.Writer, r *metrics.Result, s *metrics.SteadyState, c *metrics.ClientLoad, markdown bool) error {
	if s == nil && c == nil || len(r.Outputs) < GobenchMinRequests {
		return nil
	}
	var b strings.Builder
	heading := func(title string) {
		if markdown {
			b.WriteString("\n#### gobench: " + title + "\n\n")
		} else {
			b.WriteString(center(" gobench: "+title+" ", "=", headerWidth) + "\n")
		}
	}
	if s != nil {
		heading("steady state")
		steadyText(&b, r, s, markdown)
	}
	if c != nil {
		heading("client")
		clientText(&b, c, markdown)
	}
	if !markdown {
		b.WriteString(strings.Repeat("=", headerWidth) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// steadyText writes the window, its rule and the table of the whole run
// beside the window.
func steadyText(b *strings.Builder, r *metrics.Result, s *metrics.SteadyState, markdown bool) {
	if !s.Found {
		bullet(b, markdown)
		fmt.Fprintf(b, "No steady state: %s.\n", s.Reason)
		return
	}
	w := s.Window
	target := fmt.Sprintf("--max-concurrency %d", w.Target)
	if !w.FromLimit {
		target = fmt.Sprintf("%d, the highest level held %.0f %% of the time", w.Target, 100*metrics.SteadyTopShare)
	}
	bullet(b, markdown)
	sep := "\n  " // two lines within 100 columns on a terminal
	if markdown {
		sep = " "
	}
	fmt.Fprintf(b, "Window: %s s to %s s after the first request (%s s),%swhile %d or more were in flight (%g x %s).\n",
		format2f(w.Start-s.RunStart), format2f(w.End-s.RunStart), format2f(s.Duration()), sep, w.Level, metrics.SteadyThreshold, target)
	bullet(b, markdown)
	fmt.Fprintf(b, "Requests: %d started, %d completed in the window; %d wholly inside it (their latencies below).\n",
		s.Started, s.Completed, s.Inside)
	rows := [][]string{
		{"Request throughput (req/s)", format2f(r.RequestThroughput), format2f(s.RequestThroughput)},
		{"Output token throughput (tok/s)", format2f(r.OutputThroughput), format2f(s.OutputThroughput)},
		{"Total token throughput (tok/s)", format2f(r.TotalTokenThroughput), format2f(s.TotalTokenThroughput)},
	}
	for _, sec := range steadySections(r) {
		st := steadyStats(s, sec.Key)
		rows = append(rows, []string{"Mean " + sec.Name + " (ms)", format2f(sec.Stats.Mean), format2f(st.Mean)},
			[]string{"Median " + sec.Name + " (ms)", format2f(sec.Stats.Median), format2f(st.Median)})
		for i, pv := range st.Percentiles {
			p := "P" + strconv.FormatFloat(pv.P, 'f', -1, 64)
			rows = append(rows, []string{p + " " + sec.Name + " (ms)", format2f(sec.Stats.Percentiles[i].Value), format2f(pv.Value)})
		}
	}
	if markdown {
		b.WriteString("\n")
	}
	for _, l := range texttable.Lines([]string{"", "whole run", "steady state"}, rows, markdown, "") {
		b.WriteString(l + "\n")
	}
}

// clientText writes the schedule lag and the CPU share.
func clientText(b *strings.Builder, c *metrics.ClientLoad, markdown bool) {
	bullet(b, markdown)
	fmt.Fprintf(b, "Schedule lag p50 / p99 / max (ms): %s / %s / %s (warns above %s)\n",
		format2f(1000*c.LagPercentile(50)), format2f(1000*c.LagPercentile(99)), format2f(1000*c.LagMax()), format2f(1000*c.WarnLag))
	bullet(b, markdown)
	if c.CPUKnown {
		fmt.Fprintf(b, "Client CPU: %s %% of one core (%s s of CPU over %s s)\n",
			format2f(100*c.CPUShare()), format2f(c.CPUSeconds), format2f(c.WallSeconds))
	} else {
		b.WriteString("Client CPU: not known on this platform\n")
	}
	if c.Bottleneck() {
		bullet(b, markdown)
		b.WriteString("The client may have been the bottleneck (see the warning).\n")
	}
}

// bullet starts a Markdown list item, so that the section's lines stay
// lines in a rendered summary; text lines need none.
func bullet(b *strings.Builder, markdown bool) {
	if markdown {
		b.WriteString("- ")
	}
}
