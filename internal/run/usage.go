package run

import (
	"fmt"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/tokenizer"
)

// usageChecks bounds how many requests the usage check tokenizes, so that
// it costs a fraction of a second even after a run of 100,000 requests.
const usageChecks = 1000

// usageDisagrees reports whether a server's completion_tokens and the
// token count of the streamed text disagree by more than re-encoding text
// explains: more than 2 tokens and more than 10 %.
func usageDisagrees(usage, counted int) bool {
	d := usage - counted
	if d < 0 {
		d = -d
	}
	return d > 2 && d*10 > usage
}

// usageWarning compares the completion_tokens a server reported with the
// token count of the text it streamed, on at most usageChecks successful
// requests spread over the run. Like vLLM, gobench takes the server's
// number for output lengths, TPOT and throughputs; when they disagree on
// some requests (a server that miscounts, or a tokenizer that is not the
// model's), the warning says on how many.
func usageWarning(outputs []metrics.Output, tok tokenizer.Tokenizer) string {
	if tok == nil {
		return ""
	}
	var ok []int
	for i := range outputs {
		if outputs[i].Success && outputs[i].OutputTokens > 0 {
			ok = append(ok, i)
		}
	}
	step := max(1, (len(ok)+usageChecks-1)/usageChecks)
	checked, bad := 0, 0
	for j := 0; j < len(ok); j += step {
		o := &outputs[ok[j]]
		checked++
		if usageDisagrees(o.OutputTokens, len(tok.Encode(o.GeneratedText, false))) {
			bad++
		}
	}
	if bad == 0 {
		return ""
	}
	return fmt.Sprintf("on %d of %d requests checked, the server's usage.completion_tokens differs by more than 10%% "+
		"from the token count of the text it streamed (tokenizer %s): output token counts, TPOT and the throughputs "+
		"use the server's numbers, as vLLM does; check the server, or that the tokenizer is the model's.",
		bad, checked, tok.Name())
}
