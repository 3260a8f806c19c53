package report

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/resultkey"
	"github.com/google/go-cmp/cmp"
)

// TestMultiTurnKeys: a --multi-turn result has the schema's keys (with
// multi_turn, and with --save-detailed conversation_ids and
// turn_indices), and doc.go lists them.
func TestMultiTurnKeys(t *testing.T) {
	t.Parallel()
	mt := &MultiTurn{Conversations: 1, CompletedConversations: 1, ConversationIDs: []string{"c"}, TurnIndices: []int{0},
		Turns: []TurnStats{{Turn: 0, Requests: 1, Completed: 1}}}
	for _, detailed := range []bool{false, true} {
		sel := resultkey.Selection{Tokenizer: true, Detailed: detailed, Workload: true, MultiTurn: true}
		cfg := metrics.Config{Percentiles: []float64{99}, RequestRate: 4, CountTokens: countWords}
		r := metrics.Calculate(seedOutputs(), 8, cfg)
		run := &Run{Date: "20260101-010203", Backend: "openai-chat", ModelID: "m", SaveDetailed: detailed,
			ScheduledOffsets: []float64{0}, Version: "v", EndReason: EndCompleted, MultiTurn: mt,
			Workload: (&Workload{DatasetName: "random"}).Object()}
		var want []string
		for _, k := range sel.Keys() {
			if !k.Server {
				want = append(want, k.Name)
			}
		}
		if diff := cmp.Diff(want, ResultObject(&r, run).Keys()); diff != "" {
			t.Errorf("detailed %v: keys (-schema +writer):\n%s", detailed, diff)
		}
	}
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{resultkey.MultiTurn, resultkey.ConversationIDs, resultkey.TurnIndices} {
		if !regexp.MustCompile(fmt.Sprintf(`(?m)^//\t%s\s`, k)).Match(doc) {
			t.Errorf("doc.go does not list the key %q", k)
		}
	}
}

// TestMultiTurnText: the per-turn table after the block.
func TestMultiTurnText(t *testing.T) {
	t.Parallel()
	mt := &MultiTurn{Conversations: 2, CompletedConversations: 1, Turns: []TurnStats{
		{Turn: 0, Requests: 2, Completed: 2, MeanInputLen: 10, TTFT: NewTurnLatency([]float64{0.01, 0.03}), E2EL: NewTurnLatency([]float64{0.1, 0.3})},
		{Turn: 1, Requests: 2, Completed: 1, MeanInputLen: 40.5, TTFT: NewTurnLatency([]float64{0.05}), E2EL: NewTurnLatency([]float64{0.5})},
	}}
	var b strings.Builder
	if err := mt.Text(&b); err != nil {
		t.Fatal(err)
	}
	want := `============== Multi-turn: per turn ==============
Conversations: 2 started, 1 with every turn answered
turn  requests  completed  mean input  mean TTFT ms  p99 TTFT ms  mean E2EL ms  p99 E2EL ms
0            2          2       10.00         20.00        29.80        200.00       298.00
1            2          1       40.50         50.00        50.00        500.00       500.00
==================================================
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
	b.Reset()
	if err := mt.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	if want := "| 1 | 2 | 1 | 40.50 | 50.00 | 50.00 | 500.00 | 500.00 |\n"; !strings.HasSuffix(b.String(), want) {
		t.Errorf("Markdown table does not end with %q:\n%s", want, b.String())
	}
	obj := mt.Object()
	if got := obj.Keys(); !cmp.Equal(got, []string{"conversations", "completed_conversations", "per_turn"}) {
		t.Errorf("multi_turn keys %v", got)
	}
}

// TestMultiTurnTextManyTurns: a run of many turns shows its first and
// last turns by default, and every turn with --details.
func TestMultiTurnTextManyTurns(t *testing.T) {
	t.Parallel()
	mt := &MultiTurn{Conversations: 1, CompletedConversations: 1}
	for i := range 10 {
		mt.Turns = append(mt.Turns, TurnStats{Turn: i, Requests: 1, Completed: 1})
	}
	for _, tc := range []struct {
		draw  func(*MultiTurn, io.Writer) error
		lines int
		note  bool
	}{{(*MultiTurn).Text, 2 + 1 + maxTurnRows + 1, true}, {(*MultiTurn).TextDetails, 2 + 1 + 10 + 1, false}} {
		var b strings.Builder
		if err := tc.draw(mt, &b); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		note := strings.Contains(b.String(), "every turn answered; turns 3 to 7 left out (--details)\n")
		if len(lines) != tc.lines || note != tc.note {
			t.Errorf("%d lines (want %d), note %v:\n%s", len(lines), tc.lines, note, b.String())
		}
	}
}
