package run

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/serverapi"
)

// specCounters are the vllm:spec_decode_* counters of one /metrics scrape.
type specCounters struct {
	drafts, draftTokens, accepted int
	perPos                        map[int]int
}

// scrape is one read of the server's Prometheus metrics: the counters the
// run compares before and after.
type scrape struct {
	spec   *specCounters
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
	return scrape{spec: parseSpecDecode(bytes.NewReader(text)), prefix: parsePrefixCache(bytes.NewReader(text)), text: text, at: at}
}

// parseSpecDecode reads the Prometheus text format the way vLLM does: lines
// starting with "vllm:spec_decode" whose name ends in _total, value
// int(float(...)), summed across label sets, matched by substring in the
// order num_drafts, num_draft_tokens, num_accepted_tokens_per_pos (by its
// position label), num_accepted_tokens. No matching line gives nil.
func parseSpecDecode(r io.Reader) *specCounters {
	c := &specCounters{perPos: map[int]int{}}
	found := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || !strings.HasPrefix(line, "vllm:spec_decode") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 {
			continue // a trailing timestamp makes float() fail in vLLM too
		}
		name := fields[0]
		if i := strings.IndexByte(name, '{'); i >= 0 {
			name = name[:i]
		}
		if !strings.HasSuffix(name, "_total") {
			continue
		}
		f, err := strconv.ParseFloat(fields[1], 64)
		if err != nil {
			continue
		}
		v := int(f)
		switch {
		case strings.Contains(name, "num_drafts"):
			c.drafts += v
		case strings.Contains(name, "num_draft_tokens"):
			c.draftTokens += v
		case strings.Contains(name, "num_accepted_tokens_per_pos"):
			pos := label(fields[0], "position")
			p, err := strconv.Atoi(pos)
			if err != nil {
				continue
			}
			c.perPos[p] += v
		case strings.Contains(name, "num_accepted_tokens"):
			c.accepted += v
		default:
			continue
		}
		found = true
	}
	if !found {
		return nil
	}
	return c
}

// label returns the value of label key in a sample name like
// `m{a="1",position="2"}`.
func label(series, key string) string {
	i := strings.Index(series, key+`="`)
	if i < 0 {
		return ""
	}
	rest := series[i+len(key)+2:]
	if j := strings.IndexByte(rest, '"'); j >= 0 {
		return rest[:j]
	}
	return ""
}

// specDecodeStats computes the acceptance figures from two scrapes, as
// vLLM's benchmark() does; nil unless both scrapes had counters and draft
// tokens were proposed in between.
func specDecodeStats(before, after *specCounters) *report.SpecDecode {
	if before == nil || after == nil {
		return nil
	}
	s := &report.SpecDecode{
		NumDrafts:      after.drafts - before.drafts,
		DraftTokens:    after.draftTokens - before.draftTokens,
		AcceptedTokens: after.accepted - before.accepted,
	}
	if s.NumDrafts > 0 {
		var pos []int
		seen := map[int]bool{}
		for p := range before.perPos {
			seen[p] = true
		}
		for p := range after.perPos {
			seen[p] = true
		}
		for p := range seen {
			pos = append(pos, p)
		}
		sort.Ints(pos)
		for _, p := range pos {
			b := before.perPos[p]
			a, ok := after.perPos[p]
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

// parsePrefixCache sums vllm:prefix_cache_queries_total and
// vllm:prefix_cache_hits_total over engines (not the external_ ones); nil
// unless both are present (later upstream _parse_prefix_cache_counters,
// test_serve_warm_prefix_cache.py@5634106f).
func parsePrefixCache(r io.Reader) *prefixCounters {
	var c prefixCounters
	var hasQ, hasH bool
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		name := fields[0]
		if i := strings.IndexByte(name, '{'); i >= 0 {
			name = name[:i]
		}
		v, err := strconv.ParseFloat(fields[1], 64)
		if err != nil {
			continue
		}
		switch name {
		case "vllm:prefix_cache_queries_total":
			c.queries, hasQ = c.queries+v, true
		case "vllm:prefix_cache_hits_total":
			c.hits, hasH = c.hits+v, true
		}
	}
	if !hasQ || !hasH {
		return nil
	}
	return &c
}

// warmPrefixCache returns a warning when a random-dataset run hit the
// server's prefix cache far more than its prompts can explain: the cache
// was warm (the same --seed was run before), so TTFT is too good to be true
// (vllm #52884). A random prompt shares only its --random-prefix-len tokens
// with the others, so the expected hit rate is at most prefix/(prefix+input);
// the warning fires 25 points above that (and at least at 50 %). Decreasing
// counters (a restarted server) never warn.
func warmPrefixCache(dataset string, prefixLen, inputLen int, before, after *prefixCounters) string {
	if dataset != "random" || before == nil || after == nil {
		return ""
	}
	dq, dh := after.queries-before.queries, after.hits-before.hits
	if dq <= 0 || dh < 0 {
		return ""
	}
	rate := dh / dq
	expected := 0.0
	if prefixLen > 0 {
		expected = float64(prefixLen) / float64(prefixLen+max(inputLen, 1))
	}
	if rate < max(0.5, expected+0.25) {
		return ""
	}
	return fmt.Sprintf("%.1f%% prefix cache hit rate during a random-dataset run: the server's prefix cache was warm "+
		"(the same prompts were sent before, e.g. an earlier run with this --seed), so TTFT reads too low. "+
		"Reset the cache (POST /reset_prefix_cache on vLLM) or use another --seed.", 100*rate)
}
