package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/golden"
)

// prefixRepArgs ask for 7 prompts over 3 prefixes: vLLM makes
// 3 × (7 // 3) = 6 requests, each of 8 prefix and 4 suffix tokens.
var prefixRepArgs = []string{"--dataset-name", "prefix_repetition", "--num-prompts", "7",
	"--prefix-repetition-num-prefixes", "3", "--prefix-repetition-prefix-len", "8",
	"--prefix-repetition-suffix-len", "4", "--output-len", "5", "--seed", "11"}

// TestPrefixRepetitionAgainstSim runs the prefix_repetition dataset end to
// end against the simulator: six requests sent and answered, out of the
// seven asked for.
func TestPrefixRepetitionAgainstSim(t *testing.T) {
	t.Parallel()
	args := append([]string{"serve", "--sim", "--sim-ttft", "0.005", "--sim-itl", "0.001", "--disable-tqdm", "--format", "json"}, prefixRepArgs...)
	stdout, stderr, code := runMain(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
	}
	if got["completed"] != 6.0 || got["num_prompts"] != 7.0 || got["failed"] != 0.0 {
		t.Errorf("completed %v, failed %v, num_prompts %v; want 6, 0, 7", got["completed"], got["failed"], got["num_prompts"])
	}
}

// TestPrefixRepetitionDryRun: --dry-run shows the dataset's requests (no
// request ids, as in vLLM; --output-len reaches the dataset) and the
// arrival offsets, whose gamma draws continue NumPy's global generator
// where the dataset left it.
func TestPrefixRepetitionDryRun(t *testing.T) {
	t.Parallel()
	args := append([]string{"serve", "--dry-run", "--model", "m", "--tokenizer", "gobench-builtin", "--request-rate", "10"}, prefixRepArgs...)
	stdout, stderr, code := runMain(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	reqs := dryRunRequests(t, stdout)
	if len(reqs) != 6 {
		t.Fatalf("%d requests, want 6:\n%s", len(reqs), stdout)
	}
	for _, r := range reqs {
		// 12 tokens, or 13 where the real tokenizer re-encodes a prefix
		// longer than vLLM's 10 fix-ups can cure.
		if r.PromptLen < 12 || r.PromptLen > 13 || r.OutputLen != 5 || r.RequestID != "" {
			t.Errorf("request %+v: want 12 or 13 prompt tokens, 5 output tokens, no request id", r)
		}
	}
	golden.Check(t, []byte(stdout))
}

// dryRunRequest is one line of --dry-run's output.
type dryRunRequest struct {
	PromptLen int    `json:"prompt_len"`
	OutputLen int    `json:"output_len"`
	RequestID string `json:"request_id"`
}

// dryRunRequests reads --dry-run's output, a JSON object per request.
func dryRunRequests(t *testing.T, stdout string) []dryRunRequest {
	t.Helper()
	var out []dryRunRequest
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var r dryRunRequest
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("dry-run line %q: %v", l, err)
		}
		out = append(out, r)
	}
	return out
}
