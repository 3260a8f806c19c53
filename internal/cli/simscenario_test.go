package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/testserver"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// These tests run each scenario preset of the simulator as its help and
// docs/simulator.md document it (`gobench sim --preset NAME` and `gobench serve
// --base-url URL LOAD...`), sample the server's gauges while the load runs
// as a diagnosis would, and check the metric signature that the seed's
// five questions read (queue, why waiting, thrashing, prefill, streaming)
// against the simulator's own truth: its record of every request, its
// configuration, and the counters, which must agree with the record. No
// figure is compared with a fixed timing: the thresholds are ratios, or
// derive from the scenario's cost model.

// scenarioGuard bounds one scenario's run in virtual time; a run takes
// a few virtual seconds.
const scenarioGuard = 2 * time.Minute

// simRecordLine is what the tests read of a line of the simulator's record.
type simRecordLine struct {
	ID          string              `json:"request_id"`
	Status      int                 `json:"status"`
	Prompt      int                 `json:"prompt_tokens"`
	Completion  int                 `json:"completion_tokens"`
	Finish      string              `json:"finish_reason"`
	Preemptions int                 `json:"preemptions"`
	Cached      int                 `json:"cached_tokens"`
	ArrivalNS   int64               `json:"arrival_ns"`
	QueuedNS    int64               `json:"queued_ns"`
	ScheduledNS int64               `json:"scheduled_ns"`
	FirstNS     int64               `json:"first_token_ns"`
	LastNS      int64               `json:"last_token_ns"`
	EventsNS    []int64             `json:"events_ns"`
	LateNS      []int64             `json:"late_ns"`
	Intervals   map[string]*float64 `json:"intervals"`
}

// interval is a record interval in seconds, 0 when absent.
func (r simRecordLine) interval(name string) float64 {
	if v := r.Intervals[name]; v != nil {
		return *v
	}
	return 0
}

// gaugePeaks are the scheduler gauges sampled while the load ran.
type gaugePeaks struct {
	running, waiting, kv, deferred float64
	// busyKV are the KV cache usages sampled while a request ran or waited.
	busyKV []float64
}

// scenarioRun is what one scenario leaves behind.
type scenarioRun struct {
	cfg   sim.Config
	fams  map[string]*dto.MetricFamily // the scrape after the run
	peaks gaugePeaks
	recs  []simRecordLine
	view  serverView // the diagnosis in gobench serve's result
	out   string     // what gobench serve printed on stderr
}

// runScenario serves preset p as `gobench sim --preset` does, runs its
// load through `gobench serve --format json` (which samples the gauges
// every 50 ms for its diagnosis, told the server's max_num_seqs as a user
// would), sampling /metrics every 20 ms beside it, and returns the final
// scrape, the gauges' peaks, the record and serve's server view. Server
// and client run in a synctest bubble over an in-memory network, so that
// every interval is the cost model's, however loaded the machine is.
func runScenario(t *testing.T, p sim.Preset) scenarioRun {
	t.Helper()
	var run scenarioRun
	synctest.Test(t, func(t *testing.T) {
		var rec testserver.LockedBuffer
		run.cfg = presetConfig(t, p.Name, [2]string{"disable-log-stats", "true"})
		cfg := run.cfg
		cfg.Record = &rec
		srv, err := sim.NewServer(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ln := testserver.NewPipeListener()
		served := serveInBubble(srv, ln)
		client := &http.Client{Transport: ln.Transport(0)}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() { run.peaks = sampleGauges(client, stop) })
		ctx, cancel := context.WithTimeout(context.Background(), scenarioGuard)
		defer cancel()
		var stdout, stderr bytes.Buffer
		args := append([]string{"serve", "--base-url", bubbleURL, "--server-max-num-seqs", itoa(cfg.Scheduler.MaxNumSeqs),
			"--metrics-interval", "0.05", "--format", "json"}, p.Load...)
		code := Main(ctx, args, Deps{Stdout: &stdout, Stderr: &stderr, Version: "test", Transport: pipeTransport(ln)})
		close(stop)
		wg.Wait()
		run.out = stderr.String()
		if code != 0 || ctx.Err() != nil {
			t.Fatalf("gobench serve %s: exit %d\n%s", p.LoadArgs(), code, &stderr)
		}
		run.view = parseServerView(t, stdout.Bytes())
		run.fams = scrape(t, client)
		client.CloseIdleConnections()
		if err := served(); err != nil {
			t.Fatal(err)
		}
		run.recs = parseSimRecord(t, rec.Bytes())
	})
	return run
}

// presetConfig is the configuration `gobench sim --preset name` builds,
// with the other settings (knob, value) given.
func presetConfig(t *testing.T, name string, settings ...[2]string) sim.Config {
	t.Helper()
	o := sim.NewOptions("", true)
	for _, kv := range append([][2]string{{"preset", name}}, settings...) {
		if err := o.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := o.Config()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// sampleGauges reads the scheduler gauges every 20 ms until stop closes.
func sampleGauges(client *http.Client, stop <-chan struct{}) gaugePeaks {
	var p gaugePeaks
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return p
		case <-tick.C:
		}
		fams, err := scrapeOnce(client)
		if err != nil {
			continue
		}
		running, waiting := gauge(fams, "vllm:num_requests_running", nil), gauge(fams, "vllm:num_requests_waiting", nil)
		kv := gauge(fams, "vllm:kv_cache_usage_perc", nil)
		p.running, p.waiting, p.kv = max(p.running, running), max(p.waiting, waiting), max(p.kv, kv)
		p.deferred = max(p.deferred, gauge(fams, "vllm:num_requests_waiting_by_reason", map[string]string{"reason": "deferred"}))
		if running+waiting > 0 {
			p.busyKV = append(p.busyKV, kv)
		}
	}
}

func scrapeOnce(client *http.Client) (map[string]*dto.MetricFamily, error) {
	resp, err := client.Get(bubbleURL + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(resp.Body)
}

func scrape(t *testing.T, client *http.Client) map[string]*dto.MetricFamily {
	t.Helper()
	fams, err := scrapeOnce(client)
	if err != nil {
		t.Fatalf("scrape /metrics: %v", err)
	}
	return fams
}

// readSimRecord reads the record file's request lines.
func readSimRecord(t *testing.T, path string) []simRecordLine {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return parseSimRecord(t, b)
}

// parseSimRecord reads a record's request lines.
func parseSimRecord(t *testing.T, b []byte) []simRecordLine {
	t.Helper()
	var recs []simRecordLine
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<24)
	for first := true; sc.Scan(); first = false {
		if first {
			continue // the header
		}
		var r simRecordLine
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("record line %q: %v", sc.Text(), err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

// series returns the metrics of family name whose labels include want.
func series(fams map[string]*dto.MetricFamily, name string, want map[string]string) []*dto.Metric {
	var out []*dto.Metric
	for _, m := range fams[name].GetMetric() {
		ok := true
		for k, v := range want {
			found := false
			for _, l := range m.GetLabel() {
				found = found || l.GetName() == k && l.GetValue() == v
			}
			ok = ok && found
		}
		if ok {
			out = append(out, m)
		}
	}
	return out
}

// gauge sums the gauge or counter series of name that carry the labels want.
func gauge(fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	v := 0.0
	for _, m := range series(fams, name, want) {
		v += m.GetGauge().GetValue() + m.GetCounter().GetValue()
	}
	return v
}

// hist returns the histogram name.
func hist(t *testing.T, fams map[string]*dto.MetricFamily, name string) *dto.Histogram {
	t.Helper()
	ms := series(fams, name, nil)
	if len(ms) != 1 {
		t.Fatalf("%s: %d series", name, len(ms))
	}
	return ms[0].GetHistogram()
}

// histMean is a histogram's sum over its count: exact, unlike its
// quantiles, whose first bucket of vLLM's request-latency family ends at
// 0.3 s.
func histMean(h *dto.Histogram) float64 {
	if h.GetSampleCount() == 0 {
		return math.NaN()
	}
	return h.GetSampleSum() / float64(h.GetSampleCount())
}

// histQuantile is Prometheus' histogram_quantile: linear inside the bucket
// that holds rank q·count, the lower bound of the +Inf bucket beyond the
// last finite one.
func histQuantile(h *dto.Histogram, q float64) float64 {
	rank := q * float64(h.GetSampleCount())
	prevLe, prevCount := 0.0, 0.0
	for _, b := range h.GetBucket() {
		c := float64(b.GetCumulativeCount())
		if c >= rank {
			if c == prevCount {
				return b.GetUpperBound()
			}
			return prevLe + (b.GetUpperBound()-prevLe)*(rank-prevCount)/(c-prevCount)
		}
		prevLe, prevCount = b.GetUpperBound(), c
	}
	return prevLe
}

// checkAgainstRecord checks that the counters and histogram counts of the
// final scrape agree with the record, request by request: what a diagnosis
// reads must be what the simulator did.
func checkAgainstRecord(t *testing.T, run scenarioRun) {
	t.Helper()
	var prompt, completion, preempted, cached, queried, first, scheduled int
	var queueSum float64
	finished := map[string]int{}
	for _, r := range run.recs {
		completion += r.Completion
		preempted += r.Preemptions
		cached += r.Cached
		finished[r.Finish]++
		if r.ScheduledNS != 0 {
			scheduled++
			queried += r.Prompt
			queueSum += r.interval("queue")
		}
		if r.FirstNS != 0 {
			first++
			prompt += r.Prompt
		}
	}
	sc := run.cfg.Scheduler
	if !sc.EnablePrefixCaching {
		queried = 0
	}
	for _, c := range []struct {
		name string
		got  float64
		want int
	}{
		{"vllm:generation_tokens_total", gauge(run.fams, "vllm:generation_tokens_total", nil), completion},
		{"vllm:prompt_tokens_total", gauge(run.fams, "vllm:prompt_tokens_total", nil), prompt},
		{"vllm:num_preemptions_total", gauge(run.fams, "vllm:num_preemptions_total", nil), preempted},
		{"vllm:prompt_tokens_cached_total", gauge(run.fams, "vllm:prompt_tokens_cached_total", nil), cached},
		{"vllm:prefix_cache_hits_total", gauge(run.fams, "vllm:prefix_cache_hits_total", nil), cached},
		{"vllm:prefix_cache_queries_total", gauge(run.fams, "vllm:prefix_cache_queries_total", nil), queried},
		{"vllm:time_to_first_token_seconds count", float64(hist(t, run.fams, "vllm:time_to_first_token_seconds").GetSampleCount()), first},
		{"vllm:request_queue_time_seconds count", float64(hist(t, run.fams, "vllm:request_queue_time_seconds").GetSampleCount()), scheduled},
		{"vllm:request_success_total", gauge(run.fams, "vllm:request_success_total", nil), len(run.recs)},
	} {
		if c.got != float64(c.want) {
			t.Errorf("%s = %v, the record says %d", c.name, c.got, c.want)
		}
	}
	for reason, n := range finished {
		if got := gauge(run.fams, "vllm:request_success_total", map[string]string{"finished_reason": reason}); got != float64(n) {
			t.Errorf("vllm:request_success_total{finished_reason=%q} = %v, the record says %d", reason, got, n)
		}
	}
	if got := hist(t, run.fams, "vllm:request_queue_time_seconds").GetSampleSum(); math.Abs(got-queueSum) > 1e-6*float64(scheduled+1) {
		t.Errorf("vllm:request_queue_time_seconds sum %v, the record's queue intervals add up to %v", got, queueSum)
	}
	if run.peaks.running > float64(sc.MaxNumSeqs) || run.peaks.kv > 1 || run.peaks.deferred != 0 {
		t.Errorf("gauges out of bounds: peaks %+v, max-num-seqs %d", run.peaks, sc.MaxNumSeqs)
	}
	info := series(run.fams, "vllm:cache_config_info", nil)
	if len(info) != 1 || !hasLabel(info[0], "enable_prefix_caching", pyBool(sc.EnablePrefixCaching)) ||
		!hasLabel(info[0], "num_gpu_blocks", itoa(sc.NumGPUBlocks)) || !hasLabel(info[0], "block_size", itoa(sc.BlockSize)) {
		t.Errorf("vllm:cache_config_info %v does not describe the cache %+v", info, sc)
	}
}

func hasLabel(m *dto.Metric, name, value string) bool {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue() == value
		}
	}
	return false
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// signature holds the figures the seed's questions read, from the final
// scrape and the sampled gauges.
type signature struct {
	queue, prefill, ttft float64 // histogram means, seconds
	queueShare           float64 // queue / TTFT, of the means
	itlP50, itlP99       float64 // histogram quantiles, seconds
	preemptions          float64
	busyKVHigh           float64 // share of busy samples with KV usage >= 0.9
}

func signatureOf(t *testing.T, run scenarioRun) signature {
	t.Helper()
	itl := hist(t, run.fams, "vllm:inter_token_latency_seconds")
	s := signature{
		queue:       histMean(hist(t, run.fams, "vllm:request_queue_time_seconds")),
		prefill:     histMean(hist(t, run.fams, "vllm:request_prefill_time_seconds")),
		ttft:        histMean(hist(t, run.fams, "vllm:time_to_first_token_seconds")),
		itlP50:      histQuantile(itl, 0.5),
		itlP99:      histQuantile(itl, 0.99),
		preemptions: gauge(run.fams, "vllm:num_preemptions_total", nil),
	}
	s.queueShare = s.queue / s.ttft
	high := 0
	for _, kv := range run.peaks.busyKV {
		if kv >= 0.9 {
			high++
		}
	}
	if len(run.peaks.busyKV) > 0 {
		s.busyKVHigh = float64(high) / float64(len(run.peaks.busyKV))
	}
	return s
}

// scenarioChecks are each scenario's signature, with the margins the
// thresholds of the diagnosis are meant to have: each one far past the
// line it must cross and far from the lines it must not.
var scenarioChecks = map[string]func(t *testing.T, run scenarioRun, s signature) string{
	"healthy": func(t *testing.T, run scenarioRun, s signature) string {
		step := run.cfg.Scheduler.StepBase.Seconds()
		if s.preemptions != 0 || run.peaks.kv > 0.1 || s.queue > 2*step || s.itlP99 > 5*s.itlP50 {
			return fmt.Sprintf("not healthy: %+v, peaks %+v (step %v)", s, run.peaks, step)
		}
		return ""
	},
	"seq-limit": func(t *testing.T, run scenarioRun, s signature) string {
		if run.peaks.running != float64(run.cfg.Scheduler.MaxNumSeqs) || run.peaks.waiting < 20 || s.queueShare < 0.8 ||
			run.peaks.kv > 0.1 || s.preemptions != 0 {
			return fmt.Sprintf("not bound by max-num-seqs %d: %+v, peaks %+v", run.cfg.Scheduler.MaxNumSeqs, s, run.peaks)
		}
		return ""
	},
	"kv-thrashing": func(t *testing.T, run scenarioRun, s signature) string {
		if s.preemptions < 20 || run.peaks.kv < 0.95 || s.queueShare < 0.5 ||
			run.peaks.running >= float64(run.cfg.Scheduler.MaxNumSeqs) {
			return fmt.Sprintf("not thrashing: %+v, peaks %+v", s, run.peaks)
		}
		return ""
	},
	"kv-full": func(t *testing.T, run scenarioRun, s signature) string {
		if s.preemptions != 0 || run.peaks.kv < 0.95 || s.busyKVHigh < 0.5 || s.queueShare < 0.8 || run.peaks.waiting < 50 ||
			run.peaks.running >= float64(run.cfg.Scheduler.MaxNumSeqs) {
			return fmt.Sprintf("not full without thrashing: %+v, peaks %+v", s, run.peaks)
		}
		return ""
	},
	"head-of-line": func(t *testing.T, run scenarioRun, s signature) string {
		if s.queueShare < 0.7 || run.peaks.running > float64(run.cfg.Scheduler.MaxNumSeqs)/4 || run.peaks.kv > 0.2 ||
			s.preemptions != 0 || run.peaks.waiting < 10 {
			return fmt.Sprintf("not blocked behind long prompts: %+v, peaks %+v", s, run.peaks)
		}
		return ""
	},
	"prefix-hostile": func(t *testing.T, run scenarioRun, s signature) string {
		// Every prompt shares its first 2000 tokens, and none is found:
		// prefix caching is off, and the whole prompt is computed, in a
		// prefill that costs what the whole prompt costs.
		computed := hist(t, run.fams, "vllm:request_prefill_kv_computed_tokens").GetSampleSum()
		prompts := hist(t, run.fams, "vllm:request_prompt_tokens")
		sc := run.cfg.Scheduler
		full := sc.StepBase.Seconds() + histMean(prompts)*sc.StepPerToken.Seconds()
		if gauge(run.fams, "vllm:prefix_cache_queries_total", nil) != 0 || computed != prompts.GetSampleSum() ||
			s.queueShare > 0.5 || s.prefill < 0.9*full {
			return fmt.Sprintf("prefix not lost to a disabled cache: %+v, computed %v of %v prompt tokens, a whole prefill costs %v",
				s, computed, prompts.GetSampleSum(), full)
		}
		return ""
	},
	"frontend-delay": func(t *testing.T, run scenarioRun, s signature) string {
		gap := s.ttft - s.queue - s.prefill
		if front := run.cfg.FrontendLatency.Seconds(); gap < 0.9*front || gap < 0.8*s.ttft || s.queueShare > 0.1 {
			return fmt.Sprintf("TTFT not spent before the engine: %+v, gap %v (front end %v)", s, gap, front)
		}
		return ""
	},
	"prefill-interference": func(t *testing.T, run scenarioRun, s signature) string {
		if s.itlP99 < 5*s.itlP50 || s.queueShare > 0.5 || s.preemptions != 0 {
			return fmt.Sprintf("no prefill stretching the ITL tail: %+v", s)
		}
		return ""
	},
	"batch-overload": func(t *testing.T, run scenarioRun, s signature) string {
		step := run.cfg.Scheduler.StepBase.Seconds()
		if s.itlP50 < step || s.itlP99 > 2*s.itlP50 || s.queueShare > 0.5 || s.preemptions != 0 || run.peaks.kv > 0.1 {
			return fmt.Sprintf("ITL not high throughout: %+v, peaks %+v (step base %v)", s, run.peaks, step)
		}
		return ""
	},
}

// scenarioProblem is what is wrong with run of preset p: its signature
// (check) or, that being right, its verdict ("" when both are right;
// checkVerdict then checks the verdict's evidence).
func scenarioProblem(t *testing.T, p sim.Preset, check func(*testing.T, scenarioRun, signature) string, run scenarioRun, s signature) string {
	t.Helper()
	if problem := check(t, run, s); problem != "" {
		return problem
	}
	if run.view.Verdict != p.Verdict {
		return fmt.Sprintf("verdict %s, the preset documents %s:\n%s", run.view.Verdict, p.Verdict, run.view.findings())
	}
	return ""
}

// TestSimScenarios runs every scenario preset with its documented load
// through `gobench serve`, checks its signature and that /metrics agrees
// with the record, then that serve's diagnosis gives the verdict the preset
// documents, from evidence that agrees with the record (checkVerdict).
// Last, one scenario runs as README.md shows it, `gobench
// serve --sim --sim-preset`. Every run is in a synctest bubble (virtual
// time, an in-memory network), so the intervals are the cost model's
// whatever else the machine runs, and the scenarios run in parallel. It is
// not skipped under -short: nothing shorter shows the verdicts reachable.
func TestSimScenarios(t *testing.T) {
	t.Parallel()
	var names []string
	for _, p := range sim.Presets() {
		if p.Verdict == "" {
			continue
		}
		names = append(names, p.Name)
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			check, ok := scenarioChecks[p.Name]
			if !ok {
				t.Fatalf("scenario %s (verdict %s) has no signature check", p.Name, p.Verdict)
			}
			run := runScenario(t, p)
			checkAgainstRecord(t, run)
			s := signatureOf(t, run)
			t.Logf("%s: %+v, peaks running %v waiting %v kv %v", p.Name, s, run.peaks.running, run.peaks.waiting, run.peaks.kv)
			if problem := scenarioProblem(t, p, check, run, s); problem != "" {
				t.Error(problem)
			}
			c := verdictCase{view: run.view, truth: truthOf(run.recs, run.cfg.Scheduler.BlockSize), cfg: run.cfg}
			checkVerdict(t, p, c)
		})
	}
	sort.Strings(names)
	if want := []string{"batch-overload", "frontend-delay", "head-of-line", "healthy", "kv-full", "kv-thrashing",
		"prefill-interference", "prefix-hostile", "seq-limit"}; strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("scenarios %v, want one per verdict: %v", names, want)
	}
	t.Run("seq-limit through --sim", func(t *testing.T) {
		t.Parallel()
		p, _ := sim.LookupPreset("seq-limit")
		checkVerdict(t, p, runSimVerdict(t, p))
	})
}

// TestScenarioTableInDocs: docs/simulator.md's table of scenarios gives
// each one's verdict and the very load the preset documents and the test runs.
func TestScenarioTableInDocs(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "simulator.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range sim.Presets() {
		if p.Verdict == "" {
			continue
		}
		name := "`" + p.Name + "`"
		for _, a := range p.Aliases {
			name += " (`" + a + "`)"
		}
		row := "| " + name + " | `" + p.Verdict + "` | `" + p.LoadArgs() + "` |"
		if !strings.Contains(string(b), row) {
			t.Errorf("docs/simulator.md lacks the row\n%s", row)
		}
	}
}
