package resultkey

// Keys of the gobench_steady_state object (GobenchSteadyState), in its
// order (internal/report/doc.go describes each). The latency statistics
// follow them under the result's own statistic keys (StatKey: mean_ttft_ms,
// p99_e2el_ms, ...) for the ttft, tpot, itl and e2el sections the run
// reports, over the requests inside the window.
const (
	// SteadyFound says whether a window was found; SteadyReason says why
	// not (only when it was not).
	SteadyFound  = "found"
	SteadyReason = "reason"
	// SteadyTargetConcurrency is the plateau's concurrency; SteadyTargetFrom
	// says where it came from: SteadyFromMaxConcurrency or SteadyFromTopLevel.
	SteadyTargetConcurrency = "target_concurrency"
	SteadyTargetFrom        = "target_from"
	// SteadyThreshold is the share of the target that opens the window
	// (0.95), SteadyThresholdConcurrency the level it gives.
	SteadyThreshold            = "threshold"
	SteadyThresholdConcurrency = "threshold_concurrency"
	// SteadyStartS and SteadyEndS bound the window in seconds from the
	// run's first request start; SteadyDurationS is its length.
	SteadyStartS    = "start_s"
	SteadyEndS      = "end_s"
	SteadyDurationS = "duration_s"
	// SteadyRequestsStarted, SteadyRequestsCompleted and
	// SteadyRequestsInside count the successful requests started in the
	// window, ended in it, and lived wholly inside it.
	SteadyRequestsStarted   = "requests_started"
	SteadyRequestsCompleted = "requests_completed"
	SteadyRequestsInside    = "requests_inside"
	// The window's throughputs, named as the run's.
	SteadyRequestThroughput    = RequestThroughput
	SteadyInputThroughput      = "input_throughput"
	SteadyOutputThroughput     = OutputThroughput
	SteadyTotalTokenThroughput = TotalTokenThroughput
)

// Values of SteadyTargetFrom.
const (
	// SteadyFromMaxConcurrency: the target is --max-concurrency, which
	// the run reached (a closed loop).
	SteadyFromMaxConcurrency = "max_concurrency"
	// SteadyFromTopLevel: the target is the highest concurrency held 10 %
	// of the active time (an open loop).
	SteadyFromTopLevel = "top_level"
)

// Keys of the gobench_client object (GobenchClient), in its order.
const (
	// ClientLagP50MS, ClientLagP99MS and ClientLagMaxMS are the schedule
	// lag's median, 99th percentile and maximum in milliseconds.
	ClientLagP50MS = "schedule_lag_p50_ms"
	ClientLagP99MS = "schedule_lag_p99_ms"
	ClientLagMaxMS = "schedule_lag_max_ms"
	// ClientLagWarnMS is --schedule-lag-warn-ms.
	ClientLagWarnMS = "schedule_lag_warn_ms"
	// ClientBottleneck is true when the lag's p99 exceeded it: the client
	// may have been the bottleneck.
	ClientBottleneck = "client_may_be_bottleneck"
	// ClientCPUSeconds is the process's CPU time over the run (null where
	// unknown), ClientWallSeconds the run's length, ClientCPUShare their
	// ratio (1 = one core busy throughout; null where unknown).
	ClientCPUSeconds  = "cpu_seconds"
	ClientWallSeconds = "wall_seconds"
	ClientCPUShare    = "cpu_share"
)

// Keys of each element of the failure_kinds list (FailureKinds), in its
// order.
const (
	// FailureKind names the kind ("connection refused", "HTTP 503", ...).
	FailureKind = "kind"
	// FailureCount is the number of failed requests of the kind.
	FailureCount = "count"
	// FailureExample is the first error text of the kind, verbatim.
	FailureExample = "example"
)
