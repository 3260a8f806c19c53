package cli

import (
	"context"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// asGobench makes the test binary run as gobench (TestMain), so that a
// test can start `gobench sim` as a server process without building the
// binary.
const asGobench = "GOBENCH_CLI_TEST_AS_GOBENCH"

// TestMain runs the tests, or, with asGobench set, is gobench itself.
func TestMain(m *testing.M) {
	if os.Getenv(asGobench) == "1" {
		runAsGobench()
	}
	m.Run()
}

// runAsGobench is cmd/gobench's main, in the test binary.
//
//nolint:forbidigo // the test binary acting as cmd/gobench talks to the process
func runAsGobench() {
	sigs := make(chan os.Signal, 3)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	os.Exit(Main(context.Background(), os.Args[1:], Deps{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Signals: sigs}))
}

// freePort is a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestSweepServeCmd runs a sweep whose --serve-cmd is `gobench sim` (the
// test binary under the name gobench): one server per serve combination,
// each health-checked, its caches reset after every run (gobench serves
// vLLM's reset endpoints), stopped with SIGTERM, its output kept.
func TestSweepServeCmd(t *testing.T) {
	t.Setenv(asGobench, "1") // inherited by the server; this process has started already
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "gobench")
	if err := os.Symlink(self, bin); err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(freePort(t))
	serve := filepath.Join(dir, "serve.json")
	if err := os.WriteFile(serve, []byte(`[{"max_num_seqs": 2}, {"max_num_seqs": 8}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runMain(t, "sweep", "serve", "--serve-cmd", bin+" sim --port "+port+" --preset 8b-1gpu --disable-log-stats",
		"--bench-cmd", "gobench serve --base-url http://127.0.0.1:"+port+" --num-prompts 6 --random-input-len 16 --random-output-len 4",
		"--serve-params", serve, "--num-runs", "2", "-o", dir, "-e", "exp")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	exp := filepath.Join(dir, "exp")
	if runs := plotRuns(t, exp); len(runs) != 4 {
		t.Errorf("%d runs, want 2 combinations × 2 runs", len(runs))
	}
	for _, name := range []string{"max_num_seqs=2", "max_num_seqs=8"} {
		log, err := os.ReadFile(filepath.Join(exp, "SERVE-"+name+"-server.log"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"--max-num-seqs " + strings.TrimPrefix(name, "max_num_seqs="), "POST /reset_prefix_cache: prefix cache reset", "SIGTERM"} {
			if !strings.Contains(string(log), want) {
				t.Errorf("the server log of %s lacks %q:\n%s", name, want, log)
			}
		}
	}
	if strings.Count(errOut, "Resetting caches at http://localhost:"+port) != 4 {
		t.Errorf("want a cache reset after each of the 4 runs:\n%s", errOut)
	}
	if !strings.Contains(out, "max_num_seqs=8 run=1") {
		t.Errorf("stdout:\n%s", out)
	}
}
