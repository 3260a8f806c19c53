package diagnose

import (
	"math"
	"strings"

	sm "github.com/gobench/gobench/internal/servermetrics"
)

// Verdict names where the problem is: one of a fixed list (Verdicts), so
// that scripts can rely on it.
type Verdict string

// The verdicts, in the order of the questions that give them.
const (
	// Healthy: no question located a problem in the window.
	Healthy Verdict = "healthy"
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
	return []Verdict{Healthy, QueueSeqLimit, QueueMemoryThrashing, QueueMemoryFull, QueueHeadOfLine,
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
}

// Report is one diagnosis: the window's figures, the findings and the
// verdict. Object is its JSON form, Render its printed forms.
type Report struct {
	// Sources name the scraped pages (URLs or files).
	Sources []string
	// Model is the model_name the figures are of ("" when the server
	// labels none).
	Model string
	// Seconds is the window's length; 0 when not known. SinceStart says
	// the window is the server's whole life (one scrape).
	Seconds    float64
	SinceStart bool
	// Rows are the histograms with observations, latencies first.
	Rows     []*Row
	Ratios   Ratios
	Gauges   Gauges
	Findings []Finding
	Verdict  Verdict
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
	r := &Report{Seconds: w.Seconds, SinceStart: w.SinceStart, Model: o.Model}
	r.Rows = rows(w.Delta)
	r.Ratios = ratios(w.Delta, w.Seconds)
	all := append([]State(nil), states...)
	if w.Start != nil {
		all = append(all, ReadState(w.Start, 0))
	}
	all = append(all, ReadState(w.End, w.Seconds))
	r.Gauges = gauges(w.End, all)
	r.Notes = windowNotes(w)
	r.Findings = procedure(r, o)
	r.Verdict = Healthy
	for _, f := range r.Findings {
		if f.Verdict != "" {
			r.Verdict = f.Verdict
			break
		}
	}
	return r
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
