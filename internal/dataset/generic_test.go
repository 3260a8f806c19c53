package dataset

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestApplyLengths pins vLLM's mapping of --input-len and --output-len
// (serve.py@11dfa3169 main_async): --input-len sets the random and sonnet
// input lengths, --output-len the output length of every dataset that
// has one, whichever dataset runs.
func TestApplyLengths(t *testing.T) {
	t.Parallel()
	in, out := 77, 9
	tests := []struct {
		name          string
		input, output *int
		want          func(*Options)
	}{
		{"neither", nil, nil, func(*Options) {}},
		{"input", &in, nil, func(o *Options) { o.RandomInputLen, o.SonnetInputLen = in, in }},
		{"output", nil, &out, func(o *Options) {
			o.RandomOutputLen, o.SonnetOutputLen, o.CustomOutputLen = out, out, out
			o.PrefixRepetitionOutputLen, o.SpecBenchOutputLen = out, out
			o.SharegptOutputLen, o.HFOutputLen = &out, &out
		}},
	}
	for _, tt := range tests {
		for _, name := range []string{"random", "sharegpt"} {
			got, want := DefaultOptions(), DefaultOptions()
			got.Name, want.Name = name, name
			ApplyLengths(&got, tt.input, tt.output)
			tt.want(&want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s, --dataset-name %s (-want +got):\n%s", tt.name, name, diff)
			}
		}
	}
}

// TestParseFlagTexts: --random-range-ratio is parsed for every dataset,
// and a malformed text is refused only by the datasets that read it.
func TestParseFlagTexts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		dataset, text string
		want          RangeRatio
		err           string
	}{
		{"random", "0.25", RangeRatio{0.25, 0.25}, ""},
		{"random-rerank", `{"input": 0.3, "output": 0.5}`, RangeRatio{0.3, 0.5}, ""},
		{"random", `{"input": 0.1}`, RangeRatio{}, "argument --random-range-ratio: When range_ratio is a dict it must contain 'input' and 'output' keys, got: ['input']"},
		{"random", "abc", RangeRatio{}, `--random-range-ratio: invalid value "abc": expected a number or a JSON object like {"input": 0.3, "output": 0.5}`},
		{"random-rerank", `{"input": "x", "output": 0}`, RangeRatio{}, `--random-range-ratio: "input" must be a number, got x`},
		{"sharegpt", "abc", RangeRatio{}, ""},
		{"sharegpt", "0.5", RangeRatio{0.5, 0.5}, ""},
	}
	for _, tt := range tests {
		o := DefaultOptions()
		o.Name = tt.dataset
		err := ParseFlagTexts(&o, map[string]string{"random-range-ratio": tt.text})
		if got := errText(err); got != tt.err {
			t.Errorf("%s %q: error %q, want %q", tt.dataset, tt.text, got, tt.err)
		}
		if err == nil && o.RandomRangeRatio != tt.want {
			t.Errorf("%s %q: %+v, want %+v", tt.dataset, tt.text, o.RandomRangeRatio, tt.want)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
