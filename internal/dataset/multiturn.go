package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/jsonlist"
	"github.com/gobench/gobench/internal/numpyrand"
	"github.com/gobench/gobench/internal/tokenizer"
)

// Turn is one user turn of a conversation: the user's message, which the
// run sends after the history of the turns before it and their answers.
type Turn struct {
	// Prompt is the user's message.
	Prompt string
	// PromptLen is the message's own length in tokens (the history is
	// counted when the turn is sent).
	PromptLen int
	// OutputLen is the number of tokens to ask for.
	OutputLen int
	// Timestamp, when not nil, is the turn's time in a conversation trace,
	// in seconds from the trace's first turn.
	Timestamp *float64
}

// Conversation is one chat session: its turns are sent one after the
// other, each after the answer to the one before.
type Conversation struct {
	// ID names the conversation ({--request-id-prefix}conv-{index}, or the
	// trace's conversation_id); turn k's request id is ID + "-turn" + k,
	// as vLLM's Rust client names them (rust/src/bench/src/multi_turn.rs).
	ID string
	// Turns are the user turns, in order.
	Turns []Turn
}

// MultiTurnOptions are the flags of multi-turn conversations, named as
// vLLM's Rust client names them (rust/src/bench/src/cli.rs
// --multi-turn-*, --per-turn-input-len).
type MultiTurnOptions struct {
	// NumTurns is the number of turns of a synthetic conversation when
	// MinTurns and MaxTurns are 0.
	NumTurns int
	// MinTurns and MaxTurns bound a synthetic conversation's turns (each
	// 0 means NumTurns); MaxTurns caps a ShareGPT conversation (0: all).
	MinTurns, MaxTurns int
	// PerTurnInputLen is the input length of synthetic turns after the
	// first; 0 means --random-input-len.
	PerTurnInputLen int
}

// TurnBounds returns the least and most turns of a synthetic
// conversation: MinTurns and MaxTurns, each NumTurns when 0.
func (m MultiTurnOptions) TurnBounds() (lo, hi int) {
	lo, hi = m.MinTurns, m.MaxTurns
	if lo <= 0 {
		lo = m.NumTurns
	}
	if hi <= 0 {
		hi = m.NumTurns
	}
	return lo, hi
}

// MultiTurnDatasets lists the datasets that make conversations (a
// Spec.Conversations), in the table's order.
func MultiTurnDatasets() []string {
	var names []string
	for _, s := range specs {
		if s.Conversations != nil {
			names = append(names, s.Name)
		}
	}
	return names
}

// Conversations builds --num-prompts conversations with the dataset's
// Spec.Conversations (see MultiTurnDatasets). tok is nil with
// --skip-tokenizer-init (custom traces only).
func Conversations(opts Options, mt MultiTurnOptions, tok tokenizer.Tokenizer, g *Globals, warn io.Writer) ([]Conversation, error) {
	spec, g, warn, err := prepare(opts, tok, g, warn)
	if err != nil {
		return nil, err
	}
	if spec.Conversations == nil {
		return nil, exitcode.Usagef("--multi-turn with --dataset-name %s: multi-turn conversations come from the %s datasets", opts.Name, strings.Join(MultiTurnDatasets(), ", "))
	}
	return spec.Conversations(opts, mt, tok, g, warn)
}

// syntheticConversations draws each conversation's number of turns with
// NumPy's default_rng(seed).integers(lo, hi + 1, size=n), then builds the
// first turns as vLLM's random dataset with --seed (n prompts,
// --random-input-len, --random-prefix-len) and the later turns as vLLM's
// random dataset with --seed + 1 (one prompt per later turn,
// --per-turn-input-len, no prefix), in conversation order. So each turn's
// text is vLLM's own random prompt, and the shared prefix opens every
// conversation once, as in vLLM's Rust client.
func syntheticConversations(opts Options, mt MultiTurnOptions, tok tokenizer.Tokenizer, _ *Globals, warn io.Writer) ([]Conversation, error) {
	lo, hi := mt.TurnBounds()
	n := opts.NumPrompts
	if opts.Seed < 0 {
		return nil, fmt.Errorf("--seed %d: the random dataset needs a non-negative seed (NumPy's default_rng rejects negative seeds)", opts.Seed)
	}
	counts := numpyrand.NewGenerator(uint64(opts.Seed)).IntegersN(int64(lo), int64(hi)+1, n)
	first, err := Random(opts, tok, nil, warn)
	if err != nil {
		return nil, err
	}
	later := 0
	for _, c := range counts {
		later += int(c) - 1
	}
	var rest []Sample
	if later > 0 {
		o := opts
		o.NumPrompts, o.Seed, o.RandomPrefixLen = later, opts.Seed+1, 0
		if mt.PerTurnInputLen > 0 {
			o.RandomInputLen = mt.PerTurnInputLen
		}
		if rest, err = Random(o, tok, nil, warn); err != nil {
			return nil, fmt.Errorf("--per-turn-input-len: %w", err)
		}
	}
	convs := make([]Conversation, n)
	for i := range convs {
		turns := []Turn{sampleTurn(first[i])}
		for range int(counts[i]) - 1 {
			turns = append(turns, sampleTurn(rest[0]))
			rest = rest[1:]
		}
		convs[i] = Conversation{ID: opts.RequestIDPrefix + "conv-" + strconv.Itoa(i), Turns: turns}
	}
	return convs, nil
}

func sampleTurn(s Sample) Turn {
	return Turn{Prompt: s.Prompt, PromptLen: s.PromptLen, OutputLen: s.ExpectedOutputLen}
}

// shareGPTMessage is one message of a ShareGPT conversation.
type shareGPTMessage struct {
	From  string `json:"from"`
	Value string `json:"value"`
}

// shareGPTConversations takes every turn of ShareGPT conversations, as
// vLLM's Rust client does (rust/src/bench/src/datasets/multi_turn.rs
// load_sharegpt_multi_turn): entries with at least four messages, shuffled
// as vLLM's sharegpt dataset shuffles them (random.seed(seed),
// random.shuffle, unless --disable-shuffle); each "human" message followed
// by an answer is a turn, whose output length is the answer's tokens (at
// least 1) or --sharegpt-output-len; --multi-turn-max-turns caps the turns;
// conversations of fewer than two turns are left out. No oversampling: a
// file with fewer conversations gives fewer.
func shareGPTConversations(opts Options, mt MultiTurnOptions, tok tokenizer.Tokenizer, g *Globals, _ io.Writer) ([]Conversation, error) {
	if opts.Path == "" {
		return nil, errors.New("--dataset-name sharegpt needs --dataset-path to a ShareGPT JSON file")
	}
	entries, err := readShareGPTMessages(opts.Path)
	if err != nil {
		return nil, err
	}
	shuffle(entries, opts, g.Random)
	var convs []Conversation
	for _, msgs := range entries {
		if len(convs) >= opts.NumPrompts {
			break
		}
		var turns []Turn
		for i := 0; i+1 < len(msgs) && (mt.MaxTurns <= 0 || len(turns) < mt.MaxTurns); {
			if msgs[i].From != "human" || msgs[i].Value == "" {
				i++
				continue
			}
			out := max(len(tok.Encode(msgs[i+1].Value, false)), 1)
			if opts.SharegptOutputLen != nil {
				out = *opts.SharegptOutputLen
			}
			turns = append(turns, Turn{Prompt: msgs[i].Value, PromptLen: len(tok.Encode(msgs[i].Value, false)), OutputLen: out})
			i += 2
		}
		if len(turns) >= 2 {
			convs = append(convs, Conversation{ID: opts.RequestIDPrefix + "conv-" + strconv.Itoa(len(convs)), Turns: turns})
		}
	}
	if len(convs) == 0 {
		return nil, fmt.Errorf("%s: no ShareGPT conversation with at least two human turns that have an answer", opts.Path)
	}
	return convs, nil
}

// readShareGPTMessages reads the message lists of the entries with at
// least four messages (two turns and their answers), in file order.
func readShareGPTMessages(path string) ([][]shareGPTMessage, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--dataset-path: %w", err)
	}
	defer f.Close()
	name := "--dataset-path " + path
	l := jsonlist.New(f, name, maxValueBytes)
	if err := l.Open("not a ShareGPT JSON file (a JSON list of conversations)"); err != nil {
		return nil, err
	}
	var out [][]shareGPTMessage
	for i := 0; ; i++ {
		v, ok, err := l.Element(i == 0)
		switch {
		case errors.Is(err, errValueTooLarge):
			return nil, fmt.Errorf("%s:%d: conversation %d is larger than the bound, which no conversation is", name, v.Line, i)
		case err != nil:
			return nil, err
		case !ok:
			return out, nil
		}
		if v.Data[0] != '{' {
			continue
		}
		var c struct {
			Conversations []shareGPTMessage `json:"conversations"`
		}
		if err := json.Unmarshal(v.Data, &c); err != nil {
			return nil, l.ValueError(v, i, err)
		}
		if len(c.Conversations) >= 4 {
			out = append(out, c.Conversations)
		}
	}
}

// traceTurn is one line of a conversation trace.
type traceTurn struct {
	ConversationID json.RawMessage `json:"conversation_id"`
	Timestamp      *float64        `json:"timestamp"`
	Prompt         *string         `json:"prompt"`
	OutputTokens   *int            `json:"output_tokens"`
}

// traceConversations reads a conversation trace: JSON Lines, one user
// turn a line, {"conversation_id": "a", "timestamp": 0.5, "prompt": "...",
// "output_tokens": 64}. A conversation's turns are its lines in timestamp
// order (file order without timestamps); conversations are ordered by
// their first turn. Timestamps (seconds) are on every line or on none:
// with them a conversation starts at its first turn's time from the
// trace's first, and a later turn is sent at its time or after the answer
// before it, whichever is later. output_tokens is read with
// --custom-output-len -1, else --custom-output-len is every turn's.
// --num-prompts takes the first conversations (0 or less: all).
func traceConversations(opts Options, _ MultiTurnOptions, tok tokenizer.Tokenizer, _ *Globals, _ io.Writer) ([]Conversation, error) {
	f, err := os.Open(opts.Path)
	if err != nil {
		return nil, fmt.Errorf("--dataset-path: %w", err)
	}
	defer f.Close()
	return parseTrace(f, "--dataset-path "+opts.Path, opts, tok)
}

// parseTrace parses a conversation trace from in; name names it in
// messages, with the line.
func parseTrace(in io.Reader, name string, opts Options, tok tokenizer.Tokenizer) ([]Conversation, error) {
	r := bufio.NewReaderSize(in, 64<<10)
	index := map[string]int{}
	var convs []Conversation
	timed := -1 // unknown, then 0 or 1
	for line := 1; ; line++ {
		b, rerr := readLine(r, maxValueBytes)
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return nil, fmt.Errorf("%s:%d: %w", name, line, rerr)
		}
		t, err := traceLine(b, name, line, opts, tok)
		if err != nil {
			return nil, err
		}
		if t != nil {
			has := b2i(t.turn.Timestamp != nil)
			if timed >= 0 && has != timed {
				return nil, fmt.Errorf("%s:%d: \"timestamp\" must be on every line or on none", name, line)
			}
			timed = has
			i, ok := index[t.id]
			if !ok {
				i = len(convs)
				index[t.id] = i
				convs = append(convs, Conversation{ID: t.id})
			}
			convs[i].Turns = append(convs[i].Turns, t.turn)
		}
		if rerr != nil {
			break
		}
	}
	if len(convs) == 0 {
		return nil, fmt.Errorf("%s: no turn in the conversation trace", name)
	}
	if timed == 1 {
		sortByTime(convs)
	}
	if opts.NumPrompts > 0 && opts.NumPrompts < len(convs) {
		convs = convs[:opts.NumPrompts]
	}
	return convs, nil
}

// tracedTurn is one parsed line of a trace.
type tracedTurn struct {
	id   string
	turn Turn
}

// traceLine parses one line; nil for a blank one.
func traceLine(b []byte, name string, line int, opts Options, tok tokenizer.Tokenizer) (*tracedTurn, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	var t traceTurn
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("%s:%d: not a conversation trace line (a JSON object): %v", name, line, err)
	}
	var id string
	if json.Unmarshal(t.ConversationID, &id) != nil {
		var n json.Number
		if json.Unmarshal(t.ConversationID, &n) != nil {
			return nil, fmt.Errorf("%s:%d: \"conversation_id\" must be a string or a number", name, line)
		}
		id = n.String()
	}
	if t.Prompt == nil {
		return nil, fmt.Errorf("%s:%d: the line has no \"prompt\" (a string)", name, line)
	}
	out := opts.CustomOutputLen
	if out == -1 {
		if t.OutputTokens == nil || *t.OutputTokens < 1 {
			return nil, fmt.Errorf("%s:%d: --custom-output-len -1 reads \"output_tokens\", a positive integer", name, line)
		}
		out = *t.OutputTokens
	}
	turn := Turn{Prompt: *t.Prompt, OutputLen: out, Timestamp: t.Timestamp}
	if tok != nil {
		turn.PromptLen = len(tok.Encode(*t.Prompt, false))
	}
	return &tracedTurn{id: id, turn: turn}, nil
}

// sortByTime orders each conversation's turns by timestamp, then the
// conversations by their first turn, and makes the times relative to the
// earliest (both sorts are stable: equal times keep the file's order).
func sortByTime(convs []Conversation) {
	for _, c := range convs {
		slices.SortStableFunc(c.Turns, func(a, b Turn) int { return cmpFloat(*a.Timestamp, *b.Timestamp) })
	}
	slices.SortStableFunc(convs, func(a, b Conversation) int { return cmpFloat(*a.Turns[0].Timestamp, *b.Turns[0].Timestamp) })
	t0 := *convs[0].Turns[0].Timestamp
	for _, c := range convs {
		for i := range c.Turns {
			rel := *c.Turns[i].Timestamp - t0
			c.Turns[i].Timestamp = &rel
		}
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
