package run

import (
	"errors"
	"fmt"
	"math"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyfmt"
	"github.com/gobench/gobench/internal/report"
)

// validateFailedRatio checks --max-failed-ratio: a share of the requests,
// from 0 (no failure allowed) to 1.
func (o *Options) validateFailedRatio() error {
	if r := o.MaxFailedRatio; r != nil && (math.IsNaN(*r) || *r < 0 || *r > 1) {
		return fmt.Errorf("argument --max-failed-ratio: must be a share of the requests from 0 to 1 (got %s)", pyfmt.Float(*r))
	}
	return nil
}

// checkFailedRatio is the run's error when its failed share exceeds
// --max-failed-ratio: vLLM exits 0 however many requests failed, which a
// CI job cannot tell from a good run, so the flag (off by default, keeping
// vLLM's status) makes such a run fail with exit status 3, as a run where
// every request failed does.
func (o *Options) checkFailedRatio(m *metrics.Result) error {
	total := m.Completed + m.Failed
	if o.MaxFailedRatio == nil || total == 0 {
		return nil
	}
	share := float64(m.Failed) / float64(total)
	if share <= *o.MaxFailedRatio {
		return nil
	}
	return exitcode.With(fmt.Errorf("%d of %d requests failed (%.1f %%), more than --max-failed-ratio %s: %w",
		m.Failed, total, 100*share, pyfmt.Float(*o.MaxFailedRatio), ErrTooManyFailed), exitcode.AllFailed)
}

// ErrTooManyFailed is wrapped by a run's error when its failed share
// exceeded --max-failed-ratio (exit status 3).
var ErrTooManyFailed = errors.New("too many requests failed")

// failuresExplainLag is the failed share from which the failures, not
// the client, are taken to explain a schedule lag: a server that dies
// mid-run fails most of the requests, and the dispatcher's time goes to
// connections that break or are refused.
const failuresExplainLag = 0.5

// lagWarning is the schedule-lag warning of a run (none when the lag was
// within bounds). When most requests failed, it does not blame the client
// (its machine, its cores): it says the failures came with the lag.
func lagWarning(load *metrics.ClientLoad, m *metrics.Result) string {
	w := load.Warning()
	total := m.Completed + m.Failed
	if w == "" || total == 0 || float64(m.Failed) < failuresExplainLag*float64(total) {
		return w
	}
	kinds := report.FailureKinds(m.Failures)
	return fmt.Sprintf("schedule lag p99 %.1f ms exceeds --schedule-lag-warn-ms %g, but %d of %d requests failed "+
		"(most: %s): the server failing, not the client, is the likely cause.",
		1000*load.LagPercentile(99), 1000*load.WarnLag, m.Failed, total, kinds[0].Kind)
}
