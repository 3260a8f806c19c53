package sim

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// statLogger is vLLM's LoggingStatLogger (vllm/v1/metrics/loggers.py): it
// accumulates token counts between two log lines and keeps the prefix
// cache hit rate over the most recent 1,000 requests, so Serve can print
// the periodic line
//
//	INFO 11-30 08:00:10 [loggers.py] Engine 000: Avg prompt throughput: 5120.4 tokens/s,
//	Avg generation throughput: 1843.0 tokens/s, Running: 42 reqs, Waiting: 7 reqs,
//	Preemptions: 3, GPU KV cache usage: 91.2%, Prefix cache hit rate: 63.5%
//
// (one line; "Preemptions" only when there were some since the last line)
// and, with speculative decoding, vLLM's "SpecDecoding metrics" line. As in
// vLLM, the prompt throughput counts computed prompt tokens (cache hits
// excluded), and nothing is printed while the engine is idle.
type statLogger struct {
	// prompt and gen are added by every handler on every output, so they
	// are atomic rather than under mu.
	prompt, gen atomic.Int64

	mu                      sync.Mutex
	last                    time.Time
	preemptions             int
	lastPromptTP, lastGenTP float64

	window             []cacheObs
	aggReq, aggQ, aggH int

	spec                             bool
	drafts, draftTokens, specAccepts int
	perPos                           []int
}

// cacheObs is one step's prefix cache lookups.
type cacheObs struct{ requests, queries, hits int }

// maxRecentRequests is the window of CachingMetrics.
const maxRecentRequests = 1000

func newStatLogger(spec bool) *statLogger {
	return &statLogger{last: time.Now(), spec: spec}
}

// tokens adds the computed prompt tokens and generated tokens of one
// output (the handler calls it).
func (l *statLogger) tokens(promptComputed, generated int) {
	if promptComputed != 0 {
		l.prompt.Add(int64(promptComputed))
	}
	if generated != 0 {
		l.gen.Add(int64(generated))
	}
}

// step adds an engine step's preemptions, prefix cache lookups and
// speculative decoding counts.
func (l *statLogger) step(st StepStats) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.preemptions += st.Preemptions
	if st.PrefixRequests > 0 {
		l.window = append(l.window, cacheObs{st.PrefixRequests, st.PrefixQueries, st.PrefixHits})
		l.aggReq += st.PrefixRequests
		l.aggQ += st.PrefixQueries
		l.aggH += st.PrefixHits
		for len(l.window) > 1 && l.aggReq > maxRecentRequests {
			o := l.window[0]
			l.window = l.window[1:]
			l.aggReq -= o.requests
			l.aggQ -= o.queries
			l.aggH -= o.hits
		}
	}
	if l.spec && st.Drafts > 0 {
		l.drafts += st.Drafts
		l.draftTokens += st.DraftTokens
		l.specAccepts += st.AcceptedTokens
		if len(l.perPos) < len(st.AcceptedPerPosition) {
			l.perPos = append(l.perPos, make([]int, len(st.AcceptedPerPosition)-len(l.perPos))...)
		}
		for i, n := range st.AcceptedPerPosition {
			l.perPos[i] += n
		}
	}
}

// lines renders the log lines for the interval ending at now and starts a
// new one. idle is true when neither this interval nor the previous one
// had throughput (vLLM then logs at debug level, i.e. not by default).
func (l *statLogger) lines(now time.Time, running, waiting int, kvUsage float64) (out []string, idle bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	dt := now.Sub(l.last).Seconds()
	tp := func(n int) float64 {
		if dt <= 0 {
			return 0
		}
		return float64(n) / dt
	}
	promptTP, genTP := tp(int(l.prompt.Swap(0))), tp(int(l.gen.Swap(0)))
	idle = promptTP == 0 && genTP == 0 && l.lastPromptTP == 0 && l.lastGenTP == 0
	l.lastPromptTP, l.lastGenTP = promptTP, genTP
	hit := 0.0
	if l.aggQ > 0 {
		hit = float64(l.aggH) / float64(l.aggQ)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Engine 000: Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, "+
		"Running: %d reqs, Waiting: %d reqs, ", promptTP, genTP, running, waiting)
	if l.preemptions > 0 {
		fmt.Fprintf(&b, "Preemptions: %d, ", l.preemptions)
	}
	fmt.Fprintf(&b, "GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%", kvUsage*100, hit*100)
	out = append(out, b.String())
	if l.spec && l.drafts > 0 {
		rates := make([]string, len(l.perPos))
		for i, n := range l.perPos {
			rates[i] = fmt.Sprintf("%.3f", float64(n)/float64(l.drafts))
		}
		rate := math.NaN()
		if l.draftTokens > 0 {
			rate = float64(l.specAccepts) / float64(l.draftTokens) * 100
		}
		out = append(out, fmt.Sprintf("SpecDecoding metrics: Mean acceptance length: %.2f, Accepted throughput: %.2f tokens/s, "+
			"Drafted throughput: %.2f tokens/s, Accepted: %d tokens, Drafted: %d tokens, Per-position acceptance rate: %s, "+
			"Avg Draft acceptance rate: %.1f%%", 1+float64(l.specAccepts)/float64(l.drafts), tp(l.specAccepts), tp(l.draftTokens),
			l.specAccepts, l.draftTokens, strings.Join(rates, ", "), rate))
		l.drafts, l.draftTokens, l.specAccepts = 0, 0, 0
		clear(l.perPos)
	}
	l.last, l.preemptions = now, 0
	return out, idle
}

// logStats writes the stats lines to the logger every interval until ctx
// ends.
func (s *Server) logStats(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			running, waiting, kv := s.engineState()
			lines, idle := s.stats.lines(now, running, waiting, kv)
			if idle {
				continue
			}
			s.logMu.Lock()
			for _, line := range lines {
				_, _ = io.WriteString(s.cfg.Logger, "INFO "+now.Format("01-02 15:04:05")+" [loggers.py] "+line+"\n")
			}
			s.logMu.Unlock()
		}
	}
}

// engineState is the scheduler's state, or for the fixed engine the
// requests in flight with no queue and no cache.
func (s *Server) engineState() (running, waiting int, kvUsage float64) {
	if s.sched != nil {
		return s.sched.Snapshot()
	}
	return int(s.active.Load()), 0, 0
}
