package run

import (
	"github.com/gobench/gobench/internal/diagnose"
	"github.com/gobench/gobench/internal/live"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/report"
)

// liveFeed tells Env.Live of the run's requests as they are released,
// sent and come back, from figures measured already: the request
// goroutines call it once per request, never per chunk. A nil *liveFeed
// is valid and does nothing.
type liveFeed struct{ run live.Run }

// startLive starts watching the main run; nil without Env.Live.
func (x *execution) startLive() *liveFeed {
	if x.env.Live == nil {
		return nil
	}
	o := &x.Options
	info := live.Info{Label: o.Label, Model: x.ModelID, Backend: x.Backend.Name, Total: len(x.jobs),
		RequestRate: o.Schedule.RequestRate, MaxConcurrency: o.MaxConcurrency, Duration: o.Duration}
	if x.talks == nil { // a conversation's turns are not on the schedule
		info.Offsets = x.Offsets
	}
	return &liveFeed{run: x.env.Live.Watch(info)}
}

// newBar is the main run's progress bar or lines, none when Env.Live
// draws a view on stderr in their place.
func (x *execution) newBar() *progress {
	if x.env.Live != nil && x.env.Live.Draws() {
		return nil
	}
	return newProgress(x.env, x.Options, len(x.jobs), x.Options.Duration, "")
}

// released tells of a request the schedule released lag seconds late.
func (f *liveFeed) released(lag float64) {
	if f != nil {
		f.run.Released(lag)
	}
}

// sent tells of a request being sent.
func (f *liveFeed) sent() {
	if f != nil {
		f.run.Sent()
	}
}

// finished tells of a request that came back, a failure with its kind
// (the result's failure_kinds).
func (f *liveFeed) finished(out *metrics.Output) {
	if f == nil {
		return
	}
	kind := ""
	if !out.Success {
		kind = report.KindOfFailure(out.Error)
	}
	f.run.Finished(out, kind)
}

// server tells of the server's state at a scrape of its /metrics.
func (f *liveFeed) server(st diagnose.State) {
	if f != nil {
		f.run.Server(st.Running, st.Waiting, st.KVMean)
	}
}

// end tells that the run's requests are done.
func (f *liveFeed) end() {
	if f != nil {
		f.run.End()
	}
}
