package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/golden"
)

// chatTokenizerDir is the built-in tokenizer with a chat template, which
// the sonnet dataset needs.
func chatTokenizerDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "tokenizer", "builtin", "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	template := "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}\n{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"
	for name, content := range map[string][]byte{"tokenizer.json": data, "chat_template.jinja": []byte(template)} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestSonnetAgainstSim runs the sonnet dataset, from the built-in poem, end
// to end against the simulator with a completions and a chat backend.
func TestSonnetAgainstSim(t *testing.T) {
	t.Parallel()
	dir := chatTokenizerDir(t)
	for _, backend := range []string{"openai", "openai-chat"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := runMain(t, "serve", "--sim", "--sim-ttft", "0.005", "--sim-itl", "0.001", "--disable-tqdm",
				"--format", "json", "--backend", backend, "--tokenizer", dir, "--dataset-name", "sonnet", "--num-prompts", "5",
				"--sonnet-input-len", "200", "--sonnet-prefix-len", "100", "--sonnet-output-len", "6")
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(stdout), &got); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
			}
			if got["completed"] != 5.0 || got["failed"] != 0.0 {
				t.Errorf("completed %v, failed %v; want 5, 0", got["completed"], got["failed"])
			}
		})
	}
}

// TestSonnetDryRun: --dry-run shows the sonnet requests, their lengths
// within --input-len (which reaches --sonnet-input-len, as in vLLM) and
// --output-len, with ids; and the sonnet dataset without a chat template
// is vLLM's refusal, a usage error.
func TestSonnetDryRun(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := runMain(t, "serve", "--dry-run", "--model", "m", "--tokenizer", chatTokenizerDir(t),
		"--dataset-name", "sonnet", "--num-prompts", "4", "--input-len", "150", "--sonnet-prefix-len", "60",
		"--output-len", "7", "--request-id-prefix", "s-", "--seed", "3", "--request-rate", "5")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	reqs := dryRunRequests(t, stdout)
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4:\n%s", len(reqs), stdout)
	}
	for i, r := range reqs {
		if r.PromptLen > 150 || r.OutputLen != 7 || r.RequestID != "s-"+itoa(i) {
			t.Errorf("request %+v: want at most 150 prompt tokens, 7 output tokens, id s-%d", r, i)
		}
	}
	golden.Check(t, []byte(stdout))

	_, stderr, code = runMain(t, "serve", "--dry-run", "--model", "m", "--tokenizer", "gobench-builtin", "--dataset-name", "sonnet")
	if code != 2 || !strings.Contains(stderr, "Tokenizer/model must have chat template for sonnet dataset.") {
		t.Errorf("without a chat template: exit %d\n%s", code, stderr)
	}
}
