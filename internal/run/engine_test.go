package run

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/metrics"
	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/tokenizer"
)

// engineShape is what both client engines must agree on in one record:
// everything but the clock readings, with the number of gaps. Two
// transport error texts name the socket differently (net/http says "read
// tcp A->B: read: ...") and a read timeout may or may not have seen the
// bytes of a stall's last read, so those keep only their kind.
func engineShape(o metrics.Output) metrics.Output {
	o.StartTime, o.TTFT, o.Latency, o.ClientQueueTime = 0, 0, 0, 0
	o.ITL = make([]float64, len(o.ITL))
	switch {
	case strings.Contains(o.Error, "connection reset by peer"):
		o.Error = "connection reset by peer"
	case strings.HasPrefix(o.Error, "timed out: no "):
		o.Error = "timed out: no progress"
	}
	return o
}

// TestEnginesAgree runs the same plan against the simulator with each
// client engine, the simulator's faults striking the same requests, and
// checks the per-request records are the same.
func TestEnginesAgree(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the epoll engine is Linux-only")
	}
	var faults sim.Faults
	for kind, re := range map[sim.FaultKind]string{
		sim.FaultErrorEvent: "-1$", sim.FaultHTTP500: "-2$", sim.FaultMalformed: "-3$", sim.FaultSlowDrip: "-4$",
		sim.FaultNoDone: "-5$", sim.FaultReset: "-6$", sim.FaultStall: "-7$", sim.FaultNoUsage: "-8$", sim.FaultHTTP429: "-9$",
	} {
		faults.Set(kind, sim.FaultRule{Pattern: regexp.MustCompile(re)})
	}
	faults.StallFor, faults.DripEvery = 10*time.Second, time.Millisecond
	records := map[string][]metrics.Output{}
	for _, engine := range []string{EngineNetHTTP, EngineEpoll} {
		s, err := sim.NewServer(sim.Config{TTFT: 5 * time.Millisecond, ITL: 2 * time.Millisecond, Tokenizer: tokenizer.Builtin(),
			Root: tokenizer.BuiltinName, Faults: faults})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(s.Handler())
		t.Cleanup(srv.Close)
		o := baseOptions(srv.URL)
		o.NumPrompts, o.Dataset.NumPrompts, o.MaxConcurrency = 20, 20, 4
		// The stalled request waits this long; the others must never (300
		// ms was reached once by a request that was not stalled, on a
		// loaded 2-core machine under the race detector).
		o.ReadTimeout, o.ClientEngine = 2*time.Second, engine
		var b buffers
		res, err := Serve(context.Background(), o, b.env())
		if err != nil && exitcode.Of(err) != exitcode.AllFailed {
			t.Fatalf("%s: %v\n%s", engine, err, &b.err)
		}
		for _, out := range res.Metrics.Outputs {
			records[engine] = append(records[engine], engineShape(out))
		}
	}
	if diff := cmp.Diff(records[EngineNetHTTP], records[EngineEpoll]); diff != "" {
		t.Errorf("records (-net/http +epoll):\n%s", diff)
	}
	var failed int
	for _, out := range records[EngineEpoll] {
		if !out.Success {
			failed++
		}
	}
	if failed == 0 || failed == len(records[EngineEpoll]) {
		t.Errorf("%d of %d failed: the faults should strike some requests, not all", failed, len(records[EngineEpoll]))
	}
}

// TestEngineRefusals: the epoll engine refuses what it cannot do with a
// usage error, before anything is sent.
func TestEngineRefusals(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("elsewhere the epoll engine is refused for the platform first")
	}
	tests := []struct {
		name    string
		url     string
		backend string
		env     map[string]string
		want    string
	}{
		// TLS.
		{"https", "https://example.com", "openai", nil, "plain http only"},
		// A proxy that applies.
		{"proxy", "http://example.com:8000", "openai", map[string]string{"HTTP_PROXY": "http://proxy:3128"}, "HTTP_PROXY applies"},
		{"all proxy", "http://example.com:8000", "openai", map[string]string{"all_proxy": "socks5://p:1080"}, "all_proxy applies"},
		// A pooling backend.
		{"pooling", "http://127.0.0.1:8000", "openai-embeddings", nil, "streamed answers only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := baseOptions(tt.url)
			o.Backend, o.ClientEngine, o.Model = tt.backend, EngineEpoll, "m"
			var b buffers
			env := b.env()
			env.Getenv = func(k string) string { return tt.env[k] }
			_, err := NewPlan(context.Background(), o, env)
			if err == nil || !strings.Contains(err.Error(), tt.want) || exitcode.Of(err) != exitcode.BadUsage {
				t.Fatalf("NewPlan: %v (exit code %d), want a usage error saying %q", err, exitcode.Of(err), tt.want)
			}
		})
	}
}

func TestProxyFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		host string
		env  map[string]string
		want string
	}{
		// Loopback never goes through a proxy (net/http's rule).
		{"loopback", "127.0.0.1:8000", map[string]string{"HTTP_PROXY": "p"}, ""},
		{"localhost", "localhost:8000", map[string]string{"http_proxy": "p"}, ""},
		{"applies", "gpu1:8000", map[string]string{"http_proxy": "p"}, "http_proxy"},
		// NO_PROXY: a domain, a host with its port, another port, "*", a CIDR.
		{"no_proxy domain", "gpu1.lab:8000", map[string]string{"HTTP_PROXY": "p", "NO_PROXY": ".lab"}, ""},
		{"no_proxy host port", "gpu1:8000", map[string]string{"HTTP_PROXY": "p", "no_proxy": "gpu1:8000"}, ""},
		{"no_proxy other port", "gpu1:8000", map[string]string{"HTTP_PROXY": "p", "NO_PROXY": "gpu1:9000"}, "HTTP_PROXY"},
		{"no_proxy star", "gpu1:8000", map[string]string{"ALL_PROXY": "p", "NO_PROXY": "*"}, ""},
		{"no_proxy cidr", "10.1.2.3:8000", map[string]string{"HTTP_PROXY": "p", "NO_PROXY": "10.0.0.0/8"}, ""},
		{"none", "gpu1:8000", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := checkEngine(EngineEpoll, "http://"+tt.host+"/v1/completions", func(k string) string { return tt.env[k] })
			got := ""
			if err != nil {
				got = strings.Fields(strings.SplitAfter(err.Error(), "and ")[1])[0]
			}
			if got != tt.want {
				t.Errorf("proxy %q (%v), want %q", got, err, tt.want)
			}
		})
	}
}

// TestEngineInterruptCancel: with the epoll engine, the interrupt without
// grace cancels the requests in flight, which are recorded as cancelled,
// and the result file is still written (TestInterruptCancel's net/http
// run).
func TestEngineInterruptCancel(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the epoll engine is Linux-only")
	}
	srv, stop, _ := interruptAt(t, "bench-test-0", true)
	o := baseOptions(srv.URL)
	o.NumPrompts, o.Dataset.NumPrompts, o.Schedule.RequestRate = 50, 50, 50
	o.InterruptGrace, o.ClientEngine = 0, EngineEpoll
	o.SaveResult, o.ResultDir = true, t.TempDir()
	var b buffers
	env := b.env()
	env.Stop = stop
	res, err := Serve(context.Background(), o, env)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v", err)
	}
	if res.Metrics.Failed == 0 || !strings.HasPrefix(res.Metrics.Failures[0], "cancelled") {
		t.Errorf("failures %v", res.Metrics.Failures)
	}
	if _, err := os.Stat(res.File); err != nil {
		t.Error(err)
	}
}
