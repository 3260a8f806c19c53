package run

import (
	"fmt"
	"time"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/pyjson"
	"github.com/gobench/gobench/internal/report"
	"github.com/gobench/gobench/internal/schedule"
)

// save builds the result object and writes it when asked (--save-result,
// --append-result), with the PyTorch benchmark records when
// SAVE_TO_PYTORCH_BENCHMARK_FORMAT is set.
func (x *execution) save(m *metrics.Result, spec *report.SpecDecode, res dispatchResult, rampStart string, offsets []float64) (*Result, error) {
	o := &x.Options
	endReason := report.EndCompleted
	if res.interrupted {
		endReason = report.EndInterrupted
	}
	// vLLM stamps the result (and its file name) when the run is over.
	run := &report.Run{
		Date: report.DateString(x.env.Now()), Backend: o.Backend, Label: o.Label, ModelID: x.ModelID,
		TokenizerID: x.TokenizerID, NumPrompts: o.NumPrompts, Metadata: o.Metadata, Burstiness: o.Schedule.Burstiness,
		SpecDecode: spec, NumWarmups: o.NumWarmups, SaveDetailed: o.SaveDetailed,
		ScheduledOffsets: offsets, Version: x.env.Version, EndReason: endReason,
	}
	var ramp *report.RampUp
	if ru := o.Schedule.RampUp; ru != nil {
		ramp = &report.RampUp{Strategy: ru.Strategy, StartRPS: int(ru.StartRPS), EndRPS: int(ru.EndRPS)}
		run.RampUp = ramp
		run.RPSChangeEvents = rpsEvents(x.Arrivals, ru.StartRPS, rampStart, res.released)
	}
	obj := report.ResultObject(m, run)
	result := &Result{Metrics: m, Object: obj, EndReason: endReason, Spec: spec}
	if !o.SaveResult && !o.AppendResult {
		return result, nil
	}
	path := report.Filename(report.FileOptions{
		Label: o.Label, Backend: o.Backend, ModelID: x.ModelID, RequestRate: o.Schedule.RequestRate,
		MaxConcurrency: o.MaxConcurrency, RampUp: ramp, Date: run.Date,
		ResultDir: o.ResultDir, ResultFilename: o.ResultFilename,
	})
	if err := report.WriteFile(path, obj, o.AppendResult); err != nil {
		return result, fmt.Errorf("save result: %w", err)
	}
	result.File = path
	if x.env.Getenv("SAVE_TO_PYTORCH_BENCHMARK_FORMAT") != "" {
		args := o.Args
		if args == nil {
			args = pyjson.NewObject()
		}
		if err := report.WritePyTorch(report.PyTorchPath(path), report.PyTorchRecords(obj, args, o.Model)); err != nil {
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

// clock reads seconds on the monotonic clock since the run began, as
// vLLM's time.perf_counter() does (arbitrary epoch, one per run).
type clock struct{ epoch time.Time }

func newClock() *clock { return &clock{epoch: time.Now()} }

// Seconds returns the seconds elapsed since the clock was made.
func (c *clock) Seconds() float64 { return time.Since(c.epoch).Seconds() }

// isoformat is Python's datetime.isoformat() of a naive local time:
// microseconds only when non-zero.
func isoformat(t time.Time) string {
	s := t.Format("2006-01-02T15:04:05")
	if us := t.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	return s
}

// describeRate prints a Python float (inf, 10.0).
func describeRate(r float64) string { return pyfmt.Float(r) }
