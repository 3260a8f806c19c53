package run

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gobench/gobench/internal/dataset"
	"github.com/gobench/gobench/internal/diagnose"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/serverview"
)

// monitor samples the server's state gauges (running, waiting, KV-cache
// usage) during the run. It has its own connection, so that it never
// takes one of the requests' (--max-concurrency bounds their pool), and
// touches nothing the requests use.
type monitor struct {
	cancel  context.CancelFunc
	done    chan struct{}
	samples []diagnose.State
}

// startMonitor starts sampling every --metrics-interval when the server
// view is on and the first scrape found a /metrics page; nil otherwise.
// Each sample goes to feed too (the live view's server gauges).
func (x *execution) startMonitor(ctx context.Context, before scrape, feed *liveFeed) *monitor {
	o := &x.Options
	if o.NoServerMetrics || before.text == nil || o.MetricsInterval <= 0 {
		return nil
	}
	api := *x.api
	api.HTTP = &http.Client{Transport: x.env.Transport(1, o.Insecure)}
	api.MetricsTimeout = min(o.MetricsInterval, 10*time.Second)
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	m := &monitor{cancel: cancel, done: make(chan struct{})}
	model := x.servedModel()
	go func() {
		defer close(m.done)
		tick := time.NewTicker(o.MetricsInterval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			page, err := api.Metrics(ctx)
			if err != nil {
				continue // one missed sample; the run's own scrapes decide
			}
			if st, err := diagnose.StateOf([][]byte{page}, model, x.clock.Seconds()-before.at); err == nil {
				m.samples = append(m.samples, st)
				feed.server(st)
			}
		}
	}()
	return m
}

// finish stops the sampling (a scrape in flight is cancelled) and returns
// the samples; nil for a nil monitor.
func (m *monitor) finish() []diagnose.State {
	if m == nil {
		return nil
	}
	m.cancel()
	<-m.done
	return m.samples
}

// noteNoMetrics says once, before the run, that the server view is off
// because the first scrape found no /metrics page (a timeout already
// warned).
func (x *execution) noteNoMetrics(before scrape) {
	if x.Options.NoServerMetrics || before.err == nil {
		return
	}
	var te interface{ Timeout() bool }
	if errors.As(before.err, &te) && te.Timeout() {
		return
	}
	fmt.Fprintf(x.out, "Server view: off for this run: %v (--no-server-metrics skips the scrapes).\n", before.err)
}

// serverView diagnoses the run from the scrapes before and after it and
// the samples in between, and puts the server's figures beside the
// client's (package serverview); nil when the view is off or the server
// had no /metrics. A page that does not parse, or a model the server does
// not label, costs the view, never the run: it is said on stderr.
func (x *execution) serverView(before, after scrape, samples []diagnose.State, m *metrics.Result, spec *report.SpecDecode) *pyjson.Object {
	o := &x.Options
	if o.NoServerMetrics || before.text == nil || after.text == nil {
		return nil
	}
	in := diagnose.Input{Sources: []string{x.api.URL("/metrics")}, Start: [][]byte{before.text}, End: [][]byte{after.text},
		Seconds: after.at - before.at, States: samples}
	opts := diagnose.DefaultOptions()
	opts.Model, opts.MaxNumSeqs, opts.MaxNumSeqsFlag = x.servedModel(), o.ServerMaxNumSeqs, "--server-max-num-seqs"
	opts.Thresholds.ExpectedPrefixHitRate = expectedPrefixHitRate(o)
	rep, err := diagnose.FromScrapes(in, opts)
	if me := (*diagnose.ModelError)(nil); errors.As(err, &me) {
		// A LoRA or an alias the server labels otherwise: read the only
		// model it serves, if there is one. A server whose metrics carry
		// no model label at all (llama.cpp serves one model) needs no note.
		opts.Model = ""
		if len(me.Served) > 0 {
			in.Notes = append(in.Notes, fmt.Sprintf("the server labels no model %q: its figures are read without the model filter", x.servedModel()))
		}
		rep, err = diagnose.FromScrapes(in, opts)
	}
	if err != nil {
		fmt.Fprintf(x.out, "Server view: none: %v\n", err)
		return nil
	}
	c := serverview.Client{Result: m, MaxConcurrency: o.MaxConcurrency}
	if spec != nil {
		c.SpecAcceptanceLength = spec.AcceptanceLength
	}
	return serverview.Build(rep, c, samples)
}

// expectedPrefixHitRate is what the prefix cache should hit for this
// run's workload, as far as its dataset says (dataset.Spec.SharedPrefix):
// prompts that share P of their T tokens and are otherwise fresh (the
// random dataset's --random-prefix-len before --random-input-len) should
// be served at least 80 % of P/T from the cache (the first request of each
// prefix misses, and the cache works in whole blocks). 0 (not known) for
// the other workloads: the diagnosis then does not judge the hit rate.
func expectedPrefixHitRate(o *Options) float64 {
	shared, prompt, ok := sharedPrefix(o.Dataset)
	if !ok || shared <= 0 {
		return 0
	}
	return 0.8 * float64(shared) / float64(prompt)
}

// sharedPrefix is how many of each prompt's tokens (prompt) the others
// share (shared), as the dataset's Spec says; ok is false when it does not
// say.
func sharedPrefix(d dataset.Options) (shared, prompt int, ok bool) {
	spec, err := dataset.Lookup(d.Name)
	if err != nil || spec.SharedPrefix == nil {
		return 0, 0, false
	}
	shared, prompt = spec.SharedPrefix(d)
	return shared, prompt, true
}
