package run

import (
	"fmt"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/schedule"
)

// conversations are the planned conversations of a --multi-turn run. The
// plan's jobs hold one request per turn, conversation after
// conversation; a turn's body is built again when it is sent, with the
// history the run has by then.
type conversations struct {
	list []dataset.Conversation
	// first[c] is the index in jobs of conversation c's first turn.
	first []int
	// conv and turn name each job's conversation and turn index.
	conv, turn []int
	// offsets[c] is conversation c's arrival, in seconds from the start.
	offsets []float64
	// traced: the conversations come from a trace with timestamps, which
	// time the arrivals and the turns.
	traced bool
}

// planConversations builds a --multi-turn plan: the conversations, a
// request per turn (with its conversation's LoRA: one drawn per
// conversation, round-robin or random.choice, and kept by every turn so
// that the server's adapter and cache serve the session, as vLLM's Rust
// client assigns them), and the conversations' arrivals on vLLM's
// schedule (--request-rate over conversations), or the trace's times.
func (p *Plan) planConversations(env Env) error {
	o := &p.Options
	d := o.Dataset
	d.NumPrompts, d.Seed, d.RequestIDPrefix, d.Backend = o.NumPrompts, o.Seed, o.RequestIDPrefix, o.Backend
	p.global = dataset.NewGlobals(o.Seed)
	list, err := dataset.Conversations(d, o.MultiTurn.Turns, p.Tokenizer, p.global, env.Stderr)
	if err != nil {
		return err
	}
	if err := checkTokenizer(p.Tokenizer, "--dataset-name "+d.Name); err != nil {
		return err
	}
	t := &conversations{list: list, first: make([]int, len(list)), offsets: make([]float64, len(list))}
	var samples []dataset.Sample
	for c, conv := range list {
		t.first[c] = len(samples)
		for k, turn := range conv.Turns {
			samples = append(samples, dataset.Sample{Prompt: turn.Prompt, PromptLen: turn.PromptLen,
				ExpectedOutputLen: turn.OutputLen, RequestID: fmt.Sprintf("%s-turn%d", conv.ID, k)})
			t.conv, t.turn = append(t.conv, c), append(t.turn, k)
		}
	}
	loras := o.LoRAModules
	o.LoRAModules = nil // requests would draw a LoRA per request; a conversation draws one
	p.requests(samples)
	o.LoRAModules = loras
	for i := range p.jobs {
		// One session header for every turn, which routers use to keep a
		// conversation on the replica that caches it (vLLM's Rust client
		// sends it); a --header X-Session-ID wins.
		req := p.jobs[i].req
		req.ExtraHeaders = append([]backend.Header{{Key: "X-Session-ID", Value: list[t.conv[i]].ID}}, req.ExtraHeaders...)
	}
	if picks := pickLoRAs(*o, len(list), p.global.Random); picks != nil {
		for i := range p.jobs {
			req := p.jobs[i].req
			req.Model, req.ModelName = picks[t.conv[i]], picks[t.conv[i]]
		}
	}
	p.talks = t
	fmt.Fprintf(p.out, "Multi-turn: %d conversations, %d turns.\n", len(list), len(samples))
	return p.scheduleConversations()
}

// scheduleConversations draws the conversations' arrivals as vLLM draws
// requests' (schedule.Offsets over the conversations), or takes each
// conversation's first time in the trace. Every turn's planned offset is
// its conversation's arrival; the run records when each later turn was
// due.
func (p *Plan) scheduleConversations() error {
	t := p.talks
	if ts := t.list[0].Turns[0].Timestamp; ts != nil {
		t.traced = true
		for c, conv := range t.list {
			t.offsets[c] = *conv.Turns[0].Timestamp
			p.Arrivals = append(p.Arrivals, schedule.Arrival{Offset: t.offsets[c]})
		}
	} else {
		if err := p.Options.checkSpan(len(t.list)); err != nil {
			return exitcode.Usage(err)
		}
		params := p.Options.Schedule
		params.NumRequests = len(t.list)
		arrivals, err := schedule.Offsets(params, p.scheduleRNG())
		if err != nil {
			return err
		}
		p.Arrivals = arrivals
		for c, a := range arrivals {
			t.offsets[c] = a.Offset
		}
	}
	p.Offsets = make([]float64, len(p.jobs))
	for i := range p.jobs {
		p.Offsets[i] = t.offsets[t.conv[i]]
	}
	return nil
}

// annotate adds job i's conversation and turn index to its --dry-run
// line; nothing without conversations.
func (t *conversations) annotate(o *pyjson.Object, i int) {
	if t == nil {
		return
	}
	o.Set("conversation", t.conv[i])
	o.Set("turn", t.turn[i])
}
