package dataset

import (
	"fmt"
	"slices"
	"strings"
)

// ApplyLengths is vLLM's mapping of --input-len and --output-len (nil when
// not given) onto the datasets' own flags (serve.py@11dfa3169
// main_async): every Spec's InputLen and OutputLen flag is set, whichever
// dataset runs, as vLLM sets them all.
func ApplyLengths(o *Options, input, output *int) {
	for i := range specs {
		setLength(o, specs[i].InputLen, input)
		setLength(o, specs[i].OutputLen, output)
	}
}

// setLength sets the int or optional int field of flag to *v.
func setLength(o *Options, flag string, v *int) {
	if flag == "" || v == nil {
		return
	}
	f, _ := LookupFlag(flag) // TestSpecs: every InputLen and OutputLen is a Flag
	switch p := f.Field(o).(type) {
	case *int:
		*p = *v
	case **int:
		x := *v
		*p = &x
	}
}

// ParseFlagTexts reads the texts of the flags a dataset parses itself
// (Flag.Parse), by flag name, into o, once the dataset is known: vLLM
// parses them inside the datasets that read them, so a malformed text is
// an error only when the run's dataset lists the flag.
func ParseFlagTexts(o *Options, texts map[string]string) error {
	spec, _ := Lookup(o.Name)
	for i := range flags {
		f := &flags[i]
		text, ok := texts[f.Name]
		if f.Parse == nil || !ok {
			continue
		}
		if err := f.Parse(o, text); err != nil && spec != nil && slices.Contains(spec.Flags, f.Name) {
			return err
		}
	}
	return nil
}

// parseRangeRatioFlag is --random-range-ratio's Flag.Parse; a malformed
// text leaves the zero ratio.
func parseRangeRatioFlag(o *Options, text string) error {
	rr, err := ParseRangeRatio(text)
	o.RandomRangeRatio = rr
	if err != nil && !strings.HasPrefix(err.Error(), "--random-range-ratio") {
		return fmt.Errorf("argument --random-range-ratio: %w", err)
	}
	return err
}

// randomSharedPrefix is the random dataset's Spec.SharedPrefix: every
// prompt opens with the same --random-prefix-len tokens, then
// --random-input-len fresh ones.
func randomSharedPrefix(o Options) (shared, prompt int) {
	return o.RandomPrefixLen, o.RandomPrefixLen + o.RandomInputLen
}
