package run

import "github.com/gobench/gobench/internal/report"

// perTurn gathers a --multi-turn run's per-turn figures from the requests
// that were sent (nil without conversations): a row per turn index over
// every conversation, since later turns carry a longer history, and each
// sent request's conversation and turn, in the order of the result's
// per-request lists.
func (x *execution) perTurn(res dispatchResult) *report.MultiTurn {
	t := x.talks
	if t == nil {
		return nil
	}
	mt := &report.MultiTurn{}
	type acc struct {
		requests, completed int
		inputs              int
		ttfts, e2els        []float64
	}
	var rows []acc
	convOK := map[int]bool{}
	for i, out := range res.outputs {
		if !res.sent[i] {
			continue
		}
		c, k := t.conv[i], t.turn[i]
		mt.ConversationIDs = append(mt.ConversationIDs, t.list[c].ID)
		mt.TurnIndices = append(mt.TurnIndices, k)
		for len(rows) <= k {
			rows = append(rows, acc{})
		}
		r := &rows[k]
		r.requests++
		if k == 0 {
			convOK[c] = true
		}
		if !out.Success {
			convOK[c] = false
			continue
		}
		r.completed++
		r.inputs += out.PromptLen
		r.ttfts, r.e2els = append(r.ttfts, out.TTFT), append(r.e2els, out.Latency)
	}
	for c, ok := range convOK {
		if ok && res.sent[t.first[c]+len(t.list[c].Turns)-1] {
			mt.CompletedConversations++
		}
	}
	mt.Conversations = len(convOK)
	for k, r := range rows {
		s := report.TurnStats{Turn: k, Requests: r.requests, Completed: r.completed,
			TTFT: report.NewTurnLatency(r.ttfts), E2EL: report.NewTurnLatency(r.e2els)}
		if r.completed > 0 {
			s.MeanInputLen = float64(r.inputs) / float64(r.completed)
		}
		mt.Turns = append(mt.Turns, s)
	}
	return mt
}
