package sweep

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gobench/gobench/internal/serverapi"
)

// server is the process of --serve-cmd for one serve combination (vLLM's
// ServerProcess, vllm/benchmarks/sweep/server.py@11dfa3169): started in a
// process group of its own, its output appended to a log file in the
// experiment folder, stopped with SIGTERM to the whole group (API server
// and engine processes) and, after a grace, SIGKILL.
type server struct {
	argv    []string
	logPath string
	cmd     *exec.Cmd
	log     *os.File
	done    chan struct{} // closed once the process has exited
	waitErr error         // the process's exit, once done is closed
	env     *Env
}

// logHeader starts the line the sweep writes at the top of a server's log
// (a restarted server appends another).
const logHeader = "# gobench sweep: "

// startServer starts argv with VLLM_SERVER_DEV_MODE=1 (which vLLM needs
// for the cache resets), its standard output and error appended to
// logPath.
func startServer(argv []string, logPath string, env *Env) (*server, error) {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("server log: %w", err)
	}
	fmt.Fprintf(log, "%s%s, started %s\n", logHeader, strings.Join(argv, " "), env.now().UTC().Format(time.RFC3339))
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(cmd.Environ(), "VLLM_SERVER_DEV_MODE=1")
	newProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("start the server %q: %w", argv[0], err)
	}
	s := &server{argv: argv, logPath: logPath, cmd: cmd, log: log, done: make(chan struct{}), env: env}
	go func() {
		s.waitErr = cmd.Wait()
		close(s.done)
	}()
	return s, nil
}

// address is the server's base URL from its command line, as vLLM reads
// it: --host (default localhost) and -p or --port (default 8000, vllm
// serve's); --host=H and --port=P are read too.
func (s *server) address() string {
	host, port := "localhost", "8000"
	for i, a := range s.argv {
		next := func() string {
			if i+1 < len(s.argv) {
				return s.argv[i+1]
			}
			return ""
		}
		switch {
		case a == "--host":
			host = next()
		case strings.HasPrefix(a, "--host="):
			host = strings.TrimPrefix(a, "--host=")
		case a == "-p" || a == "--port":
			port = next()
		case strings.HasPrefix(a, "--port="):
			port = strings.TrimPrefix(a, "--port=")
		}
	}
	return "http://" + host + ":" + port
}

// exited describes how the process ended, once it has.
func (s *server) exited() string {
	var ee *exec.ExitError
	if errors.As(s.waitErr, &ee) {
		return ee.String()
	}
	if s.waitErr != nil {
		return s.waitErr.Error()
	}
	return "exit status 0"
}

// waitReady polls GET /health until it answers 200 (vLLM's
// wait_until_ready), failing at once when the process exits (also when a
// health check answered: another server may hold the address) and after
// timeout otherwise.
func (s *server) waitReady(ctx context.Context, timeout time.Duration) error {
	url := s.address() + "/health"
	deadline := s.env.now().Add(timeout)
	wctx, release := s.watch(ctx)
	defer release()
	for {
		ok := s.healthy(wctx, url)
		if s.hasExited() {
			return s.exitError("before it was ready")
		}
		if ok {
			return nil
		}
		if s.env.now().After(deadline) {
			return fmt.Errorf("the server was not ready within %s (GET %s); its output is in %s", timeout, url, s.logPath)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.done:
		case <-time.After(s.env.readyPoll()):
		}
	}
}

// healthy is one GET /health.
func (s *server) healthy(ctx context.Context, url string) bool {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := s.env.httpClient().Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// stop ends the process group: SIGTERM, then SIGKILL if it has not exited
// within the grace, then a bounded wait for the exit.
func (s *server) stop() error {
	defer s.log.Close()
	select {
	case <-s.done:
		return nil
	default:
	}
	signalGroup(s.cmd, false)
	select {
	case <-s.done:
		return nil
	case <-time.After(s.env.stopGrace()):
	}
	signalGroup(s.cmd, true)
	select {
	case <-s.done:
		return nil
	case <-time.After(killWait):
		return fmt.Errorf("the server (pid %d) did not exit after SIGKILL", s.cmd.Process.Pid)
	}
}

// killWait bounds the wait for a killed process to be reaped.
const killWait = 10 * time.Second

// resetCaches is vLLM's reset_caches after a benchmark run: a vllm server
// (and gobench's simulator, which serves the same endpoints) gets the
// three cache resets; an Infinity server needs none unless it caches to
// disk; any other server needs --after-bench-cmd.
func (s *server) resetCaches(ctx context.Context) error {
	prog := s.argv[0]
	switch {
	case programName(prog) == "vllm" || IsGobench(prog):
		fmt.Fprintf(s.env.Stderr, "Resetting caches at %s\n", s.address())
		c := &serverapi.Client{HTTP: s.env.httpClient(), BaseURL: s.address()}
		return c.ResetCaches(ctx, serverapi.VLLMCacheResets...)
	case programName(prog) == "infinity_emb":
		if slices.Contains(s.argv, "--vector-disk-cache") {
			return errors.New("an Infinity server with --vector-disk-cache caches but has no way to reset the cache: give --after-bench-cmd")
		}
		return nil
	}
	return fmt.Errorf("no way to reset the caches of a %s server: give --after-bench-cmd (e.g. a curl to its reset endpoint, or true for none)", strconv.Quote(prog))
}
