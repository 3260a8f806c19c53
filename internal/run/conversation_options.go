package run

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gobench/gobench/internal/dataset"
)

// MultiTurn are the options of multi-turn conversations (--multi-turn and
// the flags vLLM's Rust client names, rust/src/bench/src/cli.rs).
type MultiTurn struct {
	// Enabled is --multi-turn: the dataset makes conversations, sent turn
	// after turn, each with the history before it.
	Enabled bool
	// Concurrency is --multi-turn-concurrency: the most conversations
	// open at once; 0 means --max-concurrency (0 there: unlimited).
	Concurrency int
	// DelayMS is --multi-turn-delay-ms: the user's think time between an
	// answer and the next turn, in milliseconds.
	DelayMS int
	// Turns are the dataset's turn counts and per-turn input length.
	Turns dataset.MultiTurnOptions
}

// DefaultNumTurns is vLLM's Rust client's --multi-turn-num-turns.
const DefaultNumTurns = 3

// conversationLimit is the most conversations open at once: 0 is
// unlimited.
func (o *Options) conversationLimit() int {
	if o.MultiTurn.Concurrency > 0 {
		return o.MultiTurn.Concurrency
	}
	return o.MaxConcurrency
}

// validateMultiTurn checks the multi-turn flags: counts that make sense,
// a dataset that makes conversations, and the chat backend, the only one
// whose requests carry a history of messages. The completions backends
// are refused rather than given the history pasted into one prompt,
// which would measure another workload than a chat session.
func (o *Options) validateMultiTurn() error {
	m := &o.MultiTurn
	t := m.Turns
	switch {
	case m.Concurrency < 0:
		return fmt.Errorf("argument --multi-turn-concurrency: must be at least 1 (got %d)", m.Concurrency)
	case m.DelayMS < 0:
		return fmt.Errorf("argument --multi-turn-delay-ms: must not be negative (got %d)", m.DelayMS)
	case t.NumTurns < 1:
		return fmt.Errorf("argument --multi-turn-num-turns: must be at least 1 (got %d)", t.NumTurns)
	case t.MinTurns < 0 || t.MaxTurns < 0 || t.PerTurnInputLen < 0:
		return errors.New("arguments --multi-turn-min-turns, --multi-turn-max-turns and --per-turn-input-len must not be negative")
	case t.PerTurnInputLen > dataset.MaxTokens:
		return fmt.Errorf("argument --per-turn-input-len: at most %d tokens (got %d)", dataset.MaxTokens, t.PerTurnInputLen)
	}
	if !m.Enabled {
		return nil
	}
	spec, _ := dataset.Lookup(o.Dataset.Name) // validateLoad found it
	if lo, hi := t.TurnBounds(); spec != nil && spec.DrawsTurns {
		switch {
		case lo > hi:
			return fmt.Errorf("argument --multi-turn-min-turns: %d is more than --multi-turn-max-turns %d", lo, hi)
		case hi > dataset.MaxSamples/max(o.NumPrompts, 1): // every turn is built before the run
			return fmt.Errorf("argument --multi-turn-max-turns: %d conversations of up to %d turns are more than %d requests",
				o.NumPrompts, hi, dataset.MaxSamples)
		}
	}
	if o.Backend != "openai-chat" {
		return fmt.Errorf("--multi-turn needs --backend openai-chat (got %s): a conversation's history is sent as chat messages, which the completions API has no place for", o.Backend)
	}
	if spec == nil || spec.Conversations == nil {
		return fmt.Errorf("--multi-turn with --dataset-name %s: conversations come from %s (custom: a conversation trace)",
			o.Dataset.Name, strings.Join(dataset.MultiTurnDatasets(), ", "))
	}
	return nil
}
