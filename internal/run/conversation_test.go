package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/tokenizer"
	"github.com/google/go-cmp/cmp"
)

// seen is one chat request the test server received.
type seen struct {
	id string
	// begin and end are the server's event counter when the request
	// arrived and when its answer had been written whole.
	begin, end int
	arrived    time.Time
	// session is the X-Session-ID header.
	session  string
	messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
}

// chatLog serves gobench's simulator and records every chat request in
// the order of the server's events, so that tests can order requests
// without reading clocks.
type chatLog struct {
	mu    sync.Mutex
	n     int
	reqs  map[string]*seen
	order []string
}

func startChatLog(t *testing.T, ttft, itl time.Duration) (*httptest.Server, *chatLog) {
	t.Helper()
	s, err := sim.NewServer(sim.Config{TTFT: ttft, ITL: itl, Tokenizer: tokenizer.Builtin(), Root: tokenizer.BuiltinName})
	if err != nil {
		t.Fatal(err)
	}
	l := &chatLog{reqs: map[string]*seen{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") || id == "" {
			s.Handler().ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		rec := &seen{id: id, arrived: time.Now(), session: r.Header.Get("X-Session-ID")}
		var payload struct {
			Messages json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(body, &payload); err == nil {
			_ = json.Unmarshal(payload.Messages, &rec.messages)
		}
		l.mu.Lock()
		l.n++
		rec.begin = l.n
		l.reqs[id] = rec
		l.order = append(l.order, id)
		l.mu.Unlock()
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		s.Handler().ServeHTTP(w, r)
		l.mu.Lock()
		l.n++
		rec.end = l.n
		l.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return srv, l
}

// multiTurnOptions are a small multi-turn run against url.
func multiTurnOptions(url string) Options {
	o := baseOptions(url)
	o.Backend, o.NumPrompts = "openai-chat", 4
	o.MultiTurn.Enabled = true
	o.Dataset.RandomInputLen, o.Dataset.RandomOutputLen = 16, 4
	o.MultiTurn.Turns.PerTurnInputLen = 8
	o.SaveResult, o.SaveDetailed = true, true
	return o
}

// TestConversationTurnsFollowAnswers: turn k+1 reaches the server only
// after turn k's answer was written whole, carries every earlier user turn
// and the answer the client received for it, and the result keeps each
// request's conversation and turn.
func TestConversationTurnsFollowAnswers(t *testing.T) {
	t.Parallel()
	srv, log := startChatLog(t, 5*time.Millisecond, time.Millisecond)
	o := multiTurnOptions(srv.URL)
	o.ResultDir = t.TempDir()
	var b buffers
	res, err := Serve(context.Background(), o, b.env())
	if err != nil {
		t.Fatalf("%v\n%s", err, b.err.String())
	}
	saved := readResult(t, res.File)
	texts := map[string]string{}
	ids, turns, gen := saved["conversation_ids"].([]any), saved["turn_indices"].([]any), saved["generated_texts"].([]any)
	if len(ids) != 12 || len(turns) != 12 {
		t.Fatalf("%d conversation ids, %d turn indices, want 12 (4 conversations of 3 turns)", len(ids), len(turns))
	}
	for i := range ids {
		texts[fmt.Sprintf("%s-turn%v", ids[i], turns[i])] = gen[i].(string)
	}
	for c := range 4 {
		conv := fmt.Sprintf("bench-test-conv-%d", c)
		var want []string
		for k := range 3 {
			r := log.reqs[fmt.Sprintf("%s-turn%d", conv, k)]
			if r == nil {
				t.Fatalf("%s-turn%d never reached the server", conv, k)
			}
			if r.session != conv {
				t.Errorf("%s turn %d: X-Session-ID %q", conv, k, r.session)
			}
			if k > 0 {
				prev := log.reqs[fmt.Sprintf("%s-turn%d", conv, k-1)]
				if r.begin < prev.end {
					t.Errorf("%s turn %d arrived (event %d) before turn %d's answer ended (event %d)", conv, k, r.begin, k-1, prev.end)
				}
				want = append(want, "assistant:"+texts[fmt.Sprintf("%s-turn%d", conv, k-1)])
			}
			want = append(want, "user")
			var got []string
			for _, m := range r.messages {
				if m.Role == "assistant" {
					var s string
					_ = json.Unmarshal(m.Content, &s)
					got = append(got, "assistant:"+s)
				} else {
					got = append(got, m.Role)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s turn %d messages (-want +got):\n%s", conv, k, diff)
			}
		}
	}
	mt := saved["multi_turn"].(map[string]any)
	if mt["conversations"] != 4.0 || mt["completed_conversations"] != 4.0 || len(mt["per_turn"].([]any)) != 3 {
		t.Errorf("multi_turn = %v", mt)
	}
	if !strings.Contains(b.out.String(), "Multi-turn: per turn") {
		t.Errorf("no per-turn table after the block:\n%s", b.out.String())
	}
}

// TestConversationDelayAndConcurrency: with one conversation slot the
// conversations run one after the other, whole; and a turn arrives no
// sooner than the previous turn's answer (TTFT + (tokens - 1) ITL on the
// simulator's timeline) plus the think time.
func TestConversationDelayAndConcurrency(t *testing.T) {
	t.Parallel()
	const ttft, itl, delay = 10 * time.Millisecond, 2 * time.Millisecond, 40 * time.Millisecond
	srv, log := startChatLog(t, ttft, itl)
	o := multiTurnOptions(srv.URL)
	o.SaveResult, o.SaveDetailed = false, false
	o.NumPrompts, o.MultiTurn.Turns.NumTurns = 3, 2
	o.MultiTurn.Concurrency, o.MultiTurn.DelayMS = 1, int(delay/time.Millisecond)
	var b buffers
	if _, err := Serve(context.Background(), o, b.env()); err != nil {
		t.Fatalf("%v\n%s", err, b.err.String())
	}
	var convs []string
	for _, id := range log.order {
		conv, _, _ := strings.Cut(id, "-turn")
		if len(convs) == 0 || convs[len(convs)-1] != conv {
			convs = append(convs, conv)
		}
	}
	if want := []string{"bench-test-conv-0", "bench-test-conv-1", "bench-test-conv-2"}; !cmp.Equal(convs, want) {
		t.Errorf("conversations interleaved with one slot: arrivals %v", log.order)
	}
	for c := range 3 {
		first, second := log.reqs[fmt.Sprintf("bench-test-conv-%d-turn0", c)], log.reqs[fmt.Sprintf("bench-test-conv-%d-turn1", c)]
		if gap, least := second.arrived.Sub(first.arrived), ttft+3*itl+delay; gap < least {
			t.Errorf("conversation %d: turn 1 arrived %v after turn 0, less than its answer and the think time (%v)", c, gap, least)
		}
	}
}

// TestConversationRefusesCompletions: --multi-turn needs the chat API.
func TestConversationRefusesCompletions(t *testing.T) {
	t.Parallel()
	o := multiTurnOptions("http://127.0.0.1:1")
	o.Backend = "openai"
	err := o.Validate()
	if err == nil || !strings.Contains(err.Error(), "--multi-turn needs --backend openai-chat") {
		t.Errorf("err = %v", err)
	}
}

// TestConversationInterrupt: the first interrupt sends no further turn;
// the turns in flight finish within the grace and the result, saved,
// holds what was measured with each request's conversation and turn.
func TestConversationInterrupt(t *testing.T) {
	t.Parallel()
	srv, stop, _ := interruptAt(t, "bench-test-conv-1-turn1", false)
	o := multiTurnOptions(srv.URL)
	o.ResultDir = t.TempDir()
	o.NumPrompts, o.Schedule.RequestRate = 40, 10
	var b buffers
	env := b.env()
	env.Stop = stop
	res, err := Serve(context.Background(), o, env)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v\n%s", err, b.err.String())
	}
	n := len(res.Metrics.Outputs)
	if n < 4 || n >= 120 {
		t.Fatalf("%d requests reported", n)
	}
	if res.Metrics.Failed != 0 {
		t.Errorf("%d failed: turns in flight should have finished within the grace: %v", res.Metrics.Failed, res.Metrics.Failures)
	}
	saved := readResult(t, res.File)
	if saved["end_reason"] != "interrupted" || len(saved["conversation_ids"].([]any)) != n || len(saved["turn_indices"].([]any)) != n {
		t.Errorf("end_reason %v, %d conversation ids and %d turn indices for %d requests", saved["end_reason"],
			len(saved["conversation_ids"].([]any)), len(saved["turn_indices"].([]any)), n)
	}
}

// TestConversationKeepsItsLoRA: LoRAs are assigned per conversation and
// every turn names its conversation's, so that the server's adapter and cache serve
// the whole session.
func TestConversationKeepsItsLoRA(t *testing.T) {
	t.Parallel()
	o := multiTurnOptions("http://127.0.0.1:1")
	o.DryRun, o.Model, o.Tokenizer = true, "m", tokenizer.BuiltinName
	o.SaveResult, o.SaveDetailed = false, false
	o.LoRAModules, o.LoRAAssignment = []string{"a", "b", "c"}, "round-robin"
	var b buffers
	p, err := NewPlan(context.Background(), o, b.env())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i, j := range p.jobs {
		if p.talks.turn[i] == 0 {
			got = append(got, j.req.Model)
		} else if first := p.jobs[p.talks.first[p.talks.conv[i]]].req.Model; j.req.Model != first {
			t.Errorf("%s names LoRA %s, its conversation's first turn %s", j.req.RequestID, j.req.Model, first)
		}
	}
	if want := []string{"a", "b", "c", "a"}; !cmp.Equal(got, want) {
		t.Errorf("conversations' LoRAs %v, want %v (round-robin over conversations)", got, want)
	}
}
