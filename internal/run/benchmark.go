package run

import (
	"context"
	"fmt"
	"time"

	"github.com/gobench/gobench/internal/backend"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/schedule"
	"github.com/gobench/gobench/internal/serverapi"
	"github.com/gobench/gobench/internal/tokenizer"
	"github.com/schollz/progressbar/v3"
)

// benchArgs is what benchmark needs from Serve's setup.
type benchArgs struct {
	opts        Options
	env         Env
	be          backend.Backend
	client      *backend.Client
	api         *serverapi.Client
	clock       *clock
	modelID     string
	tokenizerID string
	tok         tokenizer.Tokenizer
	jobs        []job
	arrivals    []schedule.Arrival
	offsets     []float64
}

// benchmark is vLLM's benchmark(): test request, warm-ups, profiler, the
// main run, metrics, the printed block and the result file.
func benchmark(ctx context.Context, a benchArgs) (*Result, error) {
	opts, out := a.opts, a.env.Stdout
	// The test request is request 0 without its request id.
	test := *a.jobs[0].req
	test.RequestID = ""
	testBody := a.be.Body(&test)
	fmt.Fprintln(out, "Starting initial single prompt test run...")
	if opts.ReadyCheckTimeout > 0 {
		fmt.Fprintf(out, "Waiting for endpoint to become up in %d seconds\n", int(opts.ReadyCheckTimeout/time.Second))
		err := serverapi.WaitReady(ctx, testProbe(a.client, a.be, &test, testBody), opts.ReadyCheckTimeout, serverapi.ReadyInterval, a.env.Stderr)
		if err != nil {
			return nil, err
		}
		fmt.Fprintln(out, "Initial test run completed.")
	} else {
		fmt.Fprintln(out, "Skipping endpoint ready check.")
	}

	if opts.NumWarmups > 0 {
		fmt.Fprintf(out, "Warming up with %d requests...\n", opts.NumWarmups)
		bar := newProgress(a.env, opts, opts.NumWarmups, "warmup")
		err := warmUp(ctx, a.client, a.be, &test, testBody, opts.NumWarmups, opts.MaxConcurrency, bar.add)
		bar.finish()
		if err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
		fmt.Fprintln(out, "Warmup run completed.")
	}
	fmt.Fprintln(out, "Starting main benchmark run...")

	if opts.Profile {
		fmt.Fprintln(out, "Starting profiler...")
		if err := a.api.StartProfile(ctx); err != nil {
			fmt.Fprintf(a.env.Stderr, "WARNING: starting the profiler failed: %v\n", err)
		} else {
			fmt.Fprintln(out, "Profiler started")
		}
	}

	if ru := opts.RampUp; ru != nil {
		fmt.Fprintf(out, "Traffic ramp-up strategy: %s.\n", ru.Strategy)
		fmt.Fprintf(out, "Will increase RPS from %d to %d RPS over the duration of the benchmark.\n", int(ru.StartRPS), int(ru.EndRPS))
	} else {
		fmt.Fprintf(out, "Traffic request rate: %s\n", describeRate(opts.RequestRate))
	}
	dist := "Gamma distribution"
	if opts.Burstiness == 1.0 {
		dist = "Poisson process"
	}
	fmt.Fprintf(out, "Burstiness factor: %s (%s)\n", describeRate(opts.Burstiness), dist)
	if opts.MaxConcurrency > 0 {
		fmt.Fprintf(out, "Maximum request concurrency: %d\n", opts.MaxConcurrency)
	} else {
		fmt.Fprintln(out, "Maximum request concurrency: None")
	}

	before := fetchMetrics(ctx, a.api)
	var sem *fifo
	if opts.MaxConcurrency > 0 {
		sem = newFIFO(opts.MaxConcurrency)
	}
	bar := newProgress(a.env, opts, len(a.jobs), "")
	rampStart := isoformat(a.env.Now())
	d := &dispatcher{client: a.client, be: a.be, sem: sem, stop: a.env.Stop, grace: opts.InterruptGrace, done: bar.add}
	if opts.RampUp != nil {
		d.released = make([]time.Time, len(a.jobs))
	}
	res := d.run(ctx, a.clock.Seconds, a.jobs, a.offsets)
	bar.finish()
	duration := res.end - res.start
	after := fetchMetrics(context.WithoutCancel(ctx), a.api)

	// Only requests that were sent count (an interrupt leaves the rest out).
	var outputs []metrics.Output
	var sentOffsets []float64
	for i, o := range res.outputs {
		if res.sent[i] {
			outputs = append(outputs, o)
			sentOffsets = append(sentOffsets, a.offsets[i])
		}
	}
	endReason := report.EndCompleted
	if res.interrupted {
		endReason = report.EndInterrupted
		fmt.Fprintf(out, "Interrupted: reporting the %d of %d requests that were sent.\n", len(outputs), len(a.jobs))
	}

	pm, ps, err := percentileKeys(opts)
	if err != nil {
		return nil, err
	}
	cfg := metrics.Config{
		Goodput: opts.Goodput, PercentileMetrics: pm, Percentiles: ps,
		MaxConcurrency: opts.MaxConcurrency, RequestRate: opts.RequestRate,
		ReportCachedTokens: opts.ReportCachedTokens,
	}
	if a.tok != nil {
		tok := a.tok
		cfg.CountTokens = func(s string) int { return len(tok.Encode(s, false)) }
	}
	m := metrics.Calculate(outputs, duration, cfg)
	if w := warmPrefixCache(opts.Dataset.Name, opts.Dataset.RandomPrefixLen, opts.Dataset.RandomInputLen, before.prefix, after.prefix); w != "" {
		m.Warnings = append(m.Warnings, w)
	}
	if err := report.Warnings(a.env.Stderr, &m); err != nil {
		return nil, err
	}
	if err := report.Failures(out, &m); err != nil {
		return nil, err
	}
	spec := specDecodeStats(before.spec, after.spec)
	block := a.env.BlockWriter
	if block == nil {
		block = out
	}
	if err := report.Text(block, &m, spec); err != nil {
		return nil, err
	}

	if opts.Profile {
		fmt.Fprintln(out, "Stopping profiler...")
		if err := a.api.StopProfile(context.WithoutCancel(ctx)); err != nil {
			fmt.Fprintf(a.env.Stderr, "WARNING: stopping the profiler failed: %v\n", err)
		} else {
			fmt.Fprintln(out, "Profiler stopped")
		}
	}

	result, err := saveResult(a, &m, spec, res, rampStart, sentOffsets, endReason)
	if err != nil {
		return result, err
	}
	switch {
	case res.interrupted:
		return result, ErrInterrupted
	case m.Completed == 0:
		return result, ErrAllFailed
	}
	return result, nil
}

// saveResult builds the result object and writes it when asked.
func saveResult(a benchArgs, m *metrics.Result, spec *report.SpecDecode, res dispatchResult, rampStart string, offsets []float64, endReason string) (*Result, error) {
	opts := a.opts
	meta, err := report.ParseMetadata(opts.Metadata)
	if err != nil {
		return nil, err
	}
	// vLLM stamps the result (and its file name) when the run is over.
	run := &report.Run{
		Date: report.DateString(a.env.Now()), Backend: opts.Backend, Label: opts.Label, ModelID: a.modelID,
		TokenizerID: a.tokenizerID, NumPrompts: opts.NumPrompts, Metadata: meta, Burstiness: opts.Burstiness,
		SpecDecode: spec, NumWarmups: opts.NumWarmups, SaveDetailed: opts.SaveDetailed,
		ScheduledOffsets: offsets, Version: a.env.Version, EndReason: endReason,
	}
	var ramp *report.RampUp
	if ru := opts.RampUp; ru != nil {
		ramp = &report.RampUp{Strategy: ru.Strategy, StartRPS: int(ru.StartRPS), EndRPS: int(ru.EndRPS)}
		run.RampUp = ramp
		run.RPSChangeEvents = rpsEvents(a.arrivals, ru.StartRPS, rampStart, res.released)
	}
	obj := report.ResultObject(m, run)
	result := &Result{Metrics: m, Object: obj, EndReason: endReason, Spec: spec}
	if !opts.SaveResult && !opts.AppendResult {
		return result, nil
	}
	path := report.Filename(report.FileOptions{
		Label: opts.Label, Backend: opts.Backend, ModelID: a.modelID, RequestRate: opts.RequestRate,
		MaxConcurrency: opts.MaxConcurrency, RampUp: ramp, Date: run.Date,
		ResultDir: opts.ResultDir, ResultFilename: opts.ResultFilename,
	})
	if err := report.WriteFile(path, obj, opts.AppendResult); err != nil {
		return result, fmt.Errorf("save result: %w", err)
	}
	result.File = path
	if a.env.Getenv != nil && a.env.Getenv("SAVE_TO_PYTORCH_BENCHMARK_FORMAT") != "" {
		args := opts.Args
		if args == nil {
			args = report.NewObject()
		}
		if err := report.WritePyTorch(report.PyTorchPath(path), report.PyTorchRecords(obj, args, opts.Model)); err != nil {
			return result, err
		}
	}
	return result, nil
}

// rpsEvents builds rps_change_events: the start rate at the run's start,
// then one event per integer rate reached, stamped with the wall time its
// request was released.
func rpsEvents(arrivals []schedule.Arrival, startRPS float64, start string, released []time.Time) []report.RPSChangeEvent {
	evs := []report.RPSChangeEvent{{RPS: int(startRPS), Timestamp: start}}
	for _, e := range schedule.RPSChangeEvents(arrivals, startRPS) {
		if e.Request < 0 {
			continue
		}
		if e.Request >= len(released) || released[e.Request].IsZero() {
			break // not released before an interrupt
		}
		evs = append(evs, report.RPSChangeEvent{RPS: e.RPS, Timestamp: isoformat(released[e.Request])})
	}
	return evs
}

// progress is vLLM's tqdm bar on stderr (schollz/progressbar, throttled so
// that request goroutines never wait on the terminal), or nothing when
// stderr is not a terminal or --disable-tqdm is given. A nil *progress is
// valid and does nothing.
type progress struct{ bar *progressbar.ProgressBar }

func newProgress(env Env, opts Options, total int, desc string) *progress {
	if !env.Progress || opts.DisableProgress {
		return nil
	}
	return &progress{bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(env.Stderr),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionThrottle(65*time.Millisecond),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("req"),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(env.Stderr) }),
	)}
}

// add counts one finished request.
func (p *progress) add() {
	if p != nil {
		_ = p.bar.Add(1)
	}
}

// finish completes the bar (an interrupted run stops it where it is).
func (p *progress) finish() {
	if p != nil {
		_ = p.bar.Exit()
	}
}
