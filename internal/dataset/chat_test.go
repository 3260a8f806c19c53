package dataset

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/tokenizer"
)

// chatTokenizer loads a small real tokenizer with the given chat template
// (none when template is "").
func chatTokenizer(t *testing.T, template string) tokenizer.Tokenizer {
	t.Helper()
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "tokenizer", "testdata", "unit", "basic.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if template != "" {
		if err := os.WriteFile(filepath.Join(dir, "chat_template.jinja"), []byte(template), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tok, err := tokenizer.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestCustomAppliesTheChatTemplate(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "p.jsonl")
	if err := os.WriteFile(path, []byte("{\"prompt\": \"hello world\"}\n{\"prompt\": \"second\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := Options{Name: "custom", Path: path, NumPrompts: 2, DisableShuffle: true, CustomOutputLen: 5}
	tests := []struct {
		name     string
		template string
		skip     bool
		want     []string // prompts
		err      string
	}{
		{"template", "<s>{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}{% if add_generation_prompt %}[assistant]{% endif %}", false,
			[]string{"<s>[user] hello world\n[assistant]", "<s>[user] second\n[assistant]"}, ""},
		{"skipped", "<s>{{ messages[0].content }}", true, []string{"hello world", "second"}, ""},
		{"no template", "", false, nil, "the tokenizer has no chat template to apply"},
		{"template raises", "{{ raise_exception('only system prompts') }}", false, nil, "p.jsonl:1: tokenizer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tok := chatTokenizer(t, tc.template)
			o := opts
			o.SkipChatTemplate = tc.skip
			samples, err := Load(o, tok, nil, io.Discard)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				if tc.template == "" && !errors.Is(err, ErrChatTemplate) {
					t.Errorf("err = %v, want ErrChatTemplate", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range samples {
				if s.Prompt != tc.want[i] {
					t.Errorf("prompt %d = %q, want %q", i, s.Prompt, tc.want[i])
				}
				// vLLM: len(tokenizer(prompt).input_ids) of the formatted prompt.
				if n := len(tok.Encode(tc.want[i], true)); s.PromptLen != n {
					t.Errorf("prompt_len %d = %d, want %d", i, s.PromptLen, n)
				}
			}
		})
	}
}
