//go:build realserver

// Package realserver runs gobench against real third-party servers, not
// servers of gobench's own: today llama.cpp's llama-server (Debian's
// package, a tiny random-weight model, set up by the script that
// LLAMA_SERVER_SH names; `make test-servers` runs it). It is built only with
// -tags realserver.
package realserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// suite is what every test of the package shares: the gobench binary, the
// set-up script, the tokenizer the model was built from, and one server of
// 8 slots.
type suite struct {
	bin, script, tokenizer string
	server                 *llama
}

var the suite

// Slots is the shared server's number of slots (-np): the runs go below
// and above it.
const slots = 8

func TestMain(m *testing.M) {
	code, err := setUp(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "realserver:", err)
		code = 1
	}
	os.Exit(code)
}

// setUp builds gobench, starts the shared server, runs the tests and
// stops the server.
func setUp(m *testing.M) (int, error) {
	the.script = os.Getenv("LLAMA_SERVER_SH")
	if the.script == "" {
		return 0, fmt.Errorf("LLAMA_SERVER_SH names no set-up script (make test-servers sets it)")
	}
	root := os.Getenv("ROOT")
	if root == "" {
		root = "/srv/llama-chroot"
	}
	the.tokenizer = filepath.Join(root, "opt/models/tokenizer")
	dir, err := os.MkdirTemp("", "realserver")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	the.bin = filepath.Join(dir, "gobench")
	build := exec.Command("go", "build", "-o", the.bin, "../../cmd/gobench")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return 0, fmt.Errorf("build gobench: %w", err)
	}
	the.server, err = startLlama(slots)
	if err != nil {
		return 0, err
	}
	defer the.server.stop()
	return m.Run(), nil
}

// llama is one llama-server started by the set-up script.
type llama struct {
	port int
	url  string
}

// startLlama starts a llama-server with np slots on a free port of
// 127.0.0.1 and waits until it is healthy (the script waits up to 60 s).
func startLlama(np int) (*llama, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command("bash", the.script, "start", strconv.Itoa(port))
	cmd.Env = append(os.Environ(), "NP="+strconv.Itoa(np))
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("start llama-server on %d: %w\n%s", port, err, out)
	}
	return &llama{port: port, url: "http://127.0.0.1:" + strconv.Itoa(port)}, nil
}

// stop stops the server (SIGTERM, then SIGKILL).
func (l *llama) stop() {
	_ = exec.Command("bash", the.script, "stop", strconv.Itoa(l.port)).Run()
}

// run is one gobench command's outcome.
type run struct {
	exit           int
	stdout, stderr string
}

// gobench runs the binary with args.
func gobench(t *testing.T, ctx context.Context, args ...string) run {
	t.Helper()
	cmd := exec.CommandContext(ctx, the.bin, args...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := run{stdout: out.String(), stderr: errOut.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.exit = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("gobench %v: %v", args, err)
	}
	return r
}

// serveArgs are the arguments of a serve run against srv of n random
// prompts (128 tokens in, 32 out, every token generated), saved as
// dir/r.json in detail.
func serveArgs(srv *llama, dir string, n int, extra ...string) []string {
	args := []string{"serve", "--base-url", srv.url, "--model", "tiny-qwen2", "--tokenizer", the.tokenizer,
		"--dataset-name", "random", "--random-input-len", "128", "--random-output-len", "32", "--ignore-eos",
		"--num-prompts", strconv.Itoa(n), "--request-rate", "inf", "--disable-tqdm", "--seed", "1",
		"--save-result", "--save-detailed", "--result-dir", dir, "--result-filename", "r.json"}
	return append(args, extra...)
}

// readResult reads a saved result.
func readResult(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the result was not saved: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// num reads a number of a result.
func num(m map[string]any, key string) float64 {
	v, _ := m[key].(float64)
	return v
}

// deadline bounds one gobench command: far above what a run takes on a
// loaded machine, so it only ends a hang.
func deadline(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestServe: completions and chat, both client engines, below and above
// the slot count. No request fails; every request's 32 tokens are counted
// (usage); the server view knows it reads llama.cpp.
func TestServe(t *testing.T) {
	const n = 48
	for _, backend := range []string{"openai", "openai-chat"} {
		for _, engine := range engines {
			for _, conc := range []int{slots / 2, 2 * slots} {
				name := fmt.Sprintf("%s/%s/%d", backend, strings.ReplaceAll(engine, "/", ""), conc)
				t.Run(name, func(t *testing.T) {
					dir := t.TempDir()
					args := serveArgs(the.server, dir, n, "--backend", backend, "--client-engine", engine,
						"--max-concurrency", strconv.Itoa(conc))
					if backend == "openai-chat" {
						args = append(args, "--endpoint", "/v1/chat/completions")
					}
					r := gobench(t, deadline(t), args...)
					if r.exit != 0 {
						t.Fatalf("exit %d\n%s", r.exit, r.stderr)
					}
					res := readResult(t, filepath.Join(dir, "r.json"))
					if num(res, "completed") != n || num(res, "failed") != 0 || num(res, "total_output_tokens") != 32*n {
						t.Errorf("completed %v failed %v output tokens %v, want %d, 0, %d\n%s", res["completed"], res["failed"],
							res["total_output_tokens"], n, 32*n, r.stderr)
					}
					checkServerView(t, res, conc > slots)
				})
			}
		}
	}
}

// checkServerView: the server view read llama.cpp's metrics, and says the
// server queued when the run held more requests than it has slots.
func checkServerView(t *testing.T, res map[string]any, queued bool) {
	t.Helper()
	sv, ok := res["server_view"].(map[string]any)
	if !ok {
		t.Errorf("no server_view in the result")
		return
	}
	verdict, _ := sv["verdict"].(string)
	if queued && !strings.HasPrefix(verdict, "queue/") {
		t.Errorf("verdict %q with %d slots busy and requests waiting, want one that names the queue", verdict, slots)
	}
	if verdict == "healthy" && queued {
		t.Errorf("verdict healthy on a queueing server")
	}
}
