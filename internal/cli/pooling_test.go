package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// poolingSimArgs is a small seeded run against the built-in simulator.
var poolingSimArgs = []string{"serve", "--sim", "--sim-ttft", "0.002", "--disable-tqdm", "--no-server-metrics",
	"--format", "json", "--seed", "3"}

// TestServePoolingBackends runs each pooling backend end to end through
// cli.Main against the simulator, on its default endpoint (/v1/embeddings,
// Infinity's /embeddings, /pooling, /rerank): every request completes and
// the input tokens are the server's usage.prompt_tokens, as vLLM's
// _run_pooling_request reads them. random-rerank's requests are a query and
// --random-batch-size documents; the random dataset's --random-batch-size
// sends lists of prompts.
func TestServePoolingBackends(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		args      []string
		completed float64
	}{
		{"openai-embeddings-clip", []string{"--backend", "openai-embeddings-clip", "--num-prompts", "4", "--random-input-len", "24"}, 4},
		{"openai-embeddings-vlm2vec", []string{"--backend", "openai-embeddings-vlm2vec", "--num-prompts", "4", "--random-input-len", "24"}, 4},
		{"infinity-embeddings", []string{"--backend", "infinity-embeddings", "--num-prompts", "4", "--random-input-len", "24"}, 4},
		{"infinity-embeddings-clip", []string{"--backend", "infinity-embeddings-clip", "--num-prompts", "4", "--random-input-len", "24",
			"--max-concurrency", "2"}, 4},
		{"vllm-pooling", []string{"--backend", "vllm-pooling", "--num-prompts", "4", "--random-input-len", "24"}, 4},
		{"vllm-rerank", []string{"--backend", "vllm-rerank", "--dataset-name", "random-rerank", "--num-prompts", "7",
			"--random-batch-size", "3", "--random-input-len", "40"}, 3},
		{"vllm-rerank --no-reranker", []string{"--backend", "vllm-rerank", "--dataset-name", "random-rerank", "--no-reranker",
			"--num-prompts", "7", "--random-batch-size", "3", "--random-input-len", "20"}, 3},
		{"openai-embeddings batched", []string{"--backend", "openai-embeddings", "--num-prompts", "10", "--random-batch-size", "4",
			"--random-input-len", "24"}, 3},
		{"infinity-embeddings batched", []string{"--backend", "infinity-embeddings", "--num-prompts", "5", "--random-batch-size", "2",
			"--random-input-len", "24"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := runMain(t, append(append([]string{}, poolingSimArgs...), tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(stdout), &got); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
			}
			if got["completed"] != tc.completed {
				t.Errorf("completed %v, want %v\n%s", got["completed"], tc.completed, stderr)
			}
			if in, _ := got["total_input_tokens"].(float64); in <= 0 {
				t.Errorf("total_input_tokens %v: the server's usage was not read", got["total_input_tokens"])
			}
			if _, ok := got["mean_e2el_ms"]; !ok || got["mean_ttft_ms"] != nil {
				t.Errorf("not vLLM's pooling result: %v", got)
			}
		})
	}
}

// TestServeRerankDryRun: --dry-run shows random-rerank's requests: one per
// batch of documents, no output tokens, the batch's number as id, and each
// request's length the query (and its separator) once per document plus
// the documents; the simulator counts a rerank request's tokens as the
// dataset does, so the run's input lengths are the dry run's.
func TestServeRerankDryRun(t *testing.T) {
	t.Parallel()
	args := []string{"--model", "gobench/sim", "--tokenizer", "gobench-builtin", "--backend", "vllm-rerank",
		"--dataset-name", "random-rerank", "--num-prompts", "5", "--random-batch-size", "2", "--random-input-len", "16",
		"--request-id-prefix", "r-"}
	stdout, stderr, code := runMain(t, append([]string{"serve", "--dry-run"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	reqs := dryRunRequests(t, stdout)
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3:\n%s", len(reqs), stdout)
	}
	var want []int
	for i, r := range reqs {
		if r.OutputLen != 0 || r.RequestID != "r-"+string(rune('0'+i)) || r.PromptLen < 10 {
			t.Errorf("request %d: %+v", i, r)
		}
		want = append(want, r.PromptLen)
	}
	stdout, stderr, code = runMain(t, append(append(append([]string{}, poolingSimArgs...), "--save-detailed"), args...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var got struct {
		InputLens []int `json:"input_lens"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	slices.Sort(want)
	slices.Sort(got.InputLens)
	if !slices.Equal(want, got.InputLens) {
		t.Errorf("the server counted %v, the dataset %v", got.InputLens, want)
	}
}

// TestServePoolingRefusals: what vLLM asserts on in the middle of a run is
// refused before it, with exit status 2 and the flags named: vllm-rerank
// needs a query and documents (random-rerank), --no-reranker takes the
// query out of every batch.
func TestServePoolingRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--backend", "vllm-rerank", "--num-prompts", "2"},
			"--backend vllm-rerank, request 0 of --dataset-name random: a rerank request needs a query and at least one document"},
		{[]string{"--backend", "vllm-rerank", "--dataset-name", "random-rerank", "--no-reranker", "--num-prompts", "4"},
			"--no-reranker: each batch's first prompt is its query, so --random-batch-size (1) and --num-prompts (4) must both be at least 2"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			args := append([]string{"serve", "--dry-run", "--model", "m", "--tokenizer", "gobench-builtin"}, tc.args...)
			_, stderr, code := runMain(t, args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q, want 2 and %q", code, stderr, tc.want)
			}
		})
	}
}

// TestServePromptTokenIDs: with --prompt-token-ids the completions
// requests carry the random dataset's token ids as their prompt (vLLM's
// Rust client) and the simulator counts exactly those: the server's
// prompt tokens equal the dataset's; chat is refused naming the flag.
func TestServePromptTokenIDs(t *testing.T) {
	t.Parallel()
	args := append(append([]string{}, poolingSimArgs...), "--backend", "vllm", "--num-prompts", "5", "--random-input-len", "40",
		"--random-output-len", "3", "--prompt-token-ids", "--save-detailed")
	stdout, stderr, code := runMain(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var got struct {
		Completed int   `json:"completed"`
		InputLens []int `json:"input_lens"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	if got.Completed != 5 || len(got.InputLens) != 5 {
		t.Fatalf("result %s", stdout)
	}
	for _, n := range got.InputLens {
		// 40 less the one special token the tokenizer adds: the ids are
		// sent as they are, so the server sees exactly that many.
		if n != 39 {
			t.Errorf("input lens %v, want 39 each", got.InputLens)
			break
		}
	}
	_, stderr, code = runMain(t, "serve", "--dry-run", "--model", "m", "--tokenizer", "gobench-builtin", "--prompt-token-ids",
		"--backend", "openai-chat", "--endpoint", "/v1/chat/completions")
	if code != 2 || !strings.Contains(stderr, "--prompt-token-ids: --backend openai-chat sends text") {
		t.Errorf("chat with --prompt-token-ids: exit %d, stderr %q", code, stderr)
	}
}
