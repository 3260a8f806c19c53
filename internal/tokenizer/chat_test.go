package tokenizer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chatGolden is testdata/golden/chat.json, written by
// tools/tokenizer-golden/chat_golden.py with Jinja2 in transformers'
// chat-template environment.
type chatGolden struct {
	Cases []struct {
		Name                string            `json:"name"`
		Tokenizer           string            `json:"tokenizer"`
		TemplateSHA256      string            `json:"template_sha256"`
		Template            string            `json:"template"`
		Special             map[string]string `json:"special"`
		Messages            []Message         `json:"messages"`
		AddGenerationPrompt bool              `json:"add_generation_prompt"`
		Output              *string           `json:"output"`
		Error               string            `json:"error"`
	} `json:"cases"`
}

func TestChatTemplateGolden(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "golden", "chat.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g chatGolden
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	loaded := map[string]*hfTokenizer{}
	matched := 0
	for _, c := range g.Cases {
		var tok *hfTokenizer
		if c.Tokenizer != "" {
			if tok = loaded[c.Tokenizer]; tok == nil {
				l, err := Load(hfDir(t, c.Tokenizer))
				if err != nil {
					t.Fatal(err)
				}
				tok = l.(*hfTokenizer)
				loaded[c.Tokenizer] = tok
				var cfg configJSON
				raw, _ := os.ReadFile(filepath.Join(hfDir(t, c.Tokenizer), "tokenizer_config.json"))
				if err := json.Unmarshal(raw, &cfg); err != nil {
					t.Fatal(err)
				}
				src, _ := chatTemplateSource(cfg.ChatTemplate)
				if sum := sha256.Sum256([]byte(src)); hex.EncodeToString(sum[:]) != c.TemplateSHA256 {
					t.Fatalf("%s: the chat template is not the one the golden file was made from", c.Tokenizer)
				}
			}
		} else {
			cfg := &configJSON{}
			for k, v := range c.Special {
				b, _ := json.Marshal(v)
				switch k {
				case "bos_token":
					cfg.BOS = b
				case "eos_token":
					cfg.EOS = b
				}
			}
			ct, err := newChatTemplate(c.Template, cfg)
			if err != nil {
				t.Fatalf("%s: compile: %v", c.Name, err)
			}
			tok = &hfTokenizer{name: "inline", chat: ct}
		}
		got, err := tok.ApplyChatTemplate(c.Messages, c.AddGenerationPrompt, nil)
		switch {
		case c.Output == nil && (err == nil || !strings.Contains(err.Error(), c.Error)):
			t.Errorf("%s/%s: got %q, %v; want the error %q", c.Tokenizer, c.Name, got, err, c.Error)
		case c.Output != nil && (err != nil || got != *c.Output):
			t.Errorf("%s/%s:\n got %q, %v\nwant %q", c.Tokenizer, c.Name, got, err, *c.Output)
		default:
			matched++
		}
	}
	t.Logf("chat templates: %d/%d cases match Jinja2 with transformers' settings", matched, len(g.Cases))
}

func TestChatTemplateSources(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", "unit", "basic.json"))
	if err != nil {
		t.Fatal(err)
	}
	writeJSON(t, dir, "tokenizer.json", string(data))
	render := func() (string, error) {
		tok, err := Load(dir)
		if err != nil {
			return "", err
		}
		return tok.(ChatTemplater).ApplyChatTemplate([]Message{{Role: "user", Content: "hi"}}, true, nil)
	}
	// No template: transformers raises, and so does ApplyChatTemplate.
	if _, err := render(); !errors.Is(err, ErrNoChatTemplate) {
		t.Errorf("without a template: %v, want ErrNoChatTemplate", err)
	}
	// The list form picks "default".
	writeJSON(t, dir, "tokenizer_config.json", `{"bos_token": "<s>", "chat_template": [{"name": "tool_use", "template": "T"}, {"name": "default", "template": "{{ bos_token }}{{ messages[0].content }}"}]}`)
	if got, err := render(); err != nil || got != "<s>hi" {
		t.Errorf("list form: %q, %v", got, err)
	}
	// chat_template.jinja wins over the config.
	writeJSON(t, dir, "chat_template.jinja", "J:{{ messages[0].content }}{% if add_generation_prompt %}>{% endif %}")
	if got, err := render(); err != nil || got != "J:hi>" {
		t.Errorf("chat_template.jinja: %q, %v", got, err)
	}
	// A template that does not compile names its file.
	writeJSON(t, dir, "chat_template.jinja", "{% if %}")
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "chat_template.jinja") {
		t.Errorf("bad template: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "chat_template.jinja")); err != nil {
		t.Fatal(err)
	}
	writeJSON(t, dir, "tokenizer_config.json", `{"chat_template": [{"name": "a", "template": "T"}]}`)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "default") {
		t.Errorf("list without default: %v", err)
	}
}

// FuzzJinjaWhitespace checks the whitespace pre-pass on arbitrary sources:
// it never panics, and a source without tags renders to itself (after
// Jinja2's newline normalisation and dropped trailing newline).
func FuzzJinjaWhitespace(f *testing.F) {
	for _, s := range []string{"", "a\n", "{{ x }}\n{% if y %}\n  z{% endif %}", "{%- raw -%}{{{% endraw %}", "{# c #}", "\"\\", "{{ 'a}}' }}", "{% if", "x\r\ny\rz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		out, err := jinjaWhitespace(src)
		if err != nil || strings.Contains(src, "{") {
			return
		}
		ct, err := newChatTemplate(src, &configJSON{})
		if err != nil {
			t.Fatalf("plain text %q: %v (pre-pass gave %q)", src, err, out)
		}
		got, err := (&hfTokenizer{chat: ct}).ApplyChatTemplate(nil, false, nil)
		want := strings.TrimSuffix(strings.ReplaceAll(strings.ReplaceAll(src, "\r\n", "\n"), "\r", "\n"), "\n")
		if err != nil || got != want {
			t.Fatalf("plain text %q rendered %q, %v", src, got, err)
		}
	})
}

// TestChatTemplateKwargs: --chat-template-kwargs reach the template as
// variables, as transformers' apply_chat_template(**kwargs) passes them:
// Qwen3's template closes the thinking block when enable_thinking is
// false; kwargs win over the special tokens and bind tools; the call's own
// parameters are refused, where Python raises TypeError.
func TestChatTemplateKwargs(t *testing.T) {
	t.Parallel()
	tok, err := Load(hfDir(t, "qwen3"))
	if err != nil {
		t.Fatal(err)
	}
	ct := tok.(ChatTemplater)
	msgs := []Message{{Role: "user", Content: "hi"}}
	plain, err := ct.ApplyChatTemplate(msgs, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	off, err := ct.ApplyChatTemplate(msgs, true, map[string]any{"enable_thinking": false})
	if err != nil {
		t.Fatal(err)
	}
	if want := "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"; plain != want || off != want+"<think>\n\n</think>\n\n" {
		t.Errorf("without kwargs %q, with enable_thinking false %q", plain, off)
	}
	inline, err := newChatTemplate("{{ bos_token }}|{{ tools[0] }}", &configJSON{BOS: []byte(`"<s>"`)})
	if err != nil {
		t.Fatal(err)
	}
	it := &hfTokenizer{name: "inline", chat: inline}
	got, err := it.ApplyChatTemplate(nil, false, map[string]any{"bos_token": "B", "tools": []any{"t"}})
	if err != nil || got != "B|t" {
		t.Errorf("got %q, %v; want \"B|t\"", got, err)
	}
	for _, k := range []string{"add_generation_prompt", "tokenize", "messages", "conversation"} {
		if _, err := it.ApplyChatTemplate(nil, false, map[string]any{k: true}); !errors.Is(err, ErrReservedKwarg) {
			t.Errorf("kwarg %s: error %v, want ErrReservedKwarg", k, err)
		}
	}
}
