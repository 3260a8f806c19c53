package diagnose

import (
	"fmt"
	"math"

	sm "github.com/gobench/gobench/internal/servermetrics"
)

// vllmID is vLLM's engine ID: its findings keep vLLM's own words (flags,
// metric names) where other engines get generic ones.
const vllmID = "vllm"

// waitingFinding is question 2: the running requests against the running
// limit (vLLM's --max-num-seqs, llama.cpp's slots) and the KV-cache usage,
// at their peaks over the state samples. memory says the cache binds
// (question 3 decides).
func waitingFinding(r *Report, o Options) (f Finding, memory bool) {
	t, g, e := o.Thresholds, r.Gauges, r.Engine
	f = Finding{Step: 2, Question: q2, Status: Located}
	kv := g.Peak.KVMax
	f.Evidence = append(f.Evidence, kvEvidence(r, t))
	if kv >= t.KVHigh {
		f.Conclusion = "Cache usage is near 1.0: memory binds (question 3)."
		return f, true
	}
	if p := r.Ratios.Preemptions; p > 0 {
		f.Conclusion = preemptedConclusion(r, p)
		return f, true
	}
	running, waiting := g.Peak.Running, g.Peak.Waiting
	deferred := g.WaitingByReason["deferred"]
	f.Evidence = append(f.Evidence, runningEvidence(r))
	if !(running > 0 || waiting > 0) {
		return idleFinding(f, e)
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
			return seqLimit(f, e, "Running reaches max_num_seqs with the cache moderate: the sequence limit binds."), false
		}
		return headOfLine(f, e, deferred), false
	}
	if e.WaitingMeansFull && waiting > 0 {
		return slotsFull(f, r, flag), false
	}
	if deferred > 0 {
		return headOfLine(f, e, deferred), false
	}
	f.Evidence = append(f.Evidence, unknownLimit(e, flag))
	f = seqLimit(f, e, "Requests wait while the cache has room and none is deferred: most likely the sequence limit binds. "+
		"Confirm with "+flag+": if running stays below it, the cause is head-of-line blocking (queue/head-of-line).")
	f.Unconfirmed = limitName(e) + " not known, give " + flag
	return f, false
}

// limitName is what the engine calls its running limit.
func limitName(e sm.Engine) string {
	if e.ID == vllmID {
		return "max_num_seqs"
	}
	return "the running limit (" + e.LimitFlag + ")"
}

// kvEvidence is the peak KV-cache usage against --kv-high, or that the
// engine publishes none.
func kvEvidence(r *Report, t Thresholds) Evidence {
	g, e := r.Gauges, r.Engine
	kv := g.Peak.KVMax
	ev := Evidence{Name: "kv_cache_usage_peak", Value: kv, Threshold: t.KVHigh,
		Text: fmt.Sprintf("KV-cache usage peaked at %s (highest engine, %s); memory binds from %s (--kv-high)",
			pct(kv), plural(g.Samples, "sample"), pct(t.KVHigh))}
	switch {
	case e.ID == vllmID:
	case e.KVUsage == "" && e.KVUsed == "":
		ev.Text = fmt.Sprintf("%s publishes no KV-cache usage: whether memory binds cannot be seen", e.Name)
	case e.KVUsage == "":
		ev.Text = fmt.Sprintf("the batch's token budget in use (%s / %s) peaked at %s (%s); memory binds from %s (--kv-high)",
			e.KVUsed, e.KVCapacity, pct(kv), plural(g.Samples, "sample"), pct(t.KVHigh))
	default:
		ev.Text = fmt.Sprintf("KV-cache usage (%s) peaked at %s (%s); memory binds from %s (--kv-high)",
			e.KVUsage, pct(kv), plural(g.Samples, "sample"), pct(t.KVHigh))
	}
	return ev
}

// preemptedConclusion says memory binds although no sample caught the
// cache full: the samples (seconds apart, or taken outside the load)
// missed it, since the engine preempts only when a running request needs
// a block and none is free.
func preemptedConclusion(r *Report, p float64) string {
	if r.Engine.ID == vllmID {
		return fmt.Sprintf("No sample caught the cache near 1.0, but %s requests were preempted %s, which vLLM does only "+
			"when the cache is full: memory binds (question 3).", count(p), r.span())
	}
	return fmt.Sprintf("No sample caught the cache near 1.0, but %s %s (%s) %s, which %s makes only when the cache is full: memory binds (question 3).",
		count(p), r.Engine.PreemptionWord, r.Engine.Preemptions, r.span(), r.Engine.Name)
}

// runningEvidence states the running and waiting peaks, in the engine's
// names.
func runningEvidence(r *Report) Evidence {
	g, e := r.Gauges, r.Engine
	text := fmt.Sprintf("running peaked at %s requests, waiting at %s (at the end: capacity %s, deferred %s)",
		count(g.Peak.Running), count(g.Peak.Waiting), count(g.WaitingByReason["capacity"]), count(g.WaitingByReason["deferred"]))
	if e.ID != vllmID {
		text = fmt.Sprintf("%s peaked at %s, %s at %s", e.Running, count(g.Peak.Running), e.Waiting, count(g.Peak.Waiting))
	}
	return Evidence{Name: "running_peak", Value: g.Peak.Running, Threshold: math.NaN(), Text: text}
}

// unknownLimit says the running limit is not published.
func unknownLimit(e sm.Engine, flag string) Evidence {
	text := "max_num_seqs is not known: vLLM does not publish it (give " + flag + ")"
	if e.ID != vllmID {
		text = fmt.Sprintf("the running limit (%s) is not known: %s does not publish it (give %s)", e.LimitFlag, e.Name, flag)
	}
	return Evidence{Name: "max_num_seqs", Value: math.NaN(), Threshold: math.NaN(), Text: text}
}

// slotsFull answers question 2 for an engine that queues a request only
// when every slot is busy (llama.cpp defers a task when no slot is idle):
// requests waited, so the slots bound. Their number is not published;
// the running peak is what was seen busy, not a limit.
func slotsFull(f Finding, r *Report, flag string) Finding {
	g, e := r.Gauges, r.Engine
	f.Evidence = append(f.Evidence, Evidence{Name: "max_num_seqs", Value: math.NaN(), Threshold: math.NaN(),
		Text: fmt.Sprintf("slots unknown: %s does not publish them (%s; give %s); %s peaked at %s, the most seen busy",
			e.Name, e.LimitFlag, flag, e.Running, count(g.Peak.Running))})
	return seqLimit(f, e, fmt.Sprintf("%s queues a request only when no slot is free, and %s peaked at %s: every slot was busy, "+
		"so the running limit binds.", e.Name, e.Waiting, count(g.Peak.Waiting)))
}

// idleFinding answers question 2 when every state sample shows an idle
// server (scrapes taken before and after the load) and nothing was
// preempted: the most common cause is named, as a guess.
func idleFinding(f Finding, e sm.Engine) (Finding, bool) {
	f = seqLimit(f, e, "The state samples all show an idle server (the scrapes were taken outside the load), so why requests waited cannot be seen; "+
		"the most common cause is the sequence limit. Diagnose while the load runs (the live window samples the gauges) to tell.")
	f.Unconfirmed = "every state sample shows an idle server"
	return f, false
}

func seqLimit(f Finding, e sm.Engine, conclusion string) Finding {
	f.Conclusion, f.Verdict = conclusion, QueueSeqLimit
	f.Advice = "Raise " + e.LimitFlag + " if step time allows (watch inter-token latency), or add replicas."
	return f
}

func headOfLine(f Finding, e sm.Engine, deferred float64) Finding {
	f.Verdict = QueueHeadOfLine
	f.Conclusion = "Neither the sequence limit nor memory binds: head-of-line blocking by a large request, or deferred requests."
	if deferred > 0 {
		f.Conclusion = fmt.Sprintf("%s requests are deferred: requests wait for something other than capacity.", count(deferred))
	}
	f.Advice = "Check vllm:num_requests_waiting_by_reason: many deferred means grammar compilation time, --max-loras or the KV transfer path; " +
		"otherwise long prompts hold the step's token budget (--max-num-batched-tokens, --long-prefill-token-threshold)."
	if e.ID != vllmID {
		f.Advice = "Look for long prompts holding the batch's token budget ahead of short requests."
	}
	return f
}

// thrashingFinding is question 3: preemptions in the window.
func thrashingFinding(r *Report, t Thresholds) Finding {
	f := Finding{Step: 3, Question: q3, Status: Located}
	rt, e := r.Ratios, r.Engine
	word := e.PreemptionWord
	if word == "" {
		word = "preemptions"
	}
	if math.IsNaN(rt.Preemptions) {
		name := e.Preemptions
		if name == "" {
			name = e.Name + " publishes none"
		}
		f.Evidence = append(f.Evidence, Evidence{Name: "preemptions", Value: math.NaN(), Threshold: t.MinPreemptions,
			Text: "the server has no preemption counter (" + name + ")"})
		f.Conclusion, f.Verdict = "Preemptions are not published: thrashing cannot be told from a full cache.", QueueMemoryFull
		f.Advice = fullAdvice(e)
		f.Unconfirmed = "no preemption counter, thrashing not ruled out"
		return f
	}
	text := fmt.Sprintf("%s %s %s (%s per finished request%s); thrashing from %s (--min-preemptions)",
		count(rt.Preemptions), word, r.span(), ratio(rt.PreemptionsPerFinished), perS(rt.PreemptionsPerS), count(t.MinPreemptions))
	f.Evidence = append(f.Evidence, Evidence{Name: "preemptions", Value: rt.Preemptions, Threshold: t.MinPreemptions, Text: text})
	if rt.Preemptions >= t.MinPreemptions && rt.Preemptions > 0 {
		f.Conclusion, f.Verdict = "Sustained preemptions with the cache near full: over-admission.", QueueMemoryThrashing
		f.Advice = "Lower --max-num-seqs, add a --watermark, lower --max-model-len, or add cache."
		if e.ID != vllmID {
			f.Advice = "Lower " + e.LimitFlag + ", or add cache."
		}
		return f
	}
	f.Conclusion, f.Verdict, f.Advice = "No preemptions: the cache is simply full of useful work.", QueueMemoryFull, fullAdvice(e)
	return f
}

// fullAdvice is the advice for a cache full of useful work.
func fullAdvice(e sm.Engine) string {
	if e.ID != vllmID {
		return "You need more capacity: more GPUs or replicas, or a smaller KV cache per token."
	}
	return "You need more capacity: more GPUs or replicas, a higher --gpu-memory-utilization, or a smaller KV cache per token (--kv-cache-dtype fp8)."
}
