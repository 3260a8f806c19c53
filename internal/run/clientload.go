package run

import (
	"fmt"
	"math"

	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/pyfmt"
)

// validateLagWarn checks --schedule-lag-warn-ms.
func (o *Options) validateLagWarn() error {
	if v := o.ScheduleLagWarnMS; math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return fmt.Errorf("argument --schedule-lag-warn-ms: must be a number of milliseconds, 0 or more (got %s)", pyfmt.Float(v))
	}
	return nil
}

// cpuMeter measures the process's CPU time over the dispatch: read before
// the first request and after the last one finished, off the hot path.
type cpuMeter struct {
	start, used float64
	ok          bool
}

// startCPU reads the process's CPU time at the start of the run.
func startCPU() *cpuMeter {
	s, ok := processCPU()
	return &cpuMeter{start: s, ok: ok}
}

// stop reads it again at the end of the run.
func (c *cpuMeter) stop() {
	end, ok := processCPU()
	c.used, c.ok = end-c.start, c.ok && ok
}

// gobenchFigures computes gobench's figures beside vLLM's: the steady
// state of a generation run, and the client's load (schedule lags of the
// requests sent, CPU share) when the dispatcher recorded lags (not for
// --multi-turn, whose turns leave after answers, not on a schedule). A
// client whose lag's p99 exceeds --schedule-lag-warn-ms adds a warning to
// m, printed with vLLM's warnings (lagWarning: failures can explain it).
func (x *execution) gobenchFigures(m *metrics.Result, res dispatchResult, cpu *cpuMeter) {
	if !m.Pooling {
		x.steady = metrics.Steady(m)
	}
	if res.lags == nil {
		return
	}
	var lags []float64
	for i, sent := range res.sent {
		if sent {
			lags = append(lags, res.lags[i])
		}
	}
	x.load = &metrics.ClientLoad{Lags: lags, CPUSeconds: cpu.used, WallSeconds: res.end - res.start, CPUKnown: cpu.ok,
		WarnLag: x.Options.ScheduleLagWarnMS / 1000}
	if w := lagWarning(x.load, m); w != "" {
		m.Warnings = append(m.Warnings, w)
	}
}
