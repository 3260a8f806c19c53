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
// but the verdict is the first finding that names one.
func procedure(r *Report, o Options) []Finding {
	t := o.Thresholds
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

// queueFinding is question 1: queue time against TTFT, on average and at
// p50, p95 and p99. The queue dominates when its exact mean (sum / count)
// is at least --dominant-share of TTFT's mean, or when one of its
// quantiles is at least that share of TTFT's same quantile: tails count,
// so a queue that is small at the median but most of TTFT at p95 or p99
// dominates. A quantile in the queue histogram's lowest bucket (vLLM's
// ends at 0.3 s) is only known to be below that bound — interpolation puts
// every such p50, p95 and p99 at 0.15, 0.285 and 0.297 s whatever the
// queue was — so it never counts; the mean, exact, still does. Neither
// counts below --noise-floor.
func queueFinding(r *Report, t Thresholds) Finding {
	f := Finding{Step: 1, Question: q1}
	ttft, queue := r.row(sm.TTFT), r.row(sm.Queue)
	switch {
	case ttft == nil:
		return unanswered(f, "no request reached its first token in the window (vllm:time_to_first_token_seconds is empty or absent)")
	case queue == nil:
		return unanswered(f, "the server has no queue-time histogram (vllm:request_queue_time_seconds)")
	}
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

// waitingFinding is question 2: the running requests against
// --max-num-seqs and the KV-cache usage, at their peaks over the state
// samples. memory says the cache binds (question 3 decides).
func waitingFinding(r *Report, o Options) (f Finding, memory bool) {
	t, g := o.Thresholds, r.Gauges
	f = Finding{Step: 2, Question: q2, Status: Located}
	kv := g.Peak.KVMax
	f.Evidence = append(f.Evidence, Evidence{Name: "kv_cache_usage_peak", Value: kv, Threshold: t.KVHigh,
		Text: fmt.Sprintf("KV-cache usage peaked at %s (highest engine, %s); memory binds from %s (--kv-high)",
			pct(kv), plural(g.Samples, "sample"), pct(t.KVHigh))})
	if kv >= t.KVHigh {
		f.Conclusion = "Cache usage is near 1.0: memory binds (question 3)."
		return f, true
	}
	if p := r.Ratios.Preemptions; p > 0 {
		// The samples missed the full cache (they are seconds apart, or
		// taken outside the load): vLLM preempts only when a running
		// request needs a block and none is free.
		f.Conclusion = fmt.Sprintf("No sample caught the cache near 1.0, but %s requests were preempted %s, which vLLM does only "+
			"when the cache is full: memory binds (question 3).", count(p), r.span())
		return f, true
	}
	running, waiting := g.Peak.Running, g.Peak.Waiting
	deferred := g.WaitingByReason["deferred"]
	f.Evidence = append(f.Evidence, Evidence{Name: "running_peak", Value: running, Threshold: math.NaN(),
		Text: fmt.Sprintf("running peaked at %s requests, waiting at %s (at the end: capacity %s, deferred %s)",
			count(running), count(waiting), count(g.WaitingByReason["capacity"]), count(deferred))})
	if !(running > 0 || waiting > 0) {
		return idleFinding(f)
	}
	flag := o.MaxNumSeqsFlag
	if flag == "" {
		flag = "--max-num-seqs"
	}
	perEngine, from := o.MaxNumSeqs, flag
	if perEngine == 0 && g.MaxNumSeqs > 0 {
		perEngine, from = g.MaxNumSeqs, g.InfoName
	}
	if perEngine > 0 {
		limit := float64(perEngine * max(g.Engines, 1))
		f.Evidence = append(f.Evidence, Evidence{Name: "max_num_seqs", Value: limit, Threshold: math.NaN(),
			Text: fmt.Sprintf("the sequence limit is %s (max_num_seqs %d from %s, x %s)", count(limit), perEngine, from, plural(max(g.Engines, 1), "engine"))})
		if running >= limit {
			return seqLimit(f, "Running reaches max_num_seqs with the cache moderate: the sequence limit binds."), false
		}
		return headOfLine(f, deferred), false
	}
	if deferred > 0 {
		return headOfLine(f, deferred), false
	}
	f.Evidence = append(f.Evidence, Evidence{Name: "max_num_seqs", Value: math.NaN(), Threshold: math.NaN(),
		Text: "max_num_seqs is not known: vLLM does not publish it (give " + flag + ")"})
	return seqLimit(f, "Requests wait while the cache has room and none is deferred: most likely the sequence limit binds. "+
		"Confirm with "+flag+": if running stays below it, the cause is head-of-line blocking (queue/head-of-line)."), false
}

// idleFinding answers question 2 when every state sample shows an idle
// server (scrapes taken before and after the load) and nothing was
// preempted: the most common cause is named, as a guess.
func idleFinding(f Finding) (Finding, bool) {
	return seqLimit(f, "The state samples all show an idle server (the scrapes were taken outside the load), so why requests waited cannot be seen; "+
		"the most common cause is the sequence limit. Diagnose while the load runs (the live window samples the gauges) to tell."), false
}

func seqLimit(f Finding, conclusion string) Finding {
	f.Conclusion, f.Verdict = conclusion, QueueSeqLimit
	f.Advice = "Raise --max-num-seqs if step time allows (watch inter-token latency), or add replicas."
	return f
}

func headOfLine(f Finding, deferred float64) Finding {
	f.Verdict = QueueHeadOfLine
	f.Conclusion = "Neither the sequence limit nor memory binds: head-of-line blocking by a large request, or deferred requests."
	if deferred > 0 {
		f.Conclusion = fmt.Sprintf("%s requests are deferred: requests wait for something other than capacity.", count(deferred))
	}
	f.Advice = "Check vllm:num_requests_waiting_by_reason: many deferred means grammar compilation time, --max-loras or the KV transfer path; " +
		"otherwise long prompts hold the step's token budget (--max-num-batched-tokens, --long-prefill-token-threshold)."
	return f
}

// thrashingFinding is question 3: preemptions in the window.
func thrashingFinding(r *Report, t Thresholds) Finding {
	f := Finding{Step: 3, Question: q3, Status: Located}
	rt := r.Ratios
	if math.IsNaN(rt.Preemptions) {
		f.Evidence = append(f.Evidence, Evidence{Name: "preemptions", Value: math.NaN(), Threshold: t.MinPreemptions,
			Text: "the server has no preemption counter (vllm:num_preemptions)"})
		f.Conclusion, f.Verdict = "Preemptions are not published: thrashing cannot be told from a full cache.", QueueMemoryFull
		f.Advice = fullAdvice
		return f
	}
	text := fmt.Sprintf("%s preemptions %s (%s per finished request%s); thrashing from %s (--min-preemptions)",
		count(rt.Preemptions), r.span(), ratio(rt.PreemptionsPerFinished), perS(rt.PreemptionsPerS), count(t.MinPreemptions))
	f.Evidence = append(f.Evidence, Evidence{Name: "preemptions", Value: rt.Preemptions, Threshold: t.MinPreemptions, Text: text})
	if rt.Preemptions >= t.MinPreemptions && rt.Preemptions > 0 {
		f.Conclusion, f.Verdict = "Sustained preemptions with the cache near full: over-admission.", QueueMemoryThrashing
		f.Advice = "Lower --max-num-seqs, add a --watermark, lower --max-model-len, or add cache."
		return f
	}
	f.Conclusion, f.Verdict, f.Advice = "No preemptions: the cache is simply full of useful work.", QueueMemoryFull, fullAdvice
	return f
}

const fullAdvice = "You need more capacity: more GPUs or replicas, a higher --gpu-memory-utilization, or a smaller KV cache per token (--kv-cache-dtype fp8)."

// span is "in the window", or "since the server started" for one scrape.
func (r *Report) span() string {
	if r.SinceStart {
		return "since the server started"
	}
	return "in the window"
}

func unanswered(f Finding, why string) Finding {
	f.Status, f.Conclusion = Unanswered, "Cannot be answered: "+why+"."
	return f
}
