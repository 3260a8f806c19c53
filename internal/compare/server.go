package compare

import (
	"math"
	"slices"
	"strings"

	"github.com/gobench/gobench/internal/diagnose"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultfile"
	"github.com/gobench/gobench/internal/resultkey"
)

// ServerView compares what the servers said about themselves: the
// server_view objects gobench serve saves from the server's /metrics
// (package serverview), with the diagnosis' verdict of each run and the
// main server figures. Its rows are keyed by the paths --threshold takes
// ("server_view.ratios.preemptions"), so a change seen here can gate CI.
type ServerView struct {
	// Verdicts are the runs' verdicts ("healthy", "queue/seq-limit",
	// ...), "" for a run without server_view.
	Verdicts []string
	// Figures are the server figures that at least one run has, in the
	// order of serverFigures; a run without one has NaN and is marked
	// missing.
	Figures []Row
}

// Verdict changes between the baseline and a run, as VerdictChange says.
const (
	// VerdictSame: both runs have the same verdict.
	VerdictSame = "same"
	// VerdictChanged: the verdicts differ, neither being healthy.
	VerdictChanged = "changed"
	// VerdictWorse: the baseline was healthy, the run is not.
	VerdictWorse = "changed, worse"
	// VerdictBetter: the run is healthy, the baseline was not.
	VerdictBetter = "changed, better"
	// VerdictNotComparable: one of the two verdicts is unknown (its
	// diagnosis could not ask its questions), so no change can be told.
	VerdictNotComparable = "not comparable"
)

// VerdictChange says how run j's verdict differs from the baseline's: one
// of the Verdict constants, or "" when either run has no server_view.
func (s *ServerView) VerdictChange(j int) string {
	a, b := diagnose.Verdict(s.Verdicts[0]), diagnose.Verdict(s.Verdicts[j])
	switch {
	case a == "" || b == "":
		return ""
	case a == b:
		return VerdictSame
	case a == diagnose.Unknown || b == diagnose.Unknown:
		return VerdictNotComparable
	case a == diagnose.Healthy:
		return VerdictWorse
	case b == diagnose.Healthy:
		return VerdictBetter
	}
	return VerdictChanged
}

// figure is one server figure the comparison shows: its path inside
// server_view and its direction of improvement.
type figure struct {
	path   string
	better Better
}

// Direction of improvement of the server figures compare shows, after the
// quantiles (lower, every one a latency) and the client-vs-server gaps
// (lower: less time outside the server's clock).
var (
	ratioFigures = []figure{
		{"ratios.prefix_cache_hit_rate", Higher},
		{"ratios.preemptions", Lower},
		{"ratios.preemptions_per_s", Lower},
		{"ratios.preemptions_per_finished_request", Lower},
		{"ratios.computed_prefill_share", Lower},
		{"ratios.spec_decode_acceptance_rate", Higher},
		{"ratios.spec_decode_acceptance_length", Higher},
		{"ratios.requests_per_s", Higher},
		{"ratios.generation_tokens_per_s", Higher},
	}
	peakFigures = []figure{
		{"gauges.peak.num_requests_running", Neither},
		{"gauges.peak.num_requests_waiting", Lower},
		{"gauges.peak.kv_cache_usage_perc_max_engine", Neither},
	}
)

// serverViewOf compares the runs' server_view objects; nil when no run has
// one (vLLM's files, older gobench's, a server without /metrics).
func serverViewOf(runs []*resultfile.Run) *ServerView {
	views := make([]*pyjson.Object, len(runs))
	s := &ServerView{Verdicts: make([]string, len(runs))}
	for i, r := range runs {
		views[i], _ = r.Object(resultkey.ServerView)
		s.Verdicts[i], _ = r.String(resultkey.ServerView + ".verdict")
	}
	if !slices.ContainsFunc(views, func(o *pyjson.Object) bool { return o != nil }) {
		return nil
	}
	for _, f := range serverFigures(views) {
		if row, ok := figureRow(runs, f); ok {
			s.Figures = append(s.Figures, row)
		}
	}
	return s
}

// serverFigures lists the figures to compare: p50 and p99 of every latency
// histogram (unit "s") any run has, the client-vs-server gap of every
// metric, the ratios and the peak gauges.
func serverFigures(views []*pyjson.Object) []figure {
	var latencies, gaps []string
	for _, v := range views {
		if v == nil {
			continue
		}
		for _, name := range objectKeys(v, "quantiles") {
			if unit, _ := lookup(v, "histograms", name, "unit"); unit == "s" && !slices.Contains(latencies, name) {
				latencies = append(latencies, name)
			}
		}
		rows, _ := v.Get("client_vs_server")
		list, _ := rows.([]any)
		for _, e := range list {
			o, _ := e.(*pyjson.Object)
			if m, ok := lookup(o, "metric"); ok {
				if m, ok := m.(string); ok && !slices.Contains(gaps, m) {
					gaps = append(gaps, m)
				}
			}
		}
	}
	var out []figure
	for _, name := range latencies {
		out = append(out, figure{"quantiles." + name + ".p50", Lower}, figure{"quantiles." + name + ".p99", Lower})
	}
	for _, m := range gaps {
		out = append(out, figure{"client_vs_server." + m + ".gap_mean", Lower})
	}
	return append(append(out, ratioFigures...), peakFigures...)
}

// objectKeys are the keys of the object at path inside o.
func objectKeys(o *pyjson.Object, path ...string) []string {
	v, _ := lookup(o, path...)
	if obj, ok := v.(*pyjson.Object); ok {
		return obj.Keys()
	}
	return nil
}

// lookup is the value at path inside o (nil: none).
func lookup(o *pyjson.Object, path ...string) (any, bool) {
	if o == nil {
		return nil, false
	}
	var v any = o
	for _, k := range path {
		obj, ok := v.(*pyjson.Object)
		if !ok {
			return nil, false
		}
		if v, ok = obj.Get(k); !ok {
			return nil, false
		}
	}
	return v, true
}

// figureRow is the row of figure f, false when no run has it as a number.
func figureRow(runs []*resultfile.Run, f figure) (Row, bool) {
	row := Row{Key: resultkey.ServerView + "." + f.path, Better: f.better}
	found := false
	for _, r := range runs {
		v, ok := r.Number(row.Key)
		text := resultfile.FormatValue(v)
		if !ok {
			v, text = math.NaN(), "n/a"
		}
		found = found || ok
		row.Values = append(row.Values, v)
		row.Text = append(row.Text, text)
		row.missing = append(row.missing, !ok)
	}
	base := row.Values[0]
	for _, v := range row.Values[1:] {
		row.Changes = append(row.Changes, Change{Abs: v - base, Rel: (v - base) / base})
	}
	return row, found
}

// serverTable lists the verdicts and the server figures with their
// changes from the baseline; mark adds colours for Markdown.
func (c *Comparison) serverTable(mark bool) *table {
	t := &table{header: []string{"Server figure", "Better"}, right: []bool{false, false}}
	for _, n := range c.Names {
		t.header, t.right = append(t.header, n), append(t.right, true)
	}
	base := c.Names[0]
	for _, n := range c.Names[1:] {
		t.header = append(t.header, n+"−"+base, n+"−"+base+" %")
		t.right = append(t.right, true, true)
	}
	s := c.Server
	// In text the keys go without their common "server_view." (the intro
	// says so), which keeps two runs' table within MaxWidth.
	name := func(key string) string {
		if mark {
			return key
		}
		return strings.TrimPrefix(key, resultkey.ServerView+".")
	}
	cells := []string{name(resultkey.ServerView + ".verdict"), ""}
	for _, v := range s.Verdicts {
		cells = append(cells, orNA(v))
	}
	for j := 1; j < len(s.Verdicts); j++ {
		cells = append(cells, verdictCell(s.VerdictChange(j), mark), "")
	}
	t.rows = append(t.rows, cells)
	for _, r := range s.Figures {
		cells := append([]string{name(r.Key), r.Better.String()}, r.Text...)
		for j, ch := range r.Changes {
			if r.missing[0] || r.missing[j+1] {
				cells = append(cells, "n/a", "n/a")
				continue
			}
			cells = append(cells, signed(ch.Abs), relative(ch.Rel))
		}
		t.rows = append(t.rows, cells)
	}
	return t
}

// verdictCell prints a change of verdict: upper case in text, coloured in
// Markdown, so that it stands out among the numbers.
func verdictCell(change string, mark bool) string {
	switch {
	case change == "":
		return "n/a"
	case change == VerdictSame, change == VerdictNotComparable:
		return change
	case !mark:
		return strings.ToUpper(change[:len("changed")]) + change[len("changed"):]
	case change == VerdictWorse:
		return "🔴 " + change
	case change == VerdictBetter:
		return "🟢 " + change
	}
	return "⚠️ " + change
}

func orNA(s string) string {
	if s == "" {
		return "n/a"
	}
	return s
}

// serverIntro introduces the server part: units, and that its keys are
// threshold keys.
const serverIntro = "each server's own figures from its /metrics (quantiles and gaps in seconds); " +
	"every key works in --threshold.\n"

// serverNote names the runs without server_view ("" when every run has
// one).
func (c *Comparison) serverNote() string {
	var names []string
	for i, v := range c.Server.Verdicts {
		if v == "" {
			names = append(names, c.Names[i])
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "n/a: " + strings.Join(names, ", ") + " has no server_view (vLLM's files, older gobench's, a server without /metrics).\n"
}

// serverText is the server part in text ("" when no run has one).
func (c *Comparison) serverText() string {
	if c.Server == nil {
		return ""
	}
	if !c.All {
		return "\n" + wrap(c.serverVerdicts(), "", "  ")
	}
	var b strings.Builder
	intro := strings.Replace(serverIntro, "every key works", "every key, after server_view., works", 1)
	b.WriteString("\n" + wrap("Server view: "+intro, "", "") + "\n")
	c.serverTable(false).fitText(&b)
	if note := c.serverNote(); note != "" {
		b.WriteString("\n" + note)
	}
	return b.String()
}

// serverVerdicts is the server part in one line: each run's verdict and
// its change from the baseline's.
func (c *Comparison) serverVerdicts() string {
	parts := make([]string, len(c.Server.Verdicts))
	for i, v := range c.Server.Verdicts {
		parts[i] = c.Names[i] + " " + orNA(v)
		if ch := c.Server.VerdictChange(i); i > 0 && ch != "" && ch != VerdictSame {
			parts[i] += " (" + verdictCell(ch, false) + ")"
		}
	}
	return "Server verdict: " + strings.Join(parts, ", ") + "; --all shows the server's figures."
}

// serverMarkdown is the server part in Markdown ("" when no run has one).
func (c *Comparison) serverMarkdown() string {
	if c.Server == nil {
		return ""
	}
	var b strings.Builder
	intro := strings.Replace(serverIntro, "--threshold", "`--threshold`", 1)
	b.WriteString("\n#### Server view\n\n" + strings.ToUpper(intro[:1]) + intro[1:] + "\n")
	c.serverTable(true).markdown(&b)
	if note := c.serverNote(); note != "" {
		b.WriteString("\n" + note)
	}
	return b.String()
}

// serverObject is the server part as JSON: {"verdicts": [string|null per
// run], "verdict_changes": [{"run", "change"}], "figures": [{"key",
// "better", "values": [number|null], "changes": [{"run", "abs", "rel"}]}]}.
func (c *Comparison) serverObject() *pyjson.Object {
	s := c.Server
	verdicts := make([]any, len(s.Verdicts))
	for i, v := range s.Verdicts {
		verdicts[i] = nullIfEmpty(v)
	}
	changes := make([]*pyjson.Object, 0, len(s.Verdicts)-1)
	for j := 1; j < len(s.Verdicts); j++ {
		o := pyjson.NewObject()
		o.Set("run", c.Names[j])
		o.Set("change", nullIfEmpty(s.VerdictChange(j)))
		changes = append(changes, o)
	}
	figures := make([]*pyjson.Object, len(s.Figures))
	for i, r := range s.Figures {
		row := pyjson.NewObject()
		row.Set("key", r.Key)
		row.Set("better", nullIfEmpty(r.Better.String()))
		values := make([]any, len(r.Values))
		for k, v := range r.Values {
			values[k] = numberOrNull(v, r.missing[k])
		}
		row.Set("values", values)
		chs := make([]*pyjson.Object, len(r.Changes))
		for j, ch := range r.Changes {
			absent := r.missing[0] || r.missing[j+1]
			co := pyjson.NewObject()
			co.Set("run", c.Names[j+1])
			co.Set("abs", numberOrNull(ch.Abs, absent))
			co.Set("rel", numberOrNull(ch.Rel, absent))
			chs[j] = co
		}
		row.Set("changes", chs)
		figures[i] = row
	}
	o := pyjson.NewObject()
	o.Set("verdicts", verdicts)
	o.Set("verdict_changes", changes)
	o.Set("figures", figures)
	return o
}

func numberOrNull(v float64, absent bool) any {
	if absent {
		return nil
	}
	return v
}
