package run

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/diagnose"
	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/fdlimit"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/serverapi"
)

// ErrAllFailed is returned (with the result) when no request succeeded:
// such a run must not look like a pass.
var ErrAllFailed = exitcode.With(errors.New("every request failed"), exitcode.AllFailed)

// ErrInterrupted is returned (with the result, which was still printed and
// saved) when the run was interrupted.
var ErrInterrupted = exitcode.With(errors.New("run interrupted"), exitcode.Interrupted)

// Result is what a run produced.
type Result struct {
	// Metrics is the computed result.
	Metrics *metrics.Result
	// Object is the result as saved (or as it would be saved).
	Object *pyjson.Object
	// File is the path the result was written to, "" if not saved.
	File string
	// EndReason is report.EndCompleted or report.EndInterrupted.
	EndReason string
	// Spec is the speculative-decoding section, nil when the server
	// exposed no counters.
	Spec *report.SpecDecode
}

// Serve plans the run described by opts and carries it out; a dry run
// prints the plan's JSON lines on env.Stdout instead (and returns nil).
// The first interrupt (env.Stop) ends the planning at once (model
// discovery, a tokenizer download or load, the dataset, prompt alignment):
// the run then ends as interrupted, with nothing sent (planUnlessStopped).
func Serve(ctx context.Context, opts Options, env Env) (*Result, error) {
	env = env.withDefaults()
	p, err := planUnlessStopped(ctx, opts, env)
	if err != nil {
		return nil, err
	}
	if opts.DryRun {
		return nil, p.WriteJSONL(env.Stdout)
	}
	return p.Execute(ctx, env)
}

// errExecuted is Execute's error for a plan executed before.
var errExecuted = errors.New("run: this plan was executed already (a plan sends its requests once)")

// execution is one Execute of a plan.
type execution struct {
	*Plan
	env Env
	// engine sends the run's requests (--client-engine).
	engine requester
	// test is the ready check's and the warm-ups' request: request 0
	// without its request id, and its body.
	test     backend.Request
	testBody []byte
	// turns is a --multi-turn run's per-turn figures, nil otherwise.
	turns *report.MultiTurn
	// steady and load are gobench's figures beside vLLM's
	// (gobenchFigures): the steady state, nil for pooling; the client's
	// load, nil for --multi-turn.
	steady *metrics.SteadyState
	load   *metrics.ClientLoad
}

// Execute is vLLM's benchmark(): the ready check, the warm-ups, the
// profiler, the main run on the schedule, the metrics, the printed block
// (env.Render), then the result file. The result is returned with
// ErrAllFailed when no request succeeded and ErrInterrupted after an
// interrupt; it is still printed and saved then. An interrupt before the
// first request (during the ready check, the warm-ups or the first scrape
// of the server's counters) cuts those short and sends no request.
//
// A plan is executed once: the run lets each request go once it is sent
// (dispatcher.send), so that a long run does not hold every prompt to its
// end; a second Execute fails.
func (p *Plan) Execute(ctx context.Context, env Env) (*Result, error) {
	if p.executed {
		return nil, errExecuted
	}
	p.executed = true
	engine, closeEngine, err := p.startEngine()
	if err != nil {
		return nil, err
	}
	defer closeEngine()
	x := &execution{Plan: p, env: env.withDefaults(), engine: engine}
	defer x.pending.abort() // a run that ends before its save leaves no temporary file
	x.test, x.testBody = p.testRequest()
	pre, cancelPre := untilClosed(ctx, x.env.Stop) // nothing is in flight yet
	defer cancelPre()
	if err := x.beforeRun(pre); err != nil {
		return nil, err
	}
	if err := x.awaitStart(ctx); err != nil {
		return nil, err
	}
	var before scrape
	if !x.stopped() { // a run stopped already sends nothing to count
		before = fetchMetrics(pre, x.api, x.clock.Seconds, x.env.Stderr)
		if !x.stopped() {
			x.noteNoMetrics(before)
		}
	}
	feed := x.startLive()
	mon := x.startMonitor(ctx, before, feed)
	bar := x.newBar()
	rampStart := isoformat(x.env.Now())
	probes := x.startProbes(ctx)
	cpu := startCPU()
	res := x.dispatch(ctx, bar, feed)
	cpu.stop()
	feed.end()
	x.applyTimeBounds(&res)
	r := ran{res: res, before: before, rampStart: rampStart, cpu: cpu}
	r.probe = probes.finish(res.interrupted)
	bar.finish()
	r.samples = mon.finish()
	// The run's connections are no longer needed: give their descriptors
	// back before the last scrape and the save.
	x.client.HTTP.CloseIdleConnections()
	closeEngine()
	return x.finish(ctx, r)
}

// beforeRun is what comes before the first request: the ready check, the
// warm-ups, the profiler's start, the announcement. After the first
// interrupt what is left of it is skipped and nil returned: the run then
// sends nothing and saves that.
func (x *execution) beforeRun(pre context.Context) error {
	if err := x.readyCheck(pre); err != nil && !x.stopped() {
		return err
	}
	if err := x.warmUp(pre); err != nil && !x.stopped() {
		return err
	}
	if x.stopped() {
		return nil
	}
	x.profile(pre, true)
	sayWrapped(x.out, x.loadLine())
	if l := x.durationLine(); l != "" {
		sayWrapped(x.out, l)
	}
	x.warnOpenFiles(fdlimit.Soft())
	return nil
}

// ran is what the measured phase leaves for the end of the run.
type ran struct {
	res       dispatchResult
	before    scrape
	samples   []diagnose.State
	probe     *metrics.Probe
	cpu       *cpuMeter
	rampStart string
}

// finish ends a run: the last scrape, the metrics, the optional stages,
// the printed block and the save. The stages that add to the result (the
// server's counters, gobench's figures, the per-turn table, the
// speculative-decoding figures, the server view) and the printed block run
// through optional or guard, so that none of them can lose the result; the
// profiler is stopped after the save, since nothing of it goes into the
// result.
func (x *execution) finish(ctx context.Context, r ran) (*Result, error) {
	post, cancelPost := x.afterRun(ctx)
	defer cancelPost()
	var after scrape
	if !x.optional(stageCounters, func() error { after = fetchMetrics(post(), x.api, x.clock.Seconds, x.env.Stderr); return nil }) {
		after = scrape{}
	}
	m, sentOffsets := x.measure(r.res, r.before, after)
	m.Probe = r.probe
	if !x.optional(stageFigures, func() error { x.gobenchFigures(m, r.res, r.cpu); return nil }) {
		x.steady, x.load = nil, nil
	}
	if !x.optional(stageTurns, func() error { x.turns = x.perTurn(r.res); return nil }) {
		x.turns = nil
	}
	var spec *report.SpecDecode
	if !x.optional(stageSpec, func() error { spec = specDecodeStats(r.before.spec, after.spec); return nil }) {
		spec = nil
	}
	var view *pyjson.Object
	if !x.optional(stageView, func() error { view = x.serverView(r.before, after, r.samples, m, spec); return encodes(view) }) {
		view = nil
	}
	blockErr := x.guard(stageBlock, func() error {
		return report.Block(x.env.Stderr, m, func() error {
			return x.env.Render(x.env.Stdout, Block{Metrics: m, Spec: spec, ModelID: x.ModelID, Label: x.Options.Label,
				ServerView: view, MultiTurn: x.turns, Steady: x.steady, Client: x.load, Details: x.Options.Details})
		})
	})
	result, err := x.save(m, spec, r.res, r.rampStart, sentOffsets, view)
	x.optional(stageProfile, func() error { x.profile(post(), false); return nil })
	if terr := checkTokenizer(x.Tokenizer, "counting output tokens"); terr != nil {
		fmt.Fprintf(x.env.Stderr, "WARNING: %v\n", terr)
	}
	switch {
	case err != nil:
		return result, err
	case blockErr != nil:
		return result, fmt.Errorf("print the result block: %w", blockErr)
	case r.res.interrupted:
		return result, ErrInterrupted
	case m.Completed == 0:
		return result, ErrAllFailed
	}
	if err := x.Options.checkFailedRatio(m); err != nil {
		return result, err
	}
	return result, nil
}

// stopped reports whether the first interrupt came.
func (x *execution) stopped() bool { return isClosed(x.env.Stop) }

// isClosed reports whether ch is closed (a nil ch never is).
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// untilClosed derives a context that ch's closing cancels too: what comes
// before the first request stops at the first interrupt.
func untilClosed(ctx context.Context, ch <-chan struct{}) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-ch:
			cancel()
		case <-c.Done():
		}
	}()
	return c, cancel
}

// afterRun returns a maker of contexts for the calls to the server after
// the run (its counters, the profiler's stop): the second interrupt, which
// cancelled the requests, does not cancel them; the third does; and from
// the first interrupt on, whenever it comes, each is bounded by
// afterInterrupt, so that saving never waits on a server that stopped
// answering.
func (x *execution) afterRun(ctx context.Context) (func() context.Context, context.CancelFunc) {
	base, cancel := context.WithCancel(context.WithoutCancel(ctx))
	go func() {
		select {
		case <-x.env.Abort:
			cancel()
		case <-base.Done():
		}
	}()
	stop := x.env.Stop
	next := func() context.Context {
		c, cancelCall := context.WithCancel(base)
		go func() {
			select {
			case <-stop:
			case <-c.Done():
				return
			}
			t := time.NewTimer(afterInterrupt)
			defer t.Stop()
			select {
			case <-t.C:
				cancelCall()
			case <-c.Done():
			}
		}()
		return c
	}
	return next, cancel
}

// readyCheck sends the test request until the endpoint answers, when
// --ready-check-timeout-sec asks for it.
func (x *execution) readyCheck(ctx context.Context) error {
	o := &x.Options
	if o.ReadyCheckTimeout <= 0 {
		return nil
	}
	fmt.Fprintf(x.out, "Ready check: sending the first request until the server answers it (at most %d s)...\n", int(o.ReadyCheckTimeout/time.Second))
	probe := testProbe(x.client, x.Backend.Impl, &x.test, x.testBody)
	if err := serverapi.WaitReady(ctx, probe, o.ReadyCheckTimeout, serverapi.ReadyInterval, x.env.Stderr); err != nil {
		return err
	}
	fmt.Fprintln(x.out, "Ready check: the server answered.")
	return nil
}

// warmUp sends --num-warmups copies of the test request and discards them.
func (x *execution) warmUp(ctx context.Context) error {
	o := &x.Options
	if o.NumWarmups <= 0 {
		return nil
	}
	fmt.Fprintf(x.out, "Warm-up: %d copies of the first request, not measured...\n", o.NumWarmups)
	bar := newProgress(x.env, *o, o.NumWarmups, 0, "warmup")
	err := warmUp(ctx, x.engine, x.Backend.Impl, &x.test, x.testBody, o.NumWarmups, x.inFlight, bar)
	bar.finish()
	if err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	fmt.Fprintln(x.out, "Warm-up done.")
	return nil
}

// profile starts (start true) or stops the server's profiler with
// --profile; a failure is a warning, as the run itself is still good.
func (x *execution) profile(ctx context.Context, start bool) {
	if !x.Options.Profile {
		return
	}
	doing, done, call := "stopping", "stopped", x.api.StopProfile
	if start {
		doing, done, call = "starting", "started", x.api.StartProfile
	}
	if err := call(ctx); err != nil {
		fmt.Fprintf(x.env.Stderr, "WARNING: %s the server's profiler failed: %v\n", doing, err)
		return
	}
	fmt.Fprintf(x.out, "The server's profiler %s.\n", done)
}

// dispatch sends the requests on the schedule.
func (x *execution) dispatch(ctx context.Context, bar *progress, feed *liveFeed) dispatchResult {
	if x.talks != nil {
		return x.converse(ctx, bar, feed)
	}
	o := &x.Options
	var sem *fifo
	if x.inFlight > 0 {
		sem = newFIFO(x.inFlight)
	}
	d := &dispatcher{client: x.engine, be: x.Backend.Impl, sem: sem, stop: x.env.Stop, grace: o.InterruptGrace,
		quick: x.env.Quick, progress: bar, live: feed, hold: x.hold, startAt: o.Shard.StartAt, wall: x.env.Now, duration: o.Duration}
	if o.Schedule.RampUp != nil {
		d.released = make([]time.Time, len(x.jobs))
	}
	return x.dispatchOn(ctx, d)
}

// measure computes the metrics over the requests that were sent (an
// interrupt leaves the rest out) and adds the warm-cache warning.
func (x *execution) measure(res dispatchResult, before, after scrape) (*metrics.Result, []float64) {
	o := &x.Options
	var outputs []metrics.Output
	var sentOffsets []float64
	for i, out := range res.outputs {
		if res.sent[i] {
			outputs = append(outputs, out)
			sentOffsets = append(sentOffsets, x.Offsets[i])
		}
	}
	if res.interrupted {
		fmt.Fprintf(x.env.Stderr, "Interrupted: reporting the %d of %d requests that were sent.\n", len(outputs), len(x.jobs))
	}
	cfg := metrics.Config{
		Goodput: o.Goodput, PercentileMetrics: o.PercentileMetricsOrDefault(), Percentiles: o.Percentiles,
		MaxConcurrency: o.MaxConcurrency, RequestRate: o.Schedule.RequestRate,
		ReportCachedTokens: o.ReportCachedTokens, Pooling: x.Backend.Task == backend.Pooling,
	}
	if tok := x.Tokenizer; tok != nil {
		cfg.CountTokens = func(s string) int { return len(tok.Encode(s, false)) }
	}
	m := metrics.Calculate(outputs, res.end-res.start, cfg)
	if res.interrupted && len(outputs) == 0 {
		// Nothing was sent: vLLM's "All requests failed ... misconfiguration"
		// would blame the command line for an interrupt.
		m.Warnings = slices.DeleteFunc(m.Warnings, func(w string) bool { return w == metrics.WarnAllFailed })
	}
	if w := usageWarning(outputs, x.Tokenizer); w != "" {
		m.Warnings = append(m.Warnings, w)
	}
	if w := warmPrefixCache(o.Dataset, before.prefix, after.prefix); w != "" {
		m.Warnings = append(m.Warnings, w)
	}
	return &m, sentOffsets
}
