package cli

import (
	"encoding/json"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gobench/gobench/internal/sim"
)

// The verdict half of the scenario tests: `gobench serve` diagnoses each
// scenario (server_view in its JSON result), and the verdict must be the
// one the preset documents, reached through evidence whose numbers are the
// simulator's own. Every figure is checked against the simulator's record
// of its requests (queue and prefill intervals, engine timestamps of every
// token, cached tokens, preemptions) or its configuration; every threshold
// is the one the evidence carries. Nothing is compared with a timing
// written here.

// serverView is what these tests read of a result's server_view.
type serverView struct {
	Verdict         string                                    `json:"verdict"`
	Quantiles       map[string]map[string]float64             `json:"quantiles"`
	QuantileBuckets map[string]map[string][2]any              `json:"quantile_buckets"`
	Histograms      map[string]struct{ Count, Mean *float64 } `json:"histograms"`
	Ratios          struct {
		HitRate     *float64 `json:"prefix_cache_hit_rate"`
		Computed    *float64 `json:"computed_prefill_share"`
		Finished    *float64 `json:"finished_requests"`
		Preemptions *float64 `json:"preemptions"`
	} `json:"ratios"`
	Gauges struct {
		Peak struct {
			Running *float64 `json:"num_requests_running"`
			KVMax   *float64 `json:"kv_cache_usage_perc_max_engine"`
		} `json:"peak"`
		CacheConfig map[string]string `json:"cache_config"`
	} `json:"gauges"`
	Findings []viewFinding `json:"findings"`
}

// viewFinding is one finding of server_view.
type viewFinding struct {
	Step       int     `json:"step"`
	Status     string  `json:"status"`
	Verdict    *string `json:"verdict"`
	Conclusion string  `json:"conclusion"`
	Evidence   []struct {
		Name      string   `json:"name"`
		Value     *float64 `json:"value"`
		Threshold *float64 `json:"threshold"`
		Text      string   `json:"text"`
	} `json:"evidence"`
}

// num is a JSON number, NaN for null.
func num(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// parseServerView reads server_view from `gobench serve --format json`'s
// standard output.
func parseServerView(t *testing.T, stdout []byte) serverView {
	t.Helper()
	var res struct {
		View *serverView `json:"server_view"`
	}
	if err := json.Unmarshal(stdout, &res); err != nil || res.View == nil {
		t.Fatalf("no server_view in the result (%v):\n%.2000s", err, stdout)
	}
	return *res.View
}

// findings is the findings as text, for failure messages.
func (v serverView) findings() string {
	var b strings.Builder
	for _, f := range v.Findings {
		b.WriteString(itoa(f.Step) + ". [" + f.Status + "] " + f.Conclusion + "\n")
		for _, e := range f.Evidence {
			b.WriteString("     " + e.Text + "\n")
		}
	}
	return b.String()
}

// evidence is the value and threshold (NaN: none) of question step's
// evidence called name.
func (v serverView) evidence(t *testing.T, step int, name string) (value, threshold float64) {
	t.Helper()
	for _, f := range v.Findings {
		for _, e := range f.Evidence {
			if f.Step == step && e.Name == name {
				if e.Value == nil && name != "prefix_cache_hit_rate" {
					t.Fatalf("question %d: %s is null: %s", step, name, e.Text)
				}
				return num(e.Value), num(e.Threshold)
			}
		}
	}
	t.Fatalf("question %d has no evidence %s:\n%s", step, name, v.findings())
	return 0, 0
}

// status is question step's status.
func (v serverView) status(step int) string {
	for _, f := range v.Findings {
		if f.Step == step {
			return f.Status
		}
	}
	return ""
}

// mean is histogram name's exact mean in the window.
func (v serverView) mean(t *testing.T, name string) float64 {
	t.Helper()
	h, ok := v.Histograms[name]
	if !ok {
		t.Fatalf("server_view has no histogram %s", name)
	}
	return num(h.Mean)
}

// bucket is the bucket [lower, upper] that holds quantile p ("p50") of
// histogram name.
func (v serverView) bucket(t *testing.T, name, p string) (lower, upper float64) {
	t.Helper()
	b, ok := v.QuantileBuckets[name][p]
	lo, okLo := b[0].(float64)
	if !ok || !okLo {
		t.Fatalf("server_view has no bucket for %s %s", name, p)
	}
	if hi, ok := b[1].(float64); ok {
		return lo, hi
	}
	return lo, math.Inf(1)
}

// recordTruth is what the simulator's record says of a run.
type recordTruth struct {
	requests, preemptions int
	// queueMean and prefillMean are the means of the record's intervals,
	// over the requests scheduled and over those that produced a token.
	queueMean, prefillMean float64
	// ttftLow and ttftHigh bound the server's mean TTFT: it ends when the
	// handler takes the first output, after the engine stamped it and
	// before the event left. frontLow is the mean time from receipt to the
	// engine's queue (the front end).
	ttftLow, ttftHigh, frontLow float64
	// cached, prompt: prompt tokens of the requests that produced a token
	// and how many came from the cache; queried: prompt tokens of the
	// requests scheduled (a prefix-cache lookup each).
	cached, prompt, queried int
	// itl is every gap between two outputs of a request, from the engine
	// timestamps (an event's send instant minus its lateness), sorted.
	itl []float64
	// maxRunning is the most requests between their scheduling and last
	// token at once, maxBlocks the most KV blocks they could hold (their
	// whole length each): upper bounds of the gauges' peaks.
	maxRunning, maxBlocks int
}

// truthOf sums the record up; blockSize is the KV cache's.
func truthOf(recs []simRecordLine, blockSize int) recordTruth {
	var tr recordTruth
	var scheduled, first float64
	type change struct {
		at           int64
		seqs, blocks int
	}
	var changes []change
	for _, r := range recs {
		tr.requests++
		tr.preemptions += r.Preemptions
		if r.ScheduledNS != 0 {
			scheduled++
			tr.queueMean += r.interval("queue")
			tr.queried += r.Prompt
			blocks := (r.Prompt + r.Completion + blockSize - 1) / blockSize
			changes = append(changes, change{r.ScheduledNS, 1, blocks}, change{r.LastNS, -1, -blocks})
		}
		if r.FirstNS != 0 && len(r.EventsNS) > 0 {
			first++
			tr.prefillMean += r.interval("prefill")
			tr.ttftLow += float64(r.FirstNS-r.ArrivalNS) / 1e9
			tr.ttftHigh += float64(r.EventsNS[0]-r.ArrivalNS) / 1e9
			tr.frontLow += float64(r.QueuedNS-r.ArrivalNS) / 1e9
			tr.cached += r.Cached
			tr.prompt += r.Prompt
		}
		for i := 1; i < len(r.EventsNS) && i < len(r.LateNS); i++ {
			gap := (r.EventsNS[i] - r.LateNS[i]) - (r.EventsNS[i-1] - r.LateNS[i-1])
			tr.itl = append(tr.itl, float64(gap)/1e9)
		}
	}
	tr.queueMean /= scheduled
	tr.prefillMean, tr.ttftLow, tr.ttftHigh, tr.frontLow = tr.prefillMean/first, tr.ttftLow/first, tr.ttftHigh/first, tr.frontLow/first
	sort.Float64s(tr.itl)
	// A request that ends at the instant another is scheduled has left
	// first: the scheduler frees its slot before admitting.
	sort.Slice(changes, func(i, j int) bool {
		return changes[i].at < changes[j].at || changes[i].at == changes[j].at && changes[i].seqs < changes[j].seqs
	})
	seqs, blocks := 0, 0
	for _, c := range changes {
		seqs, blocks = seqs+c.seqs, blocks+c.blocks
		tr.maxRunning, tr.maxBlocks = max(tr.maxRunning, seqs), max(tr.maxBlocks, blocks)
	}
	return tr
}

// orderStat is the sample histogram_quantile's rank q·n falls on: the
// ceil(q·n)-th smallest, which lies in the bucket holding the estimate.
func orderStat(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// verdictCase is one diagnosed run and its truth.
type verdictCase struct {
	view  serverView
	truth recordTruth
	cfg   sim.Config
}

// near reports whether got is want within a float tolerance: the record
// keeps nanoseconds, the histograms add float seconds.
func near(got, want float64) bool { return math.Abs(got-want) <= 1e-6*math.Max(1, math.Abs(want)) }

// checkVerdict checks a scenario's diagnosis: its verdict, the window
// against the record, and the deciding evidence against the truth.
func checkVerdict(t *testing.T, p sim.Preset, c verdictCase) {
	t.Helper()
	if c.view.Verdict != p.Verdict {
		t.Fatalf("verdict %s, the preset documents %s:\n%s", c.view.Verdict, p.Verdict, c.view.findings())
	}
	checkViewAgainstRecord(t, c)
	check, ok := verdictChecks[p.Verdict]
	if !ok {
		t.Fatalf("no evidence check for the verdict %s", p.Verdict)
	}
	check(t, c)
	tr := c.truth
	t.Logf("record: %d requests, mean queue %.6f s, mean prefill %.6f s, TTFT mean in [%.6f, %.6f] s, front end >= %.6f s, "+
		"%d preemptions, %d of %d queried prompt tokens cached, ITL p50 %.6f s p99 %.6f s max %.6f s, at most %d running and %d blocks",
		tr.requests, tr.queueMean, tr.prefillMean, tr.ttftLow, tr.ttftHigh, tr.frontLow, tr.preemptions, tr.cached, tr.queried,
		orderStat(tr.itl, 0.5), orderStat(tr.itl, 0.99), tr.itl[len(tr.itl)-1], tr.maxRunning, tr.maxBlocks)
	t.Logf("verdict %s:\n%s", c.view.Verdict, c.view.findings())
}

// checkViewAgainstRecord: the window's figures are the record's.
func checkViewAgainstRecord(t *testing.T, c verdictCase) {
	t.Helper()
	v, tr := c.view, c.truth
	itlMean := 0.0
	for _, g := range tr.itl {
		itlMean += g / float64(len(tr.itl))
	}
	for _, x := range []struct {
		what      string
		got, want float64
	}{
		{"finished requests", num(v.Ratios.Finished), float64(tr.requests)},
		{"preemptions", num(v.Ratios.Preemptions), float64(tr.preemptions)},
		{"queue time mean", v.mean(t, "vllm:request_queue_time_seconds"), tr.queueMean},
		{"prefill time mean", v.mean(t, "vllm:request_prefill_time_seconds"), tr.prefillMean},
		{"ITL count", num(v.Histograms["vllm:inter_token_latency_seconds"].Count), float64(len(tr.itl))},
		{"ITL mean", v.mean(t, "vllm:inter_token_latency_seconds"), itlMean},
		{"computed prefill share", num(v.Ratios.Computed), float64(tr.prompt-tr.cached) / float64(tr.prompt)},
	} {
		if !near(x.got, x.want) {
			t.Errorf("server_view %s %v, the record says %v", x.what, x.got, x.want)
		}
	}
	if ttft := v.mean(t, "vllm:time_to_first_token_seconds"); !(ttft >= tr.ttftLow-1e-6 && ttft <= tr.ttftHigh+1e-6) {
		t.Errorf("server_view TTFT mean %v, the record puts it between %v and %v", ttft, tr.ttftLow, tr.ttftHigh)
	}
	hit, caching := num(v.Ratios.HitRate), c.cfg.Scheduler.EnablePrefixCaching
	switch {
	case caching && !near(hit, float64(tr.cached)/float64(tr.queried)):
		t.Errorf("prefix-cache hit rate %v, the record says %d of %d prompt tokens", hit, tr.cached, tr.queried)
	case !caching && (!math.IsNaN(hit) || v.Gauges.CacheConfig["enable_prefix_caching"] != "False"):
		t.Errorf("prefix caching off, yet hit rate %v and cache_config %v", hit, v.Gauges.CacheConfig)
	}
}

// queueShare checks question 1's mean share against the record, and that
// it dominates TTFT or not as the scenario wants.
func queueShare(t *testing.T, c verdictCase, dominates bool) {
	t.Helper()
	share, threshold := c.view.evidence(t, 1, "queue_share_mean")
	if want := c.truth.queueMean / c.view.mean(t, "vllm:time_to_first_token_seconds"); !near(share, want) {
		t.Errorf("question 1: mean queue share %v, the record's queue over the TTFT mean is %v", share, want)
	}
	if share >= threshold != dominates {
		t.Errorf("question 1: mean queue share %v against %v: want dominating %v", share, threshold, dominates)
	}
}

// itlInBuckets checks that the record's ITL quantiles lie in the buckets
// of the histogram's estimates, and returns the estimates.
func itlInBuckets(t *testing.T, c verdictCase) (p50, p99 float64) {
	t.Helper()
	const itl = "vllm:inter_token_latency_seconds"
	for _, q := range []struct {
		name string
		q    float64
	}{{"p50", 0.5}, {"p99", 0.99}} {
		lo, hi := c.view.bucket(t, itl, q.name)
		if truth := orderStat(c.truth.itl, q.q); truth <= lo || truth > hi {
			t.Errorf("ITL %s: the record's is %v, outside the bucket (%v, %v] of the estimate %v", q.name, truth, lo, hi,
				c.view.Quantiles[itl][q.name])
		}
	}
	return c.view.Quantiles[itl]["p50"], c.view.Quantiles[itl]["p99"]
}

// kvBound is the highest KV-cache usage the record allows.
func kvBound(c verdictCase) float64 {
	return float64(c.truth.maxBlocks)/float64(c.cfg.Scheduler.NumGPUBlocks) + 1e-9
}

// verdictChecks check, per verdict, the evidence of the finding that
// gives it (and of those that had to rule their layer out) against the
// record and the configuration.
var verdictChecks = map[string]func(t *testing.T, c verdictCase){
	"healthy": func(t *testing.T, c verdictCase) {
		for _, f := range c.view.Findings {
			if f.Status == "located" {
				t.Errorf("question %d located a problem in a healthy server", f.Step)
			}
		}
		queueShare(t, c, false)
		itlInBuckets(t, c)
		if _, high := c.view.evidence(t, 5, "itl_p50"); c.truth.itl[len(c.truth.itl)-1] >= high {
			t.Errorf("the record's longest ITL %v reaches %v", c.truth.itl[len(c.truth.itl)-1], high)
		}
		if c.truth.preemptions != 0 || c.truth.maxRunning >= c.cfg.Scheduler.MaxNumSeqs {
			t.Errorf("the record has %d preemptions and %d running at once", c.truth.preemptions, c.truth.maxRunning)
		}
	},
	"queue/seq-limit": func(t *testing.T, c verdictCase) {
		queueShare(t, c, true)
		limit := float64(c.cfg.Scheduler.MaxNumSeqs)
		running, _ := c.view.evidence(t, 2, "running_peak")
		seqs, _ := c.view.evidence(t, 2, "max_num_seqs")
		if running != limit || seqs != limit || c.truth.maxRunning != c.cfg.Scheduler.MaxNumSeqs {
			t.Errorf("running peak %v, max_num_seqs %v, the record's most running at once %d: want all %v",
				running, seqs, c.truth.maxRunning, limit)
		}
		if kv, th := c.view.evidence(t, 2, "kv_cache_usage_peak"); kv >= th || kv > kvBound(c) {
			t.Errorf("KV usage peak %v: not below %v, or above the record's %v", kv, th, kvBound(c))
		}
	},
	"queue/memory-thrashing": func(t *testing.T, c verdictCase) {
		queueShare(t, c, true)
		if kv, th := c.view.evidence(t, 2, "kv_cache_usage_peak"); kv < th || kv > 1 {
			t.Errorf("KV usage peak %v not in [%v, 1]", kv, th)
		}
		if n, th := c.view.evidence(t, 3, "preemptions"); n != float64(c.truth.preemptions) || n < th || n == 0 {
			t.Errorf("preemptions %v (from %v), the record has %d", n, th, c.truth.preemptions)
		}
		if peak := num(c.view.Gauges.Peak.Running); !(peak <= float64(c.truth.maxRunning)) || c.truth.maxRunning >= c.cfg.Scheduler.MaxNumSeqs {
			t.Errorf("running peak %v, the record's %d, max_num_seqs %d", peak, c.truth.maxRunning, c.cfg.Scheduler.MaxNumSeqs)
		}
	},
	"queue/memory-full": func(t *testing.T, c verdictCase) {
		queueShare(t, c, true)
		if kv, th := c.view.evidence(t, 2, "kv_cache_usage_peak"); kv < th || kv > kvBound(c) {
			t.Errorf("KV usage peak %v not in [%v, %v] (the record's bound)", kv, th, kvBound(c))
		}
		if n, th := c.view.evidence(t, 3, "preemptions"); n != 0 || c.truth.preemptions != 0 || n >= th {
			t.Errorf("preemptions %v (thrashing from %v), the record has %d", n, th, c.truth.preemptions)
		}
	},
	"queue/head-of-line": func(t *testing.T, c verdictCase) {
		queueShare(t, c, true)
		running, _ := c.view.evidence(t, 2, "running_peak")
		seqs, _ := c.view.evidence(t, 2, "max_num_seqs")
		if seqs != float64(c.cfg.Scheduler.MaxNumSeqs) || running > float64(c.truth.maxRunning) || c.truth.maxRunning >= c.cfg.Scheduler.MaxNumSeqs {
			t.Errorf("running peak %v (the record's %d) against max_num_seqs %v (configured %d)", running, c.truth.maxRunning,
				seqs, c.cfg.Scheduler.MaxNumSeqs)
		}
		if kv, th := c.view.evidence(t, 2, "kv_cache_usage_peak"); kv >= th || kv > kvBound(c) {
			t.Errorf("KV usage peak %v: not below %v, or above the record's %v", kv, th, kvBound(c))
		}
		if c.truth.preemptions != 0 {
			t.Errorf("the record has %d preemptions", c.truth.preemptions)
		}
	},
	"prefill/prefix-cache": func(t *testing.T, c verdictCase) {
		queueShare(t, c, false)
		share, th := c.view.evidence(t, 4, "prefill_share")
		if want := c.truth.prefillMean / c.view.mean(t, "vllm:time_to_first_token_seconds"); !near(share, want) || share < th {
			t.Errorf("prefill share %v (dominates from %v), the record's prefill over the TTFT mean is %v", share, th, want)
		}
		if hit, _ := c.view.evidence(t, 4, "prefix_cache_hit_rate"); c.cfg.Scheduler.EnablePrefixCaching || !math.IsNaN(hit) || c.truth.cached != 0 {
			t.Errorf("prefix caching on %v, hit rate %v, %d cached tokens in the record: want off, unknown, 0",
				c.cfg.Scheduler.EnablePrefixCaching, hit, c.truth.cached)
		}
	},
	"prefill/frontend": func(t *testing.T, c verdictCase) {
		queueShare(t, c, false)
		share, th := c.view.evidence(t, 4, "frontend_share")
		front := share * c.view.mean(t, "vllm:time_to_first_token_seconds")
		high := c.truth.ttftHigh - c.truth.queueMean - c.truth.prefillMean
		if front < c.truth.frontLow-1e-6 || front > high+1e-6 || share < th {
			t.Errorf("front end %v s (share %v, dominates from %v): the record puts it between %v and %v", front, share, th,
				c.truth.frontLow, high)
		}
		if c.truth.frontLow < c.cfg.FrontendLatency.Seconds() {
			t.Errorf("the record's front end %v s is shorter than the configured %v", c.truth.frontLow, c.cfg.FrontendLatency)
		}
	},
	"stream/prefill-interference": func(t *testing.T, c verdictCase) {
		queueShare(t, c, false)
		p50, p99 := itlInBuckets(t, c)
		ratio, th := c.view.evidence(t, 5, "itl_p99_over_p50")
		_, high := c.view.evidence(t, 5, "itl_p50")
		if !near(ratio, p99/p50) || ratio < th || p99 < high {
			t.Errorf("ITL p99 %v / p50 %v = %v: want from %v x with p99 from %v", p99, p50, ratio, th, high)
		}
		if c.view.status(4) == "located" {
			t.Errorf("question 4 located a problem")
		}
	},
	"stream/batch-or-cpu": func(t *testing.T, c verdictCase) {
		queueShare(t, c, false)
		p50, p99 := itlInBuckets(t, c)
		got, high := c.view.evidence(t, 5, "itl_p50")
		ratio, th := c.view.evidence(t, 5, "itl_p99_over_p50")
		if got != p50 || p50 < high || ratio >= th {
			t.Errorf("ITL p50 %v (high from %v), p99 %v: %v x (uneven from %v)", p50, high, p99, ratio, th)
		}
		if step := c.cfg.Scheduler.StepBase.Seconds(); c.truth.itl[0] < step {
			t.Errorf("the record's shortest ITL %v is under a step (%v)", c.truth.itl[0], step)
		}
	},
}

// runSimVerdict runs a scenario the way the README's walk-through does,
// `gobench serve --sim --sim-preset NAME LOAD`: serve starts the simulator
// and gives the diagnosis the simulator's max_num_seqs itself, so that the
// sequence limit is found without --server-max-num-seqs. It runs in a
// synctest bubble (runSimInBubble), as runScenario's simulator does.
func runSimVerdict(t *testing.T, p sim.Preset) verdictCase {
	t.Helper()
	rec := filepath.Join(t.TempDir(), "truth.jsonl")
	cfg := presetConfig(t, p.Name)
	args := append([]string{"serve", "--sim", "--sim-preset", p.Name, "--sim-record", rec, "--metrics-interval", "0.05",
		"--format", "json"}, p.Load...)
	stdout, stderr, code := runSimInBubble(t, args...)
	if code != 0 {
		t.Fatalf("gobench %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
	}
	return verdictCase{view: parseServerView(t, []byte(stdout)), truth: truthOf(readSimRecord(t, rec), cfg.Scheduler.BlockSize), cfg: cfg}
}
