package cli

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"
)

// TestMetricsListenRefusesBadAddress: an address that is not host:port,
// or that cannot be listened on, is a usage error naming the flag, before
// anything is sent.
func TestMetricsListenRefusesBadAddress(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, addr := range []string{"9464", "localhost", busy.Addr().String()} {
		t.Run(addr, func(t *testing.T) {
			_, stderr, code := runMain(t, "serve", "--sim", "--num-prompts", "2", "--disable-tqdm", "--metrics-listen", addr)
			if code != 2 || !strings.Contains(stderr, "argument --metrics-listen") {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 2 naming --metrics-listen", code, stderr)
			}
		})
	}
}

// TestMetricsListenDuringServe: serve with --metrics-listen on port 0
// names the endpoint's address on stderr and runs as without it.
func TestMetricsListenDuringServe(t *testing.T) {
	stdout, stderr, code := runMain(t, "serve", "--sim", "--sim-ttft", "0.002", "--sim-itl", "0.001", "--num-prompts", "4",
		"--random-input-len", "16", "--random-output-len", "4", "--disable-tqdm", "--metrics-listen", "127.0.0.1:0")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "Live metrics for Prometheus at http://127.0.0.1:") {
		t.Errorf("the endpoint's address is not on stderr:\n%s", stderr)
	}
	if !strings.Contains(stdout, "Serving Benchmark Result") {
		t.Errorf("vLLM's block is missing:\n%s", stdout)
	}
}

// TestLiveViewNeedsRoom: stderr said to be a terminal whose size cannot
// be read (not a terminal's descriptor) gets the progress bar, not the
// live view, which would wrap on a terminal narrower than its frame.
func TestLiveViewNeedsRoom(t *testing.T) {
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"serve", "--sim", "--sim-ttft", "0.002", "--sim-itl", "0.001", "--num-prompts", "4",
		"--random-input-len", "16", "--random-output-len", "4"}, Deps{Stdout: &out, Stderr: &errOut, Version: "test", IsTerminal: true})
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, &errOut)
	}
	if s := errOut.String(); strings.Contains(s, "gobench serve · run") || !strings.Contains(s, "4/4") {
		t.Errorf("want the progress bar and no live view on stderr:\n%s", s)
	}
}

// TestMetricsListenInSLASearch: the search's serve line takes
// --metrics-listen too, the endpoint started once for every point (an
// address in use is refused before the first point).
func TestMetricsListenInSLASearch(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	_, stderr, code := runMain(t, "sweep", "sla", "--sla", "p99_ttft_ms<=200", "--output-dir", t.TempDir(),
		"--", "--sim", "--num-prompts", "10", "--metrics-listen", busy.Addr().String())
	if code != 2 || !strings.Contains(stderr, "argument --metrics-listen") || strings.Contains(stderr, "SLA point") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 naming --metrics-listen before any point", code, stderr)
	}
}

// TestMetricsListenInSweepServe: `sweep serve`'s bench command takes
// --metrics-listen, the endpoint started once for the whole sweep and not
// per run; an address in use is refused before the first run.
func TestMetricsListenInSweepServe(t *testing.T) {
	t.Parallel()
	srv, _ := sweepSim(t, nil)
	dir := t.TempDir()
	args := sweepArgs(t, srv.URL, dir)
	args[3] += " --metrics-listen 127.0.0.1:0"
	_, stderr, code := runMain(t, args...)
	if code != 0 || strings.Count(stderr, "Live metrics for Prometheus at") != 1 {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 0 and the endpoint started once for both runs", code, stderr)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	args = sweepArgs(t, srv.URL, t.TempDir())
	args[3] += " --metrics-listen " + busy.Addr().String()
	_, stderr, code = runMain(t, args...)
	if code != 2 || !strings.Contains(stderr, "argument --metrics-listen") || strings.Contains(stderr, "run=0") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 naming --metrics-listen before any run", code, stderr)
	}
}
