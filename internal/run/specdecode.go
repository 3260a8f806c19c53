package run

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/report"
)

// specCounters are the vllm:spec_decode_* counters of one /metrics scrape.
type specCounters struct {
	drafts, draftTokens, accepted int
	perPos                        map[int]int
}

// fetchSpecDecode scrapes {base}/metrics as vLLM's fetch_spec_decode_metrics
// does: no custom headers, and any failure (non-200, transport error,
// timeout) means "no counters" rather than an error, because most servers
// have no spec decoding or no /metrics at all.
func fetchSpecDecode(ctx context.Context, hc *http.Client, baseURL string) *specCounters {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/metrics", nil)
	if err != nil {
		return nil
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	return parseSpecDecode(io.LimitReader(resp.Body, 64<<20))
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
