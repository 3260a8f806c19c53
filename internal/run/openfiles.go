package run

import (
	"fmt"
	"math"

	"github.com/gobench/gobench/internal/fdlimit"
)

// openFilesReserve is what a run needs open besides its connections: the
// standard streams, the result's temporary file and directory, the side
// endpoints' connections, the runtime's poller.
const openFilesReserve = 32

// inProcessConns is the most connections a run may hold when the server
// runs in this process, under an open-file limit of limit: each holds a
// descriptor at both ends, and a server out of descriptors cannot accept
// the connections the client goes on opening, whose requests would then
// wait for answers that never come. 0 means no bound (the limit is unknown,
// or larger than any run). A limit too small for even one connection is an
// error that says what to do.
func inProcessConns(limit uint64) (int, error) {
	if limit == 0 || limit > math.MaxInt32 {
		return 0, nil
	}
	n := (int(limit) - openFilesReserve) / 2
	if n < 1 {
		return 0, fmt.Errorf("--sim runs the simulator in this process, which may open only %d files (ulimit -n): "+
			"the simulator and the client need at least %d together; raise the limit (ulimit -n 4096)", limit, openFilesReserve+2)
	}
	return n, nil
}

// limitConnections sets the run's bound on the requests in flight:
// --max-concurrency, lowered to inProcessConns when the server runs in
// this process (Env.ServerInProcess) and the run could hold more
// connections than the open-file limit leaves for both ends.
func (p *Plan) limitConnections(env Env) error {
	o := &p.Options
	p.inFlight = o.MaxConcurrency
	if !env.ServerInProcess {
		return nil
	}
	n, err := inProcessConns(fdlimit.Soft())
	if err != nil || n == 0 {
		return err
	}
	// The requests (or warm-ups) may never be that many: then nothing
	// changes, the connection pool included.
	many := o.NumPrompts <= 0 || max(o.NumPrompts, o.NumWarmups) > n
	if (p.inFlight == 0 || p.inFlight > n) && many {
		p.inFlight, p.fdBound = n, true
	}
	return nil
}

// warnOpenFiles warns when the run may hold more connections than the
// open-file limit allows: the requests beyond it fail with "too many open
// files" (they are counted, and the result is still saved). When the
// server runs in this process and limitConnections lowered the bound, it
// says that instead.
func (x *execution) warnOpenFiles(limit uint64) {
	o := &x.Options
	if x.fdBound {
		fmt.Fprintf(x.env.Stderr, "WARNING: the simulator runs in this process, which may open only %d files (ulimit -n), "+
			"and every connection holds one at each end: at most %d requests are sent at once, the others wait for a slot "+
			"as with --max-concurrency %d (the wait is client queue time). Raise the limit (ulimit -n %d) to send more at once.\n",
			limit, x.inFlight, x.inFlight, 2*x.wanted()+openFilesReserve)
		return
	}
	conns, why := len(x.jobs), "every request at once: --request-rate inf and no --max-concurrency"
	switch {
	case o.MaxConcurrency > 0 && o.MaxConcurrency < conns:
		conns, why = o.MaxConcurrency, fmt.Sprintf("--max-concurrency %d", o.MaxConcurrency)
	case !math.IsInf(o.Schedule.RequestRate, 1):
		return // how many overlap depends on the server's latency
	case o.MaxConcurrency > 0:
		why = fmt.Sprintf("every request at once: --request-rate inf, and --max-concurrency %d is not below the %d requests",
			o.MaxConcurrency, conns)
	}
	if limit == 0 || uint64(conns)+openFilesReserve <= limit {
		return
	}
	fmt.Fprintf(x.env.Stderr, "WARNING: the run may hold %d connections (%s), but this process may open only %d files "+
		"(ulimit -n): requests beyond about %d at once will fail with \"too many open files\". "+
		"Raise the limit (ulimit -n) or lower --max-concurrency.\n",
		conns, why, limit, max(int64(limit)-openFilesReserve, 0))
}

// wanted is how many requests the run would have in flight at most
// without the open-file bound: every request, or as many warm-ups as go
// at once, within --max-concurrency.
func (x *execution) wanted() int {
	o := &x.Options
	if o.MaxConcurrency > 0 {
		return min(max(len(x.jobs), o.NumWarmups), o.MaxConcurrency)
	}
	return max(len(x.jobs), min(o.NumWarmups, warmUpPool))
}

// conversationSlots is the most conversations open at once
// (conversationLimit), within the run's bound on requests in flight: a
// conversation has one request in flight at a time.
func (x *execution) conversationSlots() int {
	n := x.Options.conversationLimit()
	if x.fdBound && (n == 0 || n > x.inFlight) {
		return x.inFlight
	}
	return n
}
