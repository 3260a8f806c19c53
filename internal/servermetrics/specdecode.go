package servermetrics

import "strconv"

// SpecDecode are vLLM's speculative-decoding counters on one page, read as
// vLLM's benchmark client reads them (serve.py@11dfa3169
// fetch_spec_decode_metrics): each sample truncated to an integer
// (int(float(value))), then summed over its label sets; a sample with a
// timestamp of its own left out (the client's float() fails on it).
type SpecDecode struct {
	// Drafts counts drafts (SpecDrafts).
	Drafts int
	// DraftTokens counts draft tokens proposed (SpecDraftTokens).
	DraftTokens int
	// Accepted counts draft tokens accepted (SpecAcceptedTokens).
	Accepted int
	// PerPosition counts accepted tokens by their position in the draft
	// (SpecAcceptedPerPos; a sample whose position label is not an
	// integer is left out).
	PerPosition map[int]int
}

// SpecDecode returns the speculative-decoding counters of s, nil when it
// has no sample of them (a server without speculative decoding).
func (s *Scrape) SpecDecode() *SpecDecode {
	c := &SpecDecode{PerPosition: map[int]int{}}
	found := false
	for _, name := range []string{SpecDrafts, SpecDraftTokens, SpecAcceptedTokens, SpecAcceptedPerPos} {
		f, ok := s.families[name]
		if !ok || f.Kind != KindCounter {
			continue
		}
		for _, se := range f.Series {
			if se.Timestamped {
				continue
			}
			v := int(se.Value)
			switch name {
			case SpecDrafts:
				c.Drafts += v
			case SpecDraftTokens:
				c.DraftTokens += v
			case SpecAcceptedTokens:
				c.Accepted += v
			default:
				pos, err := strconv.Atoi(se.Labels["position"])
				if err != nil {
					continue
				}
				c.PerPosition[pos] += v
			}
			found = true
		}
	}
	if !found {
		return nil
	}
	return c
}

// PrefixCache returns the prefix cache's lookups and hits summed over the
// engines (PrefixQueries, PrefixHits; not the external_ ones); ok is false
// unless s has both.
func (s *Scrape) PrefixCache() (queries, hits float64, ok bool) {
	queries, okQ := s.Counter(PrefixQueries)
	hits, okH := s.Counter(PrefixHits)
	return queries, hits, okQ && okH
}
