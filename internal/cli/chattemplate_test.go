package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestChatTemplateKwargs: --chat-template-kwargs reach the custom
// dataset's chat template (a template that repeats a word n times makes
// prompts that grow with n); a kwarg the template call sets itself is a
// bad command line.
func TestChatTemplateKwargs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	basic, err := os.ReadFile(filepath.Join("..", "tokenizer", "testdata", "unit", "basic.json"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"tokenizer.json":        string(basic),
		"tokenizer_config.json": `{"chat_template": "{{ messages[0].content }}{% if n is defined %}{% for i in range(n) %} hello{% endfor %}{% endif %}"}`,
		"prompts.jsonl":         "{\"prompt\": \"hello world\"}\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	promptLen := func(extra ...string) int {
		t.Helper()
		args := append([]string{"serve", "--dry-run", "--model", "m", "--tokenizer", dir, "--dataset-name", "custom",
			"--dataset-path", filepath.Join(dir, "prompts.jsonl"), "--num-prompts", "1"}, extra...)
		stdout, stderr, code := runMain(t, args...)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
		return dryRunRequests(t, stdout)[0].PromptLen
	}
	base, three := promptLen(), promptLen("--chat-template-kwargs", `{"n": 3}`)
	if three <= base {
		t.Errorf("prompt_len %d with n=3, %d without: the kwarg did not reach the template", three, base)
	}
	_, stderr, code := runMain(t, "serve", "--dry-run", "--model", "m", "--chat-template-kwargs", `{"tokenize": true}`)
	if code != 2 || !strings.Contains(stderr, "argument --chat-template-kwargs") {
		t.Errorf("exit %d, stderr %q; want 2 naming the flag", code, stderr)
	}
}
