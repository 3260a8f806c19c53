package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ardanlabs/jinja"
)

// ErrNoChatTemplate is returned by ApplyChatTemplate when the tokenizer has
// no chat template, where transformers raises too ("Cannot use chat
// template functions because tokenizer.chat_template is not set").
var ErrNoChatTemplate = errors.New("the tokenizer has no chat template (no chat_template in tokenizer_config.json and no chat_template.jinja next to it)")

// chatTemplate is a compiled chat template and the variables transformers
// passes to it besides the messages: its special_tokens_map.
type chatTemplate struct {
	tmpl    *jinja.Template
	special map[string]any
}

var _ ChatTemplater = (*hfTokenizer)(nil)

// ApplyChatTemplate renders the chat template with the messages,
// add_generation_prompt, tools and documents set to None, and the special
// tokens (bos_token, eos_token, ...) as transformers passes them. The
// template runs with HF's Jinja settings (trim_blocks, lstrip_blocks,
// raise_exception, strftime_now, tojson), which github.com/ardanlabs/jinja
// implements, with the whitespace rules applied beforehand by
// jinjaWhitespace.
func (t *hfTokenizer) ApplyChatTemplate(messages []Message, addGenerationPrompt bool, kwargs map[string]any) (string, error) {
	if t.chat == nil {
		return "", fmt.Errorf("tokenizer %s: %w", t.name, ErrNoChatTemplate)
	}
	if err := CheckChatTemplateKwargs(kwargs); err != nil {
		return "", err
	}
	// Messages are dicts with Python's key order (role, then content), which
	// tojson and items() show.
	msgs := make([]jinja.Value, len(messages))
	for i, m := range messages {
		d := jinja.NewDict()
		d.AsDict().Set("role", jinja.NewString(m.Role))
		d.AsDict().Set("content", jinja.NewString(m.Content))
		msgs[i] = d
	}
	data := map[string]jinja.Value{
		"messages":              jinja.NewList(msgs),
		"add_generation_prompt": jinja.NewBool(addGenerationPrompt),
		"tools":                 jinja.None(),
		"documents":             jinja.None(),
	}
	for k, v := range t.chat.special {
		data[k] = jinja.FromGoValue(v)
	}
	// transformers: template_kwargs = {**special_tokens_map, **kwargs};
	// tools and documents given as kwargs bind to the call's parameters of
	// those names, so they replace the None above.
	for k, v := range kwargs {
		data[k] = jinja.FromGoValue(v)
	}
	out, err := t.chat.tmpl.RenderValues(data)
	if err != nil {
		return "", fmt.Errorf("tokenizer %s: chat template: %w", t.name, err)
	}
	return out, nil
}

// ErrReservedKwarg is returned for a chat template kwarg that names a
// parameter the call itself passes, where Python raises TypeError ("got
// multiple values for keyword argument").
var ErrReservedKwarg = errors.New("is set by the chat template call itself (apply_chat_template would raise TypeError)")

// reservedKwargs are apply_chat_template's parameters that vLLM's call
// passes itself (the conversation, add_generation_prompt, tokenize).
var reservedKwargs = []string{"conversation", "messages", "add_generation_prompt", "tokenize"}

// CheckChatTemplateKwargs refuses kwargs that apply_chat_template would
// refuse, so that a bad --chat-template-kwargs fails before a template is
// rendered.
func CheckChatTemplateKwargs(kwargs map[string]any) error {
	for _, k := range reservedKwargs {
		if _, ok := kwargs[k]; ok {
			return fmt.Errorf("chat template kwarg %q %w", k, ErrReservedKwarg)
		}
	}
	return nil
}

// chatTemplateSource picks the template from tokenizer_config.json's
// chat_template, which is a string or a list of {"name", "template"} (the
// one named "default" is what apply_chat_template uses). file names the
// source in errors; "" means there is none.
func chatTemplateSource(raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var list []struct {
		Name     string `json:"name"`
		Template string `json:"template"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return "", fmt.Errorf("want a string or a list of {\"name\", \"template\"}: %w", err)
	}
	for _, e := range list {
		if e.Name == "default" {
			return e.Template, nil
		}
	}
	// transformers raises when there are several and none is "default".
	if len(list) > 0 {
		return "", errors.New("several templates and none named \"default\"")
	}
	return "", nil
}

// newChatTemplate compiles src and collects the special tokens of the
// config (special_tokens_map: the ones that are set, as strings).
func newChatTemplate(src string, cfg *configJSON) (*chatTemplate, error) {
	src, err := jinjaWhitespace(src)
	if err != nil {
		return nil, err
	}
	tmpl, err := jinja.Compile(src)
	if err != nil {
		return nil, err
	}
	c := &chatTemplate{tmpl: tmpl, special: map[string]any{}}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
	}{
		{"bos_token", cfg.BOS}, {"eos_token", cfg.EOS}, {"unk_token", cfg.UNK}, {"sep_token", cfg.SEP},
		{"pad_token", cfg.PAD}, {"cls_token", cfg.CLS}, {"mask_token", cfg.Mask},
	} {
		if s, ok, _ := specialTokenText(f.raw); ok {
			c.special[f.name] = s
		}
	}
	if !isNull(cfg.Additional) {
		var list []json.RawMessage
		if json.Unmarshal(cfg.Additional, &list) == nil {
			names := make([]any, 0, len(list))
			for _, raw := range list {
				if s, ok, _ := specialTokenText(raw); ok {
					names = append(names, s)
				}
			}
			c.special["additional_special_tokens"] = names
		}
	}
	return c, nil
}
