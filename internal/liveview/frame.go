package liveview

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gobench/gobench/internal/live"
	"github.com/gobench/gobench/internal/tqdm"
)

// Columns is the width every line of a frame keeps within.
const Columns = 100

// Summary is what the view keeps of a run that ended, for the lines of
// the points done (a sweep's, --num-runs').
type Summary struct {
	// Run is the run's number in the command, from 1.
	Run int
	// Bar is the run's last bar line.
	Bar string
	// Label, Rate and MaxConcurrency name the point.
	Label          string
	Rate           float64
	MaxConcurrency int
	// Done and Failed are its requests; Reqs and Tokens its rates since
	// the start; E2EL99 its E2EL's 99th percentile.
	Done, Failed         int64
	Reqs, Tokens, E2EL99 float64
}

// shownDone bounds the points done that a frame lists (the last ones).
const shownDone = 3

// Runs numbers a run among the command's.
type Runs struct {
	// Run is the run's number, from 1; Of the runs planned (0: not known).
	Run, Of int
}

// Frame is the view of a run at f, numbered run, after the runs done: at
// most Columns wide, as many lines for every frame of a run.
func Frame(f live.Figures, run Runs, done []Summary) []string {
	lines := []string{
		title(f, run, len(done)),
		barLine(f),
		loadLine(f),
		fmt.Sprintf("tokens     output %s tok/s (last 10 s), %s tok/s since the start; %d in all",
			num(f.Recent.Tokens, 0), num(f.All.Tokens, 0), f.Tokens),
		fmt.Sprintf("%-14s%20s  %20s", "latency", "last 10 s", "since the start"),
		fmt.Sprintf("%-14s%10s%10s  %10s%10s", "", "p50", "p99", "p50", "p99"),
		latencyLine("TTFT", f.TTFT),
		latencyLine("ITL", f.ITL),
		latencyLine("E2EL", f.E2EL),
		latencyLine("schedule lag", f.Lag),
		serverLine(f.Server),
		failuresLine(f),
	}
	for _, d := range done[max(0, len(done)-shownDone):] {
		lines = append(lines, fmt.Sprintf("done       run %d%s: %d ok, %d failed, %s req/s, %s tok/s, E2EL p99 %s",
			d.Run, point(d.Label, d.Rate, d.MaxConcurrency), d.Done-d.Failed, d.Failed, num(d.Reqs, 1), num(d.Tokens, 0), strings.TrimSpace(dur(d.E2EL99))))
	}
	for i, l := range lines {
		lines[i] = clip(strings.TrimRight(l, " "), Columns)
	}
	return lines
}

// title names the run and the point it is.
func title(f live.Figures, run Runs, done int) string {
	i := f.Info
	n := strconv.Itoa(run.Run)
	if run.Of > 0 {
		n += " of " + strconv.Itoa(run.Of)
	}
	t := fmt.Sprintf("gobench serve · run %s%s · %s · %s", n, point(i.Label, i.RequestRate, i.MaxConcurrency), i.Model, i.Backend)
	if done > 0 {
		t += fmt.Sprintf(" · %d done", done)
	}
	return t
}

// point names a run's point: its label, rate and concurrency.
func point(label string, rate float64, conc int) string {
	var parts []string
	if label != "" {
		parts = append(parts, label)
	}
	if math.IsInf(rate, 1) {
		parts = append(parts, "rate inf")
	} else if rate > 0 {
		parts = append(parts, num(rate, 1)+" req/s")
	}
	if conc > 0 {
		parts = append(parts, fmt.Sprintf("concurrency %d", conc))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// barCells is the bar's width.
const barCells = 30

// barLine is tqdm's bar of the run, with its failures.
func barLine(f live.Figures) string {
	pct, eta, count := tqdm.Share(f.Done, int64(f.Info.Total), f.Elapsed, f.Info.Duration)
	reqs := math.NaN() // the successful ones, as the result's request throughput
	if secs := f.Elapsed.Seconds(); secs > 0 {
		reqs = float64(f.Done-f.Failed) / secs
	}
	return fmt.Sprintf("%3d%%|%s| %s, %d failed [%s<%s, %s req/s]", int(pct*100), tqdm.Fill(pct, barCells),
		count, f.Failed, tqdm.Clock(f.Elapsed), eta, num(reqs, 1))
}

// loadLine sets the schedule's rate beside what the client achieved.
func loadLine(f live.Figures) string {
	target := num(f.Recent.Target, 1) + "/s"
	switch {
	case math.IsInf(f.Info.RequestRate, 1) && f.Info.Offsets != nil:
		target = "all at once"
	case math.IsNaN(f.Recent.Target):
		target = "-" // conversations: their turns are not on the schedule
	}
	return fmt.Sprintf("requests   target %s, sent %s/s, done %s/s (last 10 s); %d in flight, %d queued",
		target, num(f.Recent.Sent, 1), num(f.Recent.Done, 1), f.InFlight, f.Queued)
}

// latencyLine is one row of the latency table.
func latencyLine(name string, q [2]live.Quantiles) string {
	return fmt.Sprintf("%-14s%10s%10s  %10s%10s", name, dur(q[0].P50), dur(q[0].P99), dur(q[1].P50), dur(q[1].P99))
}

// serverLine is the server's state gauges, when its /metrics is read.
func serverLine(s live.Server) string {
	if !s.Known {
		return "server     state not read (its /metrics unread or not yet scraped)"
	}
	return fmt.Sprintf("server     %s running, %s waiting, KV cache %s %% (scraped %.1f s ago)",
		num(s.Running, 0), num(s.Waiting, 0), num(100*s.KVUsage, 1), s.Age.Seconds())
}

// failuresLine counts the failures by kind.
func failuresLine(f live.Figures) string {
	if f.Failed == 0 {
		return "failures   none"
	}
	parts := make([]string, len(f.Failures))
	for i, k := range f.Failures {
		parts[i] = fmt.Sprintf("%d %s", k.Count, k.Kind)
	}
	return fmt.Sprintf("failures   %d: %s", f.Failed, strings.Join(parts, ", "))
}

// num formats v with prec decimals, "-" when it is not a number.
func num(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return fmt.Sprintf("%.*f", prec, v)
}

// dur formats seconds for the latency table: milliseconds below a
// second, seconds above; "-" when there is none.
func dur(s float64) string {
	switch {
	case math.IsNaN(s):
		return "-"
	case s < 1:
		return fmt.Sprintf("%.1f ms", 1000*s)
	}
	return fmt.Sprintf("%.2f s", s)
}

// clip cuts s to n runes.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
