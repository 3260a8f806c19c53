package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/resultkey"
	"github.com/gobench/gobench/internal/texttable"
)

// MultiTurn is what a --multi-turn run adds to vLLM's block and result
// (gobench only): the conversations, a row of figures per turn index
// (later turns carry the history, so their TTFT grows with it), and for
// the detailed result each request's conversation and turn.
type MultiTurn struct {
	// Conversations counts the conversations that started;
	// CompletedConversations those whose every turn succeeded.
	Conversations, CompletedConversations int
	// Turns has one row per turn index, from 0.
	Turns []TurnStats
	// ConversationIDs and TurnIndices name each request of the result's
	// per-request lists (detailed results only).
	ConversationIDs []string
	TurnIndices     []int
}

// TurnStats are the figures of the requests of one turn index.
type TurnStats struct {
	// Turn is the turn index (0: a conversation's first request).
	Turn int
	// Requests were sent; Completed succeeded.
	Requests, Completed int
	// MeanInputLen is the successful requests' mean prompt length in
	// tokens, history included.
	MeanInputLen float64
	// TTFT and E2EL are the successful requests' statistics in ms.
	TTFT, E2EL TurnLatency
}

// TurnLatency is the mean, median and 99th percentile of one latency, in
// milliseconds (0 without a successful request, as vLLM reports an empty
// metric).
type TurnLatency struct{ Mean, Median, P99 float64 }

// NewTurnLatency summarises latencies given in seconds.
func NewTurnLatency(seconds []float64) TurnLatency {
	if len(seconds) == 0 {
		return TurnLatency{}
	}
	return TurnLatency{Mean: metrics.Mean(seconds) * 1000, Median: metrics.Median(seconds) * 1000,
		P99: metrics.Percentile(seconds, 99) * 1000}
}

// Object is the result's multi_turn object: conversations,
// completed_conversations and per_turn (one object per turn index: turn,
// requests, completed, mean_input_len, and mean, median and p99 of
// ttft_ms and e2el_ms).
func (m *MultiTurn) Object() *pyjson.Object {
	o := pyjson.NewObject()
	o.Set("conversations", m.Conversations)
	o.Set("completed_conversations", m.CompletedConversations)
	rows := make([]*pyjson.Object, len(m.Turns))
	for i, t := range m.Turns {
		r := pyjson.NewObject()
		r.Set("turn", t.Turn)
		r.Set("requests", t.Requests)
		r.Set("completed", t.Completed)
		r.Set("mean_input_len", t.MeanInputLen)
		for _, l := range []struct {
			name string
			v    TurnLatency
		}{{"ttft", t.TTFT}, {"e2el", t.E2EL}} {
			r.Set("mean_"+l.name+"_ms", l.v.Mean)
			r.Set("median_"+l.name+"_ms", l.v.Median)
			r.Set("p99_"+l.name+"_ms", l.v.P99)
		}
		rows[i] = r
	}
	o.Set("per_turn", rows)
	return o
}

// set writes the multi-turn keys into a result object: multi_turn, and
// with detailed lists conversation_ids and turn_indices.
func (m *MultiTurn) set(o *pyjson.Object, detailed bool) {
	if m == nil {
		return
	}
	o.Set(resultkey.MultiTurn, m.Object())
	if detailed {
		o.Set(resultkey.ConversationIDs, m.ConversationIDs)
		o.Set(resultkey.TurnIndices, m.TurnIndices)
	}
}

// maxTurnRows is the most turn rows Text draws: a run of many turns
// shows its first and last ones, so that the table stays on one screen.
const maxTurnRows = 6

// Text draws the per-turn table after vLLM's block, at most maxTurnRows
// of its rows (the first turns, then the last ones).
func (m *MultiTurn) Text(w io.Writer) error { return m.text(w, false) }

// TextDetails draws the per-turn table with a row for every turn
// (--details).
func (m *MultiTurn) TextDetails(w io.Writer) error { return m.text(w, true) }

// text draws the section, whole or cut to maxTurnRows rows.
func (m *MultiTurn) text(w io.Writer, details bool) error {
	rows, note := m.rows(), ""
	if cut := len(rows) - maxTurnRows + 1; !details && cut > 1 {
		head := maxTurnRows / 2
		note = fmt.Sprintf("; turns %s to %s left out (--details)", rows[head][0], rows[head+cut-1][0])
		rows = append(append(rows[:head:head], []string{"..."}), rows[head+cut:]...)
	}
	if _, err := fmt.Fprintf(w, "%s\nConversations: %d started, %d with every turn answered%s\n",
		center(" Multi-turn: per turn ", "=", headerWidth), m.Conversations, m.CompletedConversations, note); err != nil {
		return err
	}
	for _, l := range texttable.Lines(turnHeader, rows, false, "") {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintln(w, strings.Repeat("=", headerWidth))
	return err
}

// Markdown draws the per-turn table after the Markdown summary.
func (m *MultiTurn) Markdown(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "\n#### Multi-turn: per turn\n\nConversations: %d started, %d with every turn answered.\n\n",
		m.Conversations, m.CompletedConversations); err != nil {
		return err
	}
	return m.markdownTable(w)
}

// turnHeader heads the per-turn table.
var turnHeader = []string{"turn", "requests", "completed", "mean input", "mean TTFT ms", "p99 TTFT ms", "mean E2EL ms", "p99 E2EL ms"}

// rows are the per-turn table's rows, one per turn index.
func (m *MultiTurn) rows() [][]string {
	rows := make([][]string, len(m.Turns))
	for i, t := range m.Turns {
		rows[i] = []string{strconv.Itoa(t.Turn), strconv.Itoa(t.Requests), strconv.Itoa(t.Completed), format2f(t.MeanInputLen),
			format2f(t.TTFT.Mean), format2f(t.TTFT.P99), format2f(t.E2EL.Mean), format2f(t.E2EL.P99)}
	}
	return rows
}

// markdownTable writes the table in Markdown, a row per turn index.
func (m *MultiTurn) markdownTable(w io.Writer) error {
	for _, l := range texttable.Lines(turnHeader, m.rows(), true, "") {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return nil
}
