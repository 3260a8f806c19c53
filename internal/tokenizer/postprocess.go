package tokenizer

import (
	"encoding/json"
	"fmt"
)

// template is a single-sequence post-processor: the ids it puts before and
// after the encoded text. TemplateProcessing, RobertaProcessing and
// BertProcessing all reduce to this for one sequence; ByteLevel adds nothing.
type template struct {
	before, after []int
}

// wrap applies the templates in order, as a Sequence post-processor does.
func wrap(templates []template, ids []int) []int {
	for _, t := range templates {
		if len(t.before) == 0 && len(t.after) == 0 {
			continue
		}
		out := make([]int, 0, len(t.before)+len(ids)+len(t.after))
		out = append(out, t.before...)
		out = append(out, ids...)
		ids = append(out, t.after...)
	}
	return ids
}

// numAdded is HF's PostProcessor::added_tokens(false).
func numAdded(templates []template) int {
	n := 0
	for _, t := range templates {
		n += len(t.before) + len(t.after)
	}
	return n
}

// buildPostProcessor reads tokenizer.json's "post_processor".
func buildPostProcessor(raw json.RawMessage, field string) ([]template, error) {
	if isNull(raw) {
		return nil, nil
	}
	var t typedJSON
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fieldError(field, err)
	}
	switch t.Type {
	case "ByteLevel":
		return nil, nil
	case "Sequence":
		var seq sequenceJSON
		if err := json.Unmarshal(raw, &seq); err != nil {
			return nil, fieldError(field, err)
		}
		var out []template
		for i, r := range seq.Processors {
			sub, err := buildPostProcessor(r, fmt.Sprintf("%s.processors[%d]", field, i))
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
		return out, nil
	case "RobertaProcessing", "BertProcessing":
		var v struct {
			Sep [2]json.RawMessage `json:"sep"`
			Cls [2]json.RawMessage `json:"cls"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fieldError(field, err)
		}
		var sep, cls int
		if err := json.Unmarshal(v.Sep[1], &sep); err != nil {
			return nil, fieldError(field+".sep", err)
		}
		if err := json.Unmarshal(v.Cls[1], &cls); err != nil {
			return nil, fieldError(field+".cls", err)
		}
		return []template{{before: []int{cls}, after: []int{sep}}}, nil
	case "TemplateProcessing":
		tp, err := buildTemplate(raw, field)
		if err != nil {
			return nil, err
		}
		return []template{tp}, nil
	default:
		return nil, unsupportedf(field, "post-processor %q", t.Type)
	}
}

// buildTemplate reads a TemplateProcessing "single" template. A template
// with several $A pieces would repeat the text; no tokenizer does that, so
// it is refused rather than guessed.
func buildTemplate(raw json.RawMessage, field string) (template, error) {
	var v struct {
		Single []struct {
			Sequence *struct {
				ID string `json:"id"`
			} `json:"Sequence"`
			SpecialToken *struct {
				ID string `json:"id"`
			} `json:"SpecialToken"`
		} `json:"single"`
		SpecialTokens map[string]struct {
			IDs []int `json:"ids"`
		} `json:"special_tokens"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return template{}, fieldError(field, err)
	}
	var t template
	seen := false
	for i, p := range v.Single {
		switch {
		case p.Sequence != nil:
			if seen || p.Sequence.ID != "A" {
				return template{}, unsupportedf(fmt.Sprintf("%s.single[%d]", field, i), "template with sequence %q", p.Sequence.ID)
			}
			seen = true
		case p.SpecialToken != nil:
			st, ok := v.SpecialTokens[p.SpecialToken.ID]
			if !ok {
				return template{}, fieldError(fmt.Sprintf("%s.single[%d]", field, i),
					fmt.Errorf("special token %q is not in special_tokens", p.SpecialToken.ID))
			}
			if seen {
				t.after = append(t.after, st.IDs...)
			} else {
				t.before = append(t.before, st.IDs...)
			}
		default:
			return template{}, fieldError(fmt.Sprintf("%s.single[%d]", field, i), fmt.Errorf("want a Sequence or a SpecialToken piece"))
		}
	}
	if !seen {
		return template{}, fieldError(field+".single", fmt.Errorf("template has no $A sequence"))
	}
	return t, nil
}
