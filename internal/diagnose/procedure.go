package diagnose

import (
	"fmt"
	"math"

	sm "github.com/gobench/gobench/internal/servermetrics"
)

// The questions, as the procedure asks them.
const (
	q1 = "Is time to first token high because of the queue?"
	q2 = "Why are requests waiting?"
	q3 = "Is the cache thrashing?"
	q4 = "Is prefill slow?"
	q5 = "Is streaming uneven?"
)

// procedure asks the five questions in order. Questions 2 and 3 are asked
// only when the queue dominates (question 1) and memory binds (question
// 2); questions 4 and 5 always, so that a secondary problem is shown too,
// but the verdict is the first finding that names one. A page without a
// known engine's metrics answers none.
func procedure(r *Report, o Options) []Finding {
	t := o.Thresholds
	if !r.Engine.Known() {
		return unknownEngine()
	}
	f1 := queueFinding(r, t)
	f2 := Finding{Step: 2, Question: q2, Status: NotAsked, Conclusion: "Not asked: requests do not wait long (question 1)."}
	f3 := Finding{Step: 3, Question: q3, Status: NotAsked, Conclusion: "Not asked: memory does not bind (question 2)."}
	if f1.Status == Located {
		var memory bool
		f2, memory = waitingFinding(r, o)
		if memory {
			f3 = thrashingFinding(r, t)
		}
	}
	return []Finding{f1, f2, f3, prefillFinding(r, t), streamFinding(r, t)}
}

// unknownEngine is the findings of a page gobench cannot read: every
// question unanswered.
func unknownEngine() []Finding {
	why := "the page has no metrics of a known engine (" + sm.KnownPatterns() + ")"
	var out []Finding
	for i, q := range []string{q1, q2, q3, q4, q5} {
		out = append(out, unanswered(Finding{Step: i + 1, Question: q}, why))
	}
	return out
}

// rowOf returns the report's row of role, or nil.
func (r *Report) rowOf(role sm.Role) *Row {
	for _, x := range r.Rows {
		if x.Role == role {
			return x
		}
	}
	return nil
}

// histName is the engine's histogram of role, for messages: its name, or
// "none" in the engine's words.
func (r *Report) histName(role sm.Role) string {
	if h, ok := r.Engine.Hist(role); ok {
		return h.Name
	}
	return r.Engine.Name + " publishes none"
}

// queueFinding is question 1. With a queue-time and a TTFT histogram
// (vLLM, SGLang) the queue is weighed against TTFT (queueAgainstTTFT);
// with a queue-time histogram and only the whole request's latency (TGI
// publishes no TTFT), against that, which bounds the queue's share of
// TTFT from below (queueAgainstE2E); with only a waiting-requests gauge
// that counts requests no slot could take (llama.cpp), by whether
// requests waited at all (queueFromGauge). Other engines' waiting gauges
// count requests waiting for the next step too, which every request does
// for a moment: they do not answer the question.
func queueFinding(r *Report, t Thresholds) Finding {
	f := Finding{Step: 1, Question: q1}
	ttft, queue, e2e := r.rowOf(sm.RoleTTFT), r.rowOf(sm.RoleQueue), r.rowOf(sm.RoleE2E)
	_, hasTTFT := r.Engine.Hist(sm.RoleTTFT)
	switch {
	case ttft != nil && queue != nil:
		return queueAgainstTTFT(f, ttft, queue, t)
	case !hasTTFT && queue != nil && e2e != nil && !math.IsNaN(queue.Mean) && !math.IsNaN(e2e.Mean):
		return queueAgainstE2E(f, r, queue, e2e, t)
	case r.Engine.WaitingMeansFull && !math.IsNaN(r.Gauges.Peak.Waiting):
		return queueFromGauge(f, r)
	case hasTTFT && ttft == nil:
		return unanswered(f, "no request reached its first token in the window ("+r.histName(sm.RoleTTFT)+" is empty or absent)")
	}
	return unanswered(f, "the server has no queue-time histogram ("+r.histName(sm.RoleQueue)+")")
}

// queueAgainstTTFT weighs queue time against TTFT, on average and at p50,
// p95 and p99. The queue dominates when its exact mean (sum / count) is at
// least --dominant-share of TTFT's mean, or when one of its quantiles is
// at least that share of TTFT's same quantile: tails count, so a queue
// that is small at the median but most of TTFT at p95 or p99 dominates. A
// quantile in the queue histogram's lowest bucket (vLLM's ends at 0.3 s)
// is only known to be below that bound — interpolation puts every such
// p50, p95 and p99 at 0.15, 0.285 and 0.297 s whatever the queue was — so
// it never counts; the mean, exact, still does. Neither counts below
// --noise-floor.
func queueAgainstTTFT(f Finding, ttft, queue *Row, t Thresholds) Finding {
	var at []string
	onAverage := false
	for _, i := range []int{p50, p95, p99} {
		qe, te := queue.P[i], ttft.P[i]
		share := div(qe.Value, te.Value)
		name := pctName(i)
		text := fmt.Sprintf("queue %s %s (bucket %s) is %s of TTFT %s %s", name, secs(qe.Value), bucketText(qe, "s"),
			pct(share), name, secs(te.Value))
		if qe.Lowest {
			text += ": inside the lowest bucket, too coarse to count"
		} else if dominant(&text, qe.Value, share, t) {
			at = append(at, name)
		}
		f.Evidence = append(f.Evidence, Evidence{Name: "queue_share_" + name, Value: share, Threshold: t.DominantShare, Text: text})
	}
	if !math.IsNaN(queue.Mean) && !math.IsNaN(ttft.Mean) {
		share := div(queue.Mean, ttft.Mean)
		text := fmt.Sprintf("mean queue %s is %s of mean TTFT %s (exact: sum / count)", secs(queue.Mean), pct(share), secs(ttft.Mean))
		onAverage = dominant(&text, queue.Mean, share, t)
		f.Evidence = append(f.Evidence, Evidence{Name: "queue_share_mean", Value: share, Threshold: t.DominantShare, Text: text})
	}
	where := ""
	switch {
	case len(at) == 0 && !onAverage:
		f.Status, f.Conclusion = RuledOut, "Queue time is small: the time is in prefill or the frontend (question 4)."
		return f
	case len(at) == 0:
		where = "on average"
	case onAverage:
		where = "at " + join(at) + ", and on average"
	default:
		where = "at " + join(at)
	}
	f.Status = Located
	f.Conclusion = fmt.Sprintf("Queue time dominates TTFT %s: the server is saturated or blocked (question 2).", where)
	return f
}

// queueAgainstE2E weighs the mean queue time against the mean request
// latency, for an engine without a TTFT histogram. TTFT is part of the
// request, so the queue's share of the request is the least share of TTFT
// it can be: at --dominant-share or more it dominates TTFT too; below the
// noise floor it is not the problem; in between the question is open.
func queueAgainstE2E(f Finding, r *Report, queue, e2e *Row, t Thresholds) Finding {
	share := div(queue.Mean, e2e.Mean)
	text := fmt.Sprintf("mean queue %s (%s) is %s of the mean request %s (%s); %s publishes no TTFT, so this is the least share of TTFT the queue can be",
		secs(queue.Mean), queue.Metric, pct(share), secs(e2e.Mean), e2e.Metric, r.Engine.Name)
	located := dominant(&text, queue.Mean, share, t)
	f.Evidence = append(f.Evidence, Evidence{Name: "queue_share_of_request_mean", Value: share, Threshold: t.DominantShare, Text: text})
	switch {
	case located:
		f.Status = Located
		f.Conclusion = "Queue time dominates the whole request on average, so TTFT too: the server is saturated or blocked (question 2)."
	case queue.Mean < t.NoiseFloor:
		f.Status, f.Conclusion = RuledOut, "Queue time is below the noise floor: the time is in prefill or the frontend (question 4)."
	default:
		return unanswered(f, fmt.Sprintf("the queue is %s of the whole request, and %s publishes no TTFT to tell whether it dominates the time to first token", pct(share), r.Engine.Name))
	}
	return f
}

// queueFromGauge answers question 1 from the waiting-requests gauge's peak
// over the state samples, for an engine without queue and TTFT
// histograms: a request waiting at any sample waited for the server (how
// much of its TTFT that was cannot be told). When no sample caught a
// request running either, the samples were taken outside the load and say
// nothing.
func queueFromGauge(f Finding, r *Report) Finding {
	g, e := r.Gauges, r.Engine
	f.Evidence = append(f.Evidence, Evidence{Name: "waiting_peak", Value: g.Peak.Waiting, Threshold: math.NaN(),
		Text: fmt.Sprintf("%s peaked at %s, %s at %s (%s)", e.Waiting, count(g.Peak.Waiting), e.Running,
			count(g.Peak.Running), plural(g.Samples, "sample"))})
	switch {
	case g.Peak.Waiting > 0:
		f.Status = Located
		f.Conclusion = fmt.Sprintf("Requests waited for the server (%s peaked at %s): the server is saturated or blocked (question 2). "+
			"%s publishes no queue time, so how much of TTFT the wait was cannot be told.", e.Waiting, count(g.Peak.Waiting), e.Name)
	case !(g.Peak.Running > 0):
		return unanswered(f, "every state sample shows an idle server (taken outside the load), so whether requests wait under load cannot be seen; "+
			"diagnose while the load runs (the live window samples the gauges)")
	default:
		f.Status = RuledOut
		f.Conclusion = fmt.Sprintf("No request waited at any of %s while up to %s ran: the queue is not the problem (question 4).",
			plural(g.Samples, "state sample"), count(g.Peak.Running))
	}
	return f
}

// dominant says whether a queue time of seconds, share of TTFT, dominates
// it, and appends why to text.
func dominant(text *string, seconds, share float64, t Thresholds) bool {
	switch {
	case seconds < t.NoiseFloor:
		*text += fmt.Sprintf(": below the noise floor of %s (--noise-floor)", secs(t.NoiseFloor))
	case share >= t.DominantShare:
		*text += fmt.Sprintf(": dominates (>= %s, --dominant-share)", pct(t.DominantShare))
		return true
	default:
		*text += fmt.Sprintf(": below %s (--dominant-share)", pct(t.DominantShare))
	}
	return false
}

func unanswered(f Finding, why string) Finding {
	f.Status, f.Conclusion = Unanswered, "Cannot be answered: "+why+"."
	return f
}

// span is "in the window", or "since the server started" for one scrape.
func (r *Report) span() string {
	if r.SinceStart {
		return "since the server started"
	}
	return "in the window"
}
