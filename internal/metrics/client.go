package metrics

import (
	"fmt"
	"slices"
)

// DefaultScheduleLagWarn is --schedule-lag-warn-ms's default, in seconds.
// 10 ms is one inter-arrival gap at 100 req/s and a fifth of a fast
// server's TTFT: when one request in a hundred leaves that late, the load
// the server saw is visibly not the configured one (bursts where Poisson
// gaps were due). A client with a core to itself stays far below it:
// gobench's dispatcher spends microseconds per release, and Go's timers
// wake within about a millisecond (the p50 lag is ~0.6 ms); what crosses
// 10 ms is a process waiting for a CPU (measured on the project's 2-core
// VM shared with other jobs, load average 6: p99 12-55 ms with gobench
// itself at 2-7 % of a core).
const DefaultScheduleLagWarn = 0.010

// ClientLoad is what a run measured of its own client: how late each
// request left the dispatcher against its schedule, and the process's CPU
// time over the run. gobench's addition: no peer reports it, and a client
// that cannot keep up makes the server look slower than it is.
type ClientLoad struct {
	// Lags are the schedule lags in seconds, one per request sent, in the
	// order of the result's per-request lists: the clock reading when the
	// dispatcher released the request minus the instant it was due (the
	// run's start + its offset). The wait for a --max-concurrency slot
	// comes after the release and is the client queue time, not lag.
	Lags []float64
	// CPUSeconds is the process's CPU time (user + system) over the run
	// and WallSeconds the run's length; CPUKnown is false where the
	// platform has no getrusage.
	CPUSeconds, WallSeconds float64
	CPUKnown                bool
	// WarnLag is the p99 lag above which the client is reported as a
	// possible bottleneck (seconds, --schedule-lag-warn-ms).
	WarnLag float64
}

// LagPercentile is the lag's percentile p (0..100) in seconds, NumPy's
// linear percentile; 0 without requests.
func (c *ClientLoad) LagPercentile(p float64) float64 { return Percentile(c.Lags, p) }

// LagMax is the largest lag in seconds, 0 without requests.
func (c *ClientLoad) LagMax() float64 {
	if len(c.Lags) == 0 {
		return 0
	}
	return slices.Max(c.Lags)
}

// CPUShare is the CPU time per second of the run (1 = one core busy the
// whole run), 0 when unknown.
func (c *ClientLoad) CPUShare() float64 {
	if !c.CPUKnown || !(c.WallSeconds > 0) {
		return 0
	}
	return c.CPUSeconds / c.WallSeconds
}

// minLagSamples is the number of requests below which a p99 is the
// maximum of a handful: one late timer or GC pause would make it.
const minLagSamples = 100

// Bottleneck reports whether the lag's p99 exceeds WarnLag. Below
// minLagSamples requests the median must exceed it too, so that one late
// release in a short run (a p99 of six lags is their maximum) is not taken
// for a client that could not keep up.
func (c *ClientLoad) Bottleneck() bool {
	if c.LagPercentile(99) <= c.WarnLag {
		return false
	}
	return len(c.Lags) >= minLagSamples || c.LagPercentile(50) > c.WarnLag
}

// Warning is the warning of a client that may have been the bottleneck,
// "" when its lag's p99 is within WarnLag.
func (c *ClientLoad) Warning() string {
	if !c.Bottleneck() {
		return ""
	}
	why := "Use a less busy machine, a lower --request-rate or several clients."
	switch {
	case !c.CPUKnown:
	case c.CPUShare() < busyShare:
		why = fmt.Sprintf("gobench itself used %.0f %% of one core: the machine was busy with other work or "+
			"CPU-limited (a container quota). Use a quieter machine.", 100*c.CPUShare())
	default:
		why = fmt.Sprintf("gobench used %.0f %% of one core. Use more cores, a lower --request-rate or several "+
			"clients.", 100*c.CPUShare())
	}
	return fmt.Sprintf("schedule lag p99 %.1f ms exceeds --schedule-lag-warn-ms %g: the client released requests "+
		"later than their schedule, so the server saw less load than configured; the client may have been the "+
		"bottleneck. %s", 1000*c.LagPercentile(99), 1000*c.WarnLag, why)
}

// busyShare is the CPU share (half a core) below which a late client is
// not late for its own work: its process was mostly waiting for a CPU.
const busyShare = 0.5
