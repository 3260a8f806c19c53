package dataset

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/google/go-cmp/cmp"
)

// goldenConversation is a conversation as the generator script writes it.
type goldenConversation struct {
	ID    string `json:"id"`
	Turns []struct {
		Prompt    string `json:"prompt"`
		PromptLen int    `json:"prompt_len"`
		OutputLen int    `json:"output_len"`
	} `json:"turns"`
}

func toGoldenConversations(convs []Conversation) []goldenConversation {
	out := make([]goldenConversation, len(convs))
	for i, c := range convs {
		out[i].ID = c.ID
		for _, t := range c.Turns {
			out[i].Turns = append(out[i].Turns, struct {
				Prompt    string `json:"prompt"`
				PromptLen int    `json:"prompt_len"`
				OutputLen int    `json:"output_len"`
			}{t.Prompt, t.PromptLen, t.OutputLen})
		}
	}
	return out
}

// TestSyntheticConversationsMatchVLLM: the random dataset's conversations
// are vLLM's random prompts (first turns with --seed, later turns with
// --seed + 1) in the turn counts NumPy draws, as
// tools/gen-dataset-vectors/gen_multiturn_vectors.py builds them with
// vLLM's code.
func TestSyntheticConversationsMatchVLLM(t *testing.T) {
	t.Parallel()
	var cases []struct {
		Seed          int64 `json:"seed"`
		NumPrompts    int   `json:"num_prompts"`
		MinTurns      int   `json:"min_turns"`
		MaxTurns      int   `json:"max_turns"`
		InputLen      int   `json:"input_len"`
		PerTurn       int   `json:"per_turn_input_len"`
		PrefixLen     int   `json:"prefix_len"`
		OutputLen     int   `json:"output_len"`
		Conversations []goldenConversation
	}
	readJSON(t, "multiturn_random_golden.json", &cases)
	for _, c := range cases {
		opts := Options{Name: "random", NumPrompts: c.NumPrompts, Seed: c.Seed, RequestIDPrefix: "mt-",
			RandomInputLen: c.InputLen, RandomOutputLen: c.OutputLen, RandomPrefixLen: c.PrefixLen, RandomBatchSize: 1}
		mt := MultiTurnOptions{NumTurns: 3, MinTurns: c.MinTurns, MaxTurns: c.MaxTurns, PerTurnInputLen: c.PerTurn}
		got, err := Conversations(opts, mt, newFake(), nil, io.Discard)
		if err != nil {
			t.Fatalf("seed %d: %v", c.Seed, err)
		}
		if diff := cmp.Diff(c.Conversations, toGoldenConversations(got)); diff != "" {
			t.Errorf("seed %d (-generator +gobench):\n%s", c.Seed, diff)
		}
	}
}

// TestShareGPTConversationsMatchGenerator: every turn of the ShareGPT
// conversations, shuffled as vLLM shuffles ShareGPT.
func TestShareGPTConversationsMatchGenerator(t *testing.T) {
	t.Parallel()
	var cases []struct {
		Seed          int64 `json:"seed"`
		NumPrompts    int   `json:"num_prompts"`
		MaxTurns      int   `json:"max_turns"`
		OutputLen     *int  `json:"output_len"`
		Conversations []goldenConversation
	}
	readJSON(t, "multiturn_sharegpt_golden.json", &cases)
	for _, c := range cases {
		opts := Options{Name: "sharegpt", Path: filepath.Join("testdata", "sharegpt_multiturn30.json"), NumPrompts: c.NumPrompts,
			Seed: c.Seed, RequestIDPrefix: "s-", SharegptOutputLen: c.OutputLen}
		got, err := Conversations(opts, MultiTurnOptions{NumTurns: 3, MaxTurns: c.MaxTurns}, newFake(), nil, io.Discard)
		if err != nil {
			t.Fatalf("seed %d: %v", c.Seed, err)
		}
		if diff := cmp.Diff(c.Conversations, toGoldenConversations(got)); diff != "" {
			t.Errorf("seed %d (-generator +gobench):\n%s", c.Seed, diff)
		}
	}
}

// TestTraceConversations: a trace's lines become conversations ordered by
// their first turn, turns by time, times relative to the first; errors
// name the file and the line.
func TestTraceConversations(t *testing.T) {
	t.Parallel()
	trace := `{"conversation_id": "b", "timestamp": 12.5, "prompt": "the cat", "output_tokens": 4}
{"conversation_id": "a", "timestamp": 10, "prompt": "abc", "output_tokens": 2}

{"conversation_id": 7, "timestamp": 11, "prompt": "on mat", "output_tokens": 3}
{"conversation_id": "a", "timestamp": 10.25, "prompt": "cab", "output_tokens": 5}
{"conversation_id": "b", "timestamp": 12, "prompt": "sat", "output_tokens": 1}
`
	got, err := parseTrace(strings.NewReader(trace), "trace.jsonl", Options{CustomOutputLen: -1}, newFake())
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		ID     string
		Prompt string
		Out    int
		At     float64
	}
	var rows []row
	for _, c := range got {
		for _, tn := range c.Turns {
			rows = append(rows, row{c.ID, tn.Prompt, tn.OutputLen, *tn.Timestamp})
		}
	}
	want := []row{{"a", "abc", 2, 0}, {"a", "cab", 5, 0.25}, {"7", "on mat", 3, 1}, {"b", "sat", 1, 2}, {"b", "the cat", 4, 2.5}}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("conversations (-want +got):\n%s", diff)
	}
	if got[0].Turns[0].PromptLen != len(newFake().Encode("abc", false)) {
		t.Errorf("prompt_len %d", got[0].Turns[0].PromptLen)
	}
	for _, c := range []struct{ name, trace, want string }{
		{"mixed timestamps", `{"conversation_id": "a", "timestamp": 1, "prompt": "x", "output_tokens": 1}` + "\n" +
			`{"conversation_id": "a", "prompt": "y", "output_tokens": 1}`,
			`trace.jsonl:2: "timestamp" must be on every line or on none`},
		{"no prompt", `{"conversation_id": "a"}`, `trace.jsonl:1: the line has no "prompt"`},
		{"bad id", `{"conversation_id": [1], "prompt": "x"}`, `trace.jsonl:1: "conversation_id" must be a string or a number`},
		{"no output_tokens", `{"conversation_id": "a", "prompt": "x"}`, `trace.jsonl:1: --custom-output-len -1 reads "output_tokens"`},
		{"empty", "\n\n", "trace.jsonl: no turn in the conversation trace"},
	} {
		_, err := parseTrace(strings.NewReader(c.trace), "trace.jsonl", Options{CustomOutputLen: -1}, newFake())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

// TestConversationsRefuseOtherDatasets: only random, sharegpt and custom
// make conversations.
func TestConversationsRefuseOtherDatasets(t *testing.T) {
	t.Parallel()
	opts := DefaultOptions()
	opts.Name, opts.NumPrompts = "sonnet", 2
	_, err := Conversations(opts, MultiTurnOptions{NumTurns: 2}, newFake(), nil, io.Discard)
	var ue *exitcode.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "multi-turn conversations come from") {
		t.Errorf("err = %v", err)
	}
}
