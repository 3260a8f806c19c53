package diagnose

import (
	"fmt"
	"math"
	"strings"

	sm "github.com/gobench/gobench/internal/servermetrics"
)

// Verdict names where the problem is: one of a fixed list (Verdicts), so
// that scripts can rely on it.
type Verdict string

// The verdicts, in the order of the questions that give them.
const (
	// Healthy: questions were answered and ruled their layers out, and
	// none located a problem in the window.
	Healthy Verdict = "healthy"
	// Unknown: the procedure could not ask its questions (the page has no
	// metrics of a known engine) or none could be answered; the report's
	// VerdictReason says why.
	Unknown Verdict = "unknown"
	// QueueSeqLimit: requests wait because the running batch is at
	// --max-num-seqs while the cache has room.
	QueueSeqLimit Verdict = "queue/seq-limit"
	// QueueMemoryThrashing: the cache is near full and requests are
	// preempted: over-admission.
	QueueMemoryThrashing Verdict = "queue/memory-thrashing"
	// QueueMemoryFull: the cache is near full of useful work, without
	// preemptions: more capacity is needed.
	QueueMemoryFull Verdict = "queue/memory-full"
	// QueueHeadOfLine: requests wait though neither the sequence limit
	// nor memory binds: a large request ahead, or deferred requests.
	QueueHeadOfLine Verdict = "queue/head-of-line"
	// PrefillPrefixCache: prefill dominates TTFT and the prefix cache hits
	// less than the workload should give.
	PrefillPrefixCache Verdict = "prefill/prefix-cache"
	// PrefillFrontend: the API server's own time (tokenising, chat
	// templates, media) dominates TTFT.
	PrefillFrontend Verdict = "prefill/frontend"
	// StreamPrefillInterference: inter-token latency's p99 is far above
	// its p50: prefill chunks share steps with decoders.
	StreamPrefillInterference Verdict = "stream/prefill-interference"
	// StreamBatchOrCPU: inter-token latency is high throughout: the batch
	// is too large for the GPU, or the engine core lacks CPU.
	StreamBatchOrCPU Verdict = "stream/batch-or-cpu"
)

// Verdicts lists every verdict.
func Verdicts() []Verdict {
	return []Verdict{Healthy, Unknown, QueueSeqLimit, QueueMemoryThrashing, QueueMemoryFull, QueueHeadOfLine,
		PrefillPrefixCache, PrefillFrontend, StreamPrefillInterference, StreamBatchOrCPU}
}

// Status is how a question was answered.
type Status string

// The statuses of a finding.
const (
	// Located: the question found (part of) the problem.
	Located Status = "located"
	// RuledOut: the question's layer is not the problem.
	RuledOut Status = "ruled out"
	// NotAsked: the procedure did not lead here (requests do not wait, so
	// why they wait is moot).
	NotAsked Status = "not asked"
	// Unanswered: the metrics lack what the question needs (said why).
	Unanswered Status = "unanswered"
)

// Evidence is one number a finding used: a machine name, the value (NaN:
// not known), the threshold it was compared with (NaN: none) and a
// sentence saying all of it with units and the flag that sets the
// threshold.
type Evidence struct {
	Name      string
	Value     float64
	Threshold float64
	Text      string
}

// Finding is one question of the procedure answered.
type Finding struct {
	// Step is the question's number, 1 to 5.
	Step int
	// Question is the question as the procedure asks it.
	Question string
	Status   Status
	Evidence []Evidence
	// Conclusion says what the evidence means.
	Conclusion string
	// Advice is what to change, when the finding locates the problem.
	Advice string
	// Verdict is set on the finding that names the problem.
	Verdict Verdict
	// Unconfirmed says what the verdict's cause lacks to be confirmed
	// ("max_num_seqs not known, give --max-num-seqs"), "" when the
	// evidence shows it: a verdict reached by a guess says so in its
	// headline, not only in its body.
	Unconfirmed string
}

// Report is one diagnosis: the window's figures, the findings and the
// verdict. Object is its JSON form, Render its printed forms.
type Report struct {
	// Sources name the scraped pages (URLs or files).
	Sources []string
	// Model is the model_name the figures are of ("" when the server
	// labels none).
	Model string
	// Engine is the server's engine, told by its metric names, and the
	// names the figures were read by.
	Engine sm.Engine
	// Seconds is the window's length; 0 when not known. SinceStart says
	// the window is the server's whole life (one scrape).
	Seconds    float64
	SinceStart bool
	// Rows are the histograms with observations, latencies first.
	Rows   []*Row
	Ratios Ratios
	Gauges Gauges
	// Figures are the engine's own gauges and counters (Engine.Figures)
	// that the page has.
	Figures  []EngineFigure
	Findings []Finding
	Verdict  Verdict
	// VerdictReason says why the verdict is unknown, or what a healthy
	// verdict rests on when some questions could not be answered.
	VerdictReason string
	// VerdictUnconfirmed is the verdict's finding's Unconfirmed.
	VerdictUnconfirmed string
	// Notes say what the figures cannot show: a restart, an unknown
	// window, dropped samples, aliases read.
	Notes []string
}

// row returns the report's row of metric, or nil.
func (r *Report) row(metric string) *Row {
	for _, x := range r.Rows {
		if x.Metric == metric {
			return x
		}
	}
	return nil
}

// Diagnose computes the report of a window. states are the state gauges
// sampled inside the window (the window's two ends are added here), for
// the peaks; o must be valid (Options.Thresholds.Validate).
func Diagnose(w *sm.Window, states []State, o Options) *Report {
	e := w.Engine
	r := &Report{Seconds: w.Seconds, SinceStart: w.SinceStart, Model: o.Model, Engine: e}
	r.Rows = rows(w.Delta, e)
	r.Ratios = ratios(w.Delta, w.Seconds, e)
	all := append([]State(nil), states...)
	if w.Start != nil {
		all = append(all, readState(w.Start, e, 0))
	}
	all = append(all, readState(w.End, e, w.Seconds))
	r.Gauges = gauges(w.End, e, all)
	r.Figures = engineFigures(w, e)
	r.Notes = windowNotes(w)
	r.Findings = procedure(r, o)
	r.Verdict, r.VerdictReason = verdict(r)
	for _, f := range r.Findings {
		if f.Verdict != "" && f.Verdict == r.Verdict {
			r.VerdictUnconfirmed = f.Unconfirmed
			break
		}
	}
	return r
}

// verdict is the first finding's that names a problem; else healthy when
// some question was answered and ruled its layer out, unknown when none
// could be (with the reason).
func verdict(r *Report) (Verdict, string) {
	var ruledOut, unanswered []string
	for _, f := range r.Findings {
		if f.Verdict != "" {
			return f.Verdict, ""
		}
		switch f.Status {
		case RuledOut, Located:
			ruledOut = append(ruledOut, fmt.Sprint(f.Step))
		case Unanswered:
			unanswered = append(unanswered, fmt.Sprint(f.Step))
		}
	}
	switch {
	case !r.Engine.Known():
		return Unknown, "the page has no metrics of a known engine (" + sm.KnownPatterns() + "): no question could be asked"
	case len(ruledOut) == 0:
		return Unknown, fmt.Sprintf("no question could be answered (%s: see why): nothing shows the server healthy or not",
			questions(unanswered))
	case len(unanswered) > 0:
		return Healthy, fmt.Sprintf("%s ruled %s out; %s could not be answered",
			questions(ruledOut), pronoun(ruledOut), questions(unanswered))
	}
	return Healthy, ""
}

// questions is "question 1" or "questions 1, 4 and 5".
func questions(steps []string) string {
	if len(steps) == 1 {
		return "question " + steps[0]
	}
	return "questions " + join(steps)
}

// pronoun is "its layer" or "their layers".
func pronoun(steps []string) string {
	if len(steps) == 1 {
		return "its layer"
	}
	return "their layers"
}

// EngineFigure is one of the engine's own gauges or counters, as its
// table (servermetrics.Engine.Figures) describes it, with its value.
type EngineFigure struct {
	sm.Figure
	Value float64
}

// engineFigures reads the engine's own figures the page has: a counter's
// increase over the window, or a value at its end.
func engineFigures(w *sm.Window, e sm.Engine) []EngineFigure {
	var out []EngineFigure
	for _, f := range e.Figures {
		s := w.Delta
		if f.AtEnd {
			s = w.End
		}
		v, ok := s.Counter(f.Metric)
		if g, isGauge := s.Gauge(f.Metric); isGauge {
			v, ok = g.Sum, true
			if f.Unit == "" {
				v = g.Mean // a ratio or a rate: several sources' mean
			}
		}
		if ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			out = append(out, EngineFigure{Figure: f, Value: v})
		}
	}
	return out
}

// windowNotes says what the window's arithmetic could not do.
func windowNotes(w *sm.Window) []string {
	var notes []string
	switch {
	case w.SinceStart:
		notes = append(notes, "one scrape: the figures are totals since the server started, not a window; no rates")
	case w.Seconds <= 0:
		notes = append(notes, "the window's length is not known: counts are given instead of rates")
	}
	for _, r := range w.Restarted {
		notes = append(notes, "the server restarted inside the window ("+r+"): its figures are its totals since the restart")
	}
	for _, name := range []string{sm.KVUsage, sm.ITL, sm.PrefixQueries, sm.PrefixHits} {
		if e := w.End.Exposed(name); e != "" && strings.TrimSuffix(e, "_total") != name {
			notes = append(notes, name+" read from "+e+" (an older vLLM's name)")
		}
	}
	notes = append(notes, dedupe(w.End.Notes)...)
	if w.Start != nil {
		notes = append(notes, dedupe(w.Start.Notes)...)
	}
	return dedupe(notes)
}

// dedupe drops repeated notes, keeping the order.
func dedupe(notes []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range notes {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// finite is v, or nil for NaN and infinities (JSON null).
func finite(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}
