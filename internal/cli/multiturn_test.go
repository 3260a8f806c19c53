package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/golden"
)

// multiTurnArgs are a small synthetic multi-turn run: 4 conversations of 2
// to 4 turns.
var multiTurnArgs = []string{"--backend", "openai-chat", "--multi-turn", "--num-prompts", "4",
	"--multi-turn-min-turns", "2", "--multi-turn-max-turns", "4", "--random-input-len", "16",
	"--per-turn-input-len", "8", "--random-output-len", "4", "--seed", "5"}

// serveJSON runs `gobench serve args... --format json` and returns the
// result object it prints.
func serveJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	stdout, stderr, code := runMain(t, append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	return got
}

// TestMultiTurnRandomAgainstSim runs synthetic conversations end to end
// against the simulator: every turn answered, vLLM's figures over all
// turns as requests, the per-turn figures, and each request's
// conversation and turn in the detailed result.
func TestMultiTurnRandomAgainstSim(t *testing.T) {
	t.Parallel()
	args := append([]string{"serve", "--sim", "--sim-ttft", "0.005", "--sim-itl", "0.001", "--disable-tqdm",
		"--request-rate", "50", "--multi-turn-concurrency", "2", "--multi-turn-delay-ms", "5",
		"--save-detailed"}, multiTurnArgs...)
	got := serveJSON(t, args...)
	ids, turns := got["conversation_ids"].([]any), got["turn_indices"].([]any)
	if got["failed"] != 0.0 || got["completed"] != float64(len(ids)) || len(turns) != len(ids) || len(ids) < 8 {
		t.Fatalf("completed %v, failed %v, %d conversation ids, %d turn indices", got["completed"], got["failed"], len(ids), len(turns))
	}
	mt := got["multi_turn"].(map[string]any)
	if mt["conversations"] != 4.0 || mt["completed_conversations"] != 4.0 {
		t.Errorf("multi_turn %v: want 4 conversations, all completed", mt)
	}
	rows := mt["per_turn"].([]any)
	first, second := rows[0].(map[string]any), rows[1].(map[string]any)
	if first["requests"] != 4.0 || second["requests"] != 4.0 {
		t.Errorf("per_turn rows 0 and 1: %v, %v; want 4 requests each", first, second)
	}
	// The second turn carries the first turn, its answer and its own text.
	if first["mean_input_len"].(float64) >= second["mean_input_len"].(float64) {
		t.Errorf("turn 1's mean input %v is not above turn 0's %v: no history", second["mean_input_len"], first["mean_input_len"])
	}
}

// TestMultiTurnShareGPTAgainstSim: ShareGPT conversations, every human
// turn sent after the answer to the one before.
func TestMultiTurnShareGPTAgainstSim(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "dataset", "testdata", "sharegpt_multiturn30.json")
	got := serveJSON(t, "serve", "--sim", "--sim-ttft", "0.005", "--sim-itl", "0.001", "--disable-tqdm",
		"--backend", "openai-chat", "--multi-turn", "--dataset-name", "sharegpt", "--dataset-path", path,
		"--num-prompts", "5", "--sharegpt-output-len", "3")
	mt := got["multi_turn"].(map[string]any)
	if mt["conversations"] != 5.0 || mt["completed_conversations"] != 5.0 || got["failed"] != 0.0 || got["completed"].(float64) < 10 {
		t.Errorf("multi_turn %v, completed %v, failed %v", mt, got["completed"], got["failed"])
	}
}

// TestMultiTurnTraceAgainstSim: a conversation trace (JSON Lines with
// timestamps) with a long conversation: 30 turns of 64-token answers, the
// last sent with a history of 59 messages.
func TestMultiTurnTraceAgainstSim(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	for k := range 30 {
		fmt.Fprintf(&b, `{"conversation_id": "long", "timestamp": %g, "prompt": "turn %d: the cat sat on the mat", "output_tokens": 64}`+"\n", 0.001*float64(k), k)
	}
	fmt.Fprintln(&b, `{"conversation_id": "short", "timestamp": 0.02, "prompt": "hello", "output_tokens": 4}`)
	trace := filepath.Join(dir, "trace.jsonl")
	if err := os.WriteFile(trace, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	got := serveJSON(t, "serve", "--sim", "--sim-ttft", "0.002", "--sim-itl", "0.0002", "--sim-max-model-len", "100000",
		"--disable-tqdm", "--save-detailed", "--backend", "openai-chat", "--multi-turn",
		"--dataset-name", "custom", "--dataset-path", trace, "--custom-output-len", "-1", "--skip-chat-template")
	if got["completed"] != 31.0 || got["failed"] != 0.0 {
		t.Fatalf("completed %v, failed %v, errors %v", got["completed"], got["failed"], got["errors"])
	}
	if rows := got["multi_turn"].(map[string]any)["per_turn"].([]any); len(rows) != 30 {
		t.Errorf("%d turn rows, want 30", len(rows))
	}
	// The last turn's input holds every earlier answer of its conversation.
	ids, turns := got["conversation_ids"].([]any), got["turn_indices"].([]any)
	inputs, outputs := got["input_lens"].([]any), got["output_lens"].([]any)
	answers, last := 0.0, 0.0
	for i := range ids {
		switch {
		case ids[i] != "long":
		case turns[i] == 29.0:
			last = inputs[i].(float64)
		default:
			answers += outputs[i].(float64)
		}
	}
	if answers < 29 || last <= answers {
		t.Errorf("the last turn's input is %v tokens, not above the %v tokens of the 29 answers before it", last, answers)
	}
}

// TestMultiTurnDryRun: --dry-run shows every turn of each conversation,
// with its conversation and turn index; the same seed gives the same
// conversations.
func TestMultiTurnDryRun(t *testing.T) {
	t.Parallel()
	args := append([]string{"serve", "--dry-run", "--model", "m", "--tokenizer", "gobench-builtin", "--request-rate", "2",
		"--request-id-prefix", "dry-"}, multiTurnArgs...)
	stdout, stderr, code := runMain(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, `"request_id": "dry-conv-0-turn1", "conversation": 0, "turn": 1}`) {
		t.Errorf("no second turn of conversation 0:\n%s", stdout)
	}
	golden.Check(t, []byte(stdout))
}

// TestMultiTurnRefused: a backend without chat messages and a dataset
// without conversations are command-line mistakes (exit status 2).
func TestMultiTurnRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--backend", "openai"}, "--multi-turn needs --backend openai-chat"},
		{[]string{"--backend", "openai-chat", "--dataset-name", "sonnet"}, "--multi-turn with --dataset-name sonnet"},
		{[]string{"--backend", "openai-chat", "--multi-turn-min-turns", "5", "--multi-turn-max-turns", "2"}, "--multi-turn-min-turns: 5 is more than"},
		{[]string{"--backend", "openai-chat", "--multi-turn-num-turns", "0"}, "--multi-turn-num-turns: must be at least 1"},
		{[]string{"--backend", "openai-chat", "--multi-turn-num-turns", "60000000"}, "2 conversations of up to 60000000 turns are more than"},
		{[]string{"--backend", "openai-chat", "--multi-turn-delay-ms", "-1"}, "--multi-turn-delay-ms: must not be negative"},
	} {
		args := append([]string{"serve", "--dry-run", "--model", "m", "--tokenizer", "gobench-builtin", "--multi-turn", "--num-prompts", "2"}, c.args...)
		_, stderr, code := runMain(t, args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
