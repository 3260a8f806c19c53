package cli

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/testserver"
)

// Tests whose figures are timings of the simulator (rates, concurrency,
// queue and prefill times, verdicts) run gobench and the simulator in a
// testing/synctest bubble over an in-memory network: time moves only when
// every goroutine waits, so each interval is the simulator's configured
// one, however loaded the machine is.

// bubbleURL is the base URL gobench serve is given in a bubble; every
// connection goes to the in-memory listener, whatever the URL says.
const bubbleURL = "http://127.0.0.1:1"

// serveInBubble serves srv on ln in the background; the function it
// returns stops the server and returns Serve's error.
func serveInBubble(srv *sim.Server, ln *testserver.PipeListener) func() error {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	return func() error {
		cancel()
		return <-done
	}
}

// pipeTransport is Deps.Transport dialling ln.
func pipeTransport(ln *testserver.PipeListener) func(int, bool) http.RoundTripper {
	return func(maxConns int, _ bool) http.RoundTripper { return ln.Transport(maxConns) }
}

// runSimInBubble runs gobench with args, a `serve --sim` command line, in
// a synctest bubble: the simulator serve starts listens in memory, and
// every connection gobench makes goes to it.
func runSimInBubble(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		ln := testserver.NewPipeListener()
		var out, errOut bytes.Buffer
		deps := Deps{Stdout: &out, Stderr: &errOut, Version: "test", Transport: pipeTransport(ln),
			SimListen: func(context.Context, string, string) (net.Listener, error) { return ln, nil }}
		code = Main(context.Background(), args, deps)
		stdout, stderr = out.String(), errOut.String()
	})
	return stdout, stderr, code
}
