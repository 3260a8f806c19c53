package sim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gobench/gobench/internal/testserver"
)

// These tests run the whole server with the engine model inside a
// synctest bubble: time is virtual, so a step of 30 ms takes no real time
// and every instant is exact. They check that the model behaves like
// vLLM's engine (seed 000's tuning directions, the interval identities).

// recordLine is a request line of the record.
type recordLine struct {
	RequestID    string              `json:"request_id"`
	Status       int                 `json:"status"`
	Fault        string              `json:"fault"`
	Error        string              `json:"error"`
	Prompt       int                 `json:"prompt_tokens"`
	Completion   int                 `json:"completion_tokens"`
	Finish       string              `json:"finish_reason"`
	Preemptions  int                 `json:"preemptions"`
	CachedTokens int                 `json:"cached_tokens"`
	ArrivalNS    int64               `json:"arrival_ns"`
	ScheduledNS  int64               `json:"scheduled_ns"`
	FirstTokenNS int64               `json:"first_token_ns"`
	Intervals    map[string]*float64 `json:"intervals"`
	EventsNS     []int64             `json:"events_ns"`
	EventTokens  []int               `json:"event_tokens"`
	LateNS       []int64             `json:"late_ns"`
}

// parseRecord splits a record into its header and request lines, by id.
func parseRecord(t *testing.T, b []byte) (map[string]any, map[string]recordLine) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var head map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &head); err != nil {
		t.Fatalf("header %q: %v", lines[0], err)
	}
	reqs := map[string]recordLine{}
	for _, l := range lines[1:] {
		var r recordLine
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("record line %q: %v", l, err)
		}
		reqs[r.RequestID] = r
	}
	return head, reqs
}

// engineReq is one request of a bubble run: sent after delay.
type engineReq struct {
	id            string
	delay         time.Duration
	prompt, out   int
	stream, usage bool
	// shared is how many of the prompt's first words all requests share.
	shared int
}

// body renders the request: prompt words w0..wN (distinct per id unless
// shared), ignore_eos.
func (r engineReq) body() string {
	words := make([]string, r.prompt)
	for i := range words {
		words[i] = fmt.Sprintf("%s%d", r.id, i)
		if i < r.shared {
			words[i] = fmt.Sprintf("shared%d", i)
		}
	}
	b := fmt.Sprintf(`{"prompt":%q,"max_tokens":%d,"ignore_eos":true,"stream":%t`, strings.Join(words, " "), r.out, r.stream)
	if r.usage {
		b += `,"stream_options":{"include_usage":true}`
	}
	return b + "}"
}

// runEngine serves reqs with cfg (and a record) inside a bubble and
// returns the record's request lines and the final /metrics scrape.
func runEngine(t *testing.T, cfg Config, reqs []engineReq) (map[string]recordLine, string) {
	t.Helper()
	var recs map[string]recordLine
	var scrape string
	synctest.Test(t, func(t *testing.T) {
		var rec testserver.LockedBuffer
		cfg.Record = &rec
		s := newTestServer(t, cfg)
		var wg sync.WaitGroup
		for _, r := range reqs {
			wg.Go(func() {
				time.Sleep(r.delay)
				resp := do(t, s.Handler(), http.MethodPost, "/v1/completions", r.body(), map[string]string{"X-Request-Id": r.id})
				if resp.Code != http.StatusOK {
					t.Errorf("%s: status %d: %s", r.id, resp.Code, resp.Body)
				}
			})
		}
		wg.Wait()
		_, recs = parseRecord(t, rec.Bytes())
		m := httptest.NewRecorder()
		s.Handler().ServeHTTP(m, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		scrape = m.Body.String()
	})
	return recs, scrape
}

// engineConfig is a small engine: steps of 5 ms + 50 µs per prefill token
// + 100 µs per sequence.
func engineConfig(mod func(*SchedulerConfig)) Config {
	sc := SchedulerConfig{MaxNumSeqs: 64, MaxNumBatchedTokens: 8192, BlockSize: 16, NumGPUBlocks: 4096,
		StepBase: 5 * time.Millisecond, StepPerToken: 50 * time.Microsecond, StepPerSeq: 100 * time.Microsecond}
	if mod != nil {
		mod(&sc)
	}
	return Config{Scheduler: &sc, MaxModelLen: 8192, Tokenizer: fakeTokenizer{}}
}

func seconds(v *float64) float64 {
	if v == nil {
		return -1
	}
	return *v
}

func TestEngineQueueTimeGrowsWithLoad(t *testing.T) {
	t.Parallel()
	// One sequence at a time: with n requests at once the k-th waits for
	// the k-1 before it, so the mean queue time grows with n.
	meanQueue := func(n int) float64 {
		var reqs []engineReq
		for i := range n {
			reqs = append(reqs, engineReq{id: fmt.Sprintf("r%d", i), prompt: 20, out: 10, stream: true})
		}
		recs, _ := runEngine(t, engineConfig(func(c *SchedulerConfig) { c.MaxNumSeqs = 1 }), reqs)
		sum := 0.0
		for _, r := range recs {
			sum += seconds(r.Intervals["queue"])
		}
		return sum / float64(n)
	}
	q1, q4, q8 := meanQueue(1), meanQueue(4), meanQueue(8)
	t.Logf("mean queue time at load 1, 4, 8: %.1f, %.1f, %.1f ms", q1*1e3, q4*1e3, q8*1e3)
	if !(q1 < 0.001 && q1 < q4 && q4 < q8) {
		t.Errorf("mean queue time at load 1, 4, 8: %.4f, %.4f, %.4f s; want growing from ~0", q1, q4, q8)
	}
}

func TestEngineBatchedTokensTradeITLForTTFT(t *testing.T) {
	t.Parallel()
	// Mixed load: 4 streams decoding 150 tokens, and 4 long prompts (2000
	// tokens) arriving while they run. A smaller token budget prefills the
	// long prompts in more, shorter steps: the decoders' worst ITL drops and
	// the long prompts' TTFT rises (vLLM's optimisation guide, seed 000).
	run := func(budget int) (maxITL, meanLongTTFT float64) {
		var reqs []engineReq
		for i := range 4 {
			reqs = append(reqs, engineReq{id: fmt.Sprintf("dec%d", i), prompt: 16, out: 150, stream: true})
			reqs = append(reqs, engineReq{id: fmt.Sprintf("long%d", i), delay: time.Duration(100+150*i) * time.Millisecond,
				prompt: 2000, out: 2, stream: true})
		}
		recs, _ := runEngine(t, engineConfig(func(c *SchedulerConfig) { c.MaxNumBatchedTokens = budget }), reqs)
		for _, r := range recs {
			if strings.HasPrefix(r.RequestID, "dec") {
				for i := 1; i < len(r.EventsNS); i++ {
					maxITL = max(maxITL, float64(r.EventsNS[i]-r.EventsNS[i-1])/1e9)
				}
			} else {
				meanLongTTFT += seconds(r.Intervals["ttft"]) / 4
			}
		}
		return maxITL, meanLongTTFT
	}
	itlBig, ttftBig := run(8192)
	itlSmall, ttftSmall := run(512)
	t.Logf("budget 8192: max ITL %.1f ms, long-prompt TTFT %.1f ms; budget 512: %.1f ms, %.1f ms",
		itlBig*1e3, ttftBig*1e3, itlSmall*1e3, ttftSmall*1e3)
	if !(itlSmall < itlBig) || !(ttftSmall > ttftBig) {
		t.Errorf("budget 8192: max ITL %.1f ms, long TTFT %.1f ms; budget 512: %.1f ms, %.1f ms; "+
			"want the smaller budget to lower ITL and raise TTFT", itlBig*1e3, ttftBig*1e3, itlSmall*1e3, ttftSmall*1e3)
	}
}

func TestEngineTTFTIsQueuePlusPrefill(t *testing.T) {
	t.Parallel()
	// Per request, TTFT (arrival to the first event sent) is exactly the
	// front end, plus the queue (queued to first SCHEDULED), plus the
	// prefill (first SCHEDULED to the first token); decode is first to last
	// token. Virtual time makes the identities exact (1 µs for rounding).
	cfg := engineConfig(func(c *SchedulerConfig) { c.MaxNumSeqs, c.MaxNumBatchedTokens = 3, 256 })
	const frontend = 3 * time.Millisecond
	cfg.FrontendLatency = frontend
	var reqs []engineReq
	for i := range 8 {
		reqs = append(reqs, engineReq{id: fmt.Sprintf("r%d", i), delay: time.Duration(i) * 7 * time.Millisecond,
			prompt: 100 + 90*i, out: 20, stream: true})
	}
	recs, _ := runEngine(t, cfg, reqs)
	if len(recs) != len(reqs) {
		t.Fatalf("%d records, want %d", len(recs), len(reqs))
	}
	for id, r := range recs {
		iv := r.Intervals
		ttft, queue, prefill := seconds(iv["ttft"]), seconds(iv["queue"]), seconds(iv["prefill"])
		if d := ttft - (frontend.Seconds() + queue + prefill); d < -1e-6 || d > 1e-6 {
			t.Errorf("%s: ttft %.6f != front end %.6f + queue %.6f + prefill %.6f", id, ttft, frontend.Seconds(), queue, prefill)
		}
		if d := seconds(iv["inference"]) - (prefill + seconds(iv["decode"])); d < -1e-6 || d > 1e-6 {
			t.Errorf("%s: inference %.6f != prefill + decode", id, seconds(iv["inference"]))
		}
	}
}

func TestEngineStreamIntervalAndSpecDecode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		interval int
		spec     int
		rate     float64
		// want describes the tokens per event after the first.
		want func(tokens []int) bool
	}{
		{"stream interval 4", 4, 0, 0, func(ts []int) bool {
			// 1, then 4s, the last may be smaller.
			return ts[0] == 1 && !slices.ContainsFunc(ts[1:len(ts)-1], func(n int) bool { return n != 4 })
		}},
		{"speculative 3 all accepted", 1, 3, 1, func(ts []int) bool {
			return ts[0] == 1 && !slices.ContainsFunc(ts[1:len(ts)-1], func(n int) bool { return n != 4 })
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := engineConfig(func(c *SchedulerConfig) { c.NumSpeculativeTokens, c.SpecAcceptanceRate = tt.spec, tt.rate })
			cfg.StreamInterval = tt.interval
			recs, scrape := runEngine(t, cfg, []engineReq{{id: "a", prompt: 10, out: 30, stream: true}})
			r := recs["a"]
			sum := 0
			for _, n := range r.EventTokens {
				sum += n
			}
			if sum != 30 || r.Completion != 30 || !tt.want(r.EventTokens) {
				t.Errorf("tokens per event %v (sum %d, completion %d)", r.EventTokens, sum, r.Completion)
			}
			if tt.spec > 0 && !strings.Contains(scrape, `vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="gobench/sim"} 24`) {
				t.Errorf("spec decode counters missing or wrong:\n%s", grepLines(scrape, "spec_decode"))
			}
		})
	}
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
