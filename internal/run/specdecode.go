package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/serverapi"
	"github.com/gobench/gobench/internal/servermetrics"
)

// scrape is one read of the server's Prometheus metrics: the counters the
// run compares before and after.
type scrape struct {
	spec   *servermetrics.SpecDecode
	prefix *prefixCounters
	// text is the page as served (nil without one), for the server view;
	// at is when it was read, on the run's clock, and err why there is
	// none.
	text []byte
	at   float64
	err  error
}

// fetchMetrics scrapes /metrics as vLLM's fetch_spec_decode_metrics does,
// except that the scrape carries the run's headers (api's): any failure
// (non-2xx, transport error, timeout) means "no counters" rather than an
// error, because many servers have no /metrics at all.
func fetchMetrics(ctx context.Context, api *serverapi.Client, now func() float64, warn io.Writer) scrape {
	text, err := api.Metrics(ctx)
	at := now()
	if te := (*serverapi.TimeoutError)(nil); errors.As(err, &te) {
		// A server without /metrics is common and says so at once; one
		// that does not answer is worth a word.
		fmt.Fprintf(warn, "WARNING: %v: the server's counters (speculative decoding, prefix cache) are left out.\n", err)
	}
	if err != nil {
		return scrape{at: at, err: err}
	}
	spec, prefix := readCounters(text)
	return scrape{spec: spec, prefix: prefix, text: text, at: at}
}

// readCounters reads the counters the run compares off one page with
// servermetrics (the parser of the server view too); a page it cannot
// parse has none.
func readCounters(text []byte) (*servermetrics.SpecDecode, *prefixCounters) {
	page, err := servermetrics.Parse(text)
	if err != nil {
		return nil, nil
	}
	var prefix *prefixCounters
	if q, h, ok := page.PrefixCache(); ok {
		prefix = &prefixCounters{queries: q, hits: h}
	}
	return page.SpecDecode(), prefix
}

// specDecodeStats computes the acceptance figures from two scrapes, as
// vLLM's benchmark() does; nil unless both scrapes had counters and draft
// tokens were proposed in between.
func specDecodeStats(before, after *servermetrics.SpecDecode) *report.SpecDecode {
	if before == nil || after == nil {
		return nil
	}
	s := &report.SpecDecode{
		NumDrafts:      after.Drafts - before.Drafts,
		DraftTokens:    after.DraftTokens - before.DraftTokens,
		AcceptedTokens: after.Accepted - before.Accepted,
	}
	if s.NumDrafts > 0 {
		var pos []int
		seen := map[int]bool{}
		for p := range before.PerPosition {
			seen[p] = true
		}
		for p := range after.PerPosition {
			seen[p] = true
		}
		for p := range seen {
			pos = append(pos, p)
		}
		sort.Ints(pos)
		for _, p := range pos {
			b := before.PerPosition[p]
			a, ok := after.PerPosition[p]
			if !ok {
				a = b
			}
			s.PerPositionAcceptanceRates = append(s.PerPositionAcceptanceRates, float64(a-b)/float64(s.NumDrafts))
		}
	}
	if s.DraftTokens <= 0 {
		return nil // vLLM builds the stats only when drafts were proposed
	}
	s.AcceptanceRate = float64(s.AcceptedTokens) / float64(s.DraftTokens) * 100
	if s.NumDrafts > 0 {
		s.AcceptanceLength = 1 + float64(s.AcceptedTokens)/float64(s.NumDrafts)
	}
	return s
}

// prefixCounters are vLLM's prefix cache counters summed over engines.
type prefixCounters struct{ queries, hits float64 }

// warmPrefixCache returns a warning when a run hit the server's prefix
// cache far more than its prompts can explain: the cache was warm (the
// same --seed was run before), so TTFT is too good to be true. It is
// asked only of a dataset whose prompts are fresh tokens but for a
// shared prefix (dataset.Spec.SharedPrefix: the random dataset's
// --random-prefix-len), so the expected hit rate is at most
// shared/(shared+fresh); the warning fires 25 points above that (and at
// least at 50 %). Decreasing counters (a restarted server) never warn.
func warmPrefixCache(d dataset.Options, before, after *prefixCounters) string {
	shared, prompt, ok := sharedPrefix(d)
	if !ok || before == nil || after == nil {
		return ""
	}
	dq, dh := after.queries-before.queries, after.hits-before.hits
	if dq <= 0 || dh < 0 {
		return ""
	}
	rate := dh / dq
	expected := 0.0
	if shared > 0 {
		expected = float64(shared) / float64(shared+max(prompt-shared, 1))
	}
	if rate < max(0.5, expected+0.25) {
		return ""
	}
	return fmt.Sprintf("%.1f%% prefix cache hit rate during a %s-dataset run: the server's prefix cache was warm "+
		"(the same prompts were sent before, e.g. an earlier run with this --seed), so TTFT reads too low. "+
		"Give --reset-prefix-cache (vLLM serves it with VLLM_SERVER_DEV_MODE=1) or another --seed.", 100*rate, d.Name)
}
