package serverview

import (
	"fmt"

	"github.com/gobench/gobench/internal/diagnose"
)

// why says what makes the client's figure of r differ from the server's,
// from what each side's clock covers (vLLM's metrics: the API server
// stamps arrival when the request reaches it and the first and last token
// when it emits them; the client stamps the request just before it sends
// it and each token event when it reads it). row is the server's
// histogram row (nil without one).
func why(r Row, c Client, rep *diagnose.Report, row *diagnose.Row) string {
	switch {
	case r.Server == nil && r.ServerMetric == "":
		return rep.Engine.Name + " publishes no such histogram: client only."
	case r.Server == nil:
		return "the server publishes no " + r.ServerMetric + "."
	case r.Client == nil && r.Metric == "queue":
		return "server only: time waiting for the scheduler (no --max-concurrency, so the client queues nothing)."
	case r.Client == nil:
		return "the client measured none."
	case row != nil && row.Differs != "":
		return "different intervals: " + row.Differs + "; no gap is computed."
	}
	switch r.Metric {
	case "ttft", "e2el":
		s := "the network both ways, HTTP and SSE framing, and the client reading the stream: the server's clock starts when the request reaches it"
		if c.MaxConcurrency > 0 {
			s += "; neither side counts the client's wait for a --max-concurrency slot"
		}
		return s + "."
	case "itl":
		return itlWhy(c)
	case "tpot":
		return "TPOT is (E2E - TTFT) / (tokens - 1) on both sides; the gap is the network's jitter on the first and last token."
	default: // queue
		return "different queues: the client's is the wait for a --max-concurrency slot before sending, the server's the wait for the scheduler after arrival."
	}
}

// timingWhy explains the gap between the client's figure and the
// server's own per-request time (both exact, the same requests).
func timingWhy(metric string, c Client) string {
	if metric == "decode" {
		return "the client's E2E - TTFT against the server's generation time of the same requests (" + SourceTimings +
			", exact): the gap is the network's jitter on the first and last token and the events after the last one."
	}
	s := "the client's TTFT against the server's prompt time (prefill) of the same requests (" + SourceTimings +
		", exact): the gap is the wait for a free slot, tokenising and the chat template, and the network both ways"
	if c.MaxConcurrency > 0 {
		s += "; neither side counts the client's wait for a --max-concurrency slot"
	}
	return s + "."
}

// itlWhy explains the inter-token latency gap: several tokens per event
// (speculative decoding, --stream-interval) make the client's per-event
// gaps longer than the server's per-output gaps.
func itlWhy(c Client) string {
	perEvent := tokensPerEvent(c)
	switch {
	case c.SpecAcceptanceLength > 1.05:
		return fmt.Sprintf("speculative decoding: the server emits %.2f tokens per step, so the client's gap per event spans several tokens.", c.SpecAcceptanceLength)
	case perEvent > 1.05:
		return fmt.Sprintf("%.2f tokens per streamed event (--stream-interval or batching of the stream): the client's gap per event spans several tokens.", perEvent)
	}
	return "one token per event on both sides: the gap is network jitter and the client's reading of the stream."
}

// tokensPerEvent is the client's output tokens per token event over the
// successful requests (0 when there were no events).
func tokensPerEvent(c Client) float64 {
	if c.Result == nil {
		return 0
	}
	tokens, events := 0, 0
	for i, o := range c.Result.Outputs {
		if !o.Success {
			continue
		}
		tokens += c.Result.ActualOutputLens[i]
		events += len(o.ITL) + 1
	}
	if events == 0 {
		return 0
	}
	return float64(tokens) / float64(events)
}
