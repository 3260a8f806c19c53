//go:build realserver

package realserver

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// engines are the client engines every case runs on.
var engines = []string{"net/http", "epoll"}

// TestMultiTurn: conversations of three turns, each turn after the
// answer before it with the whole history, all answered, on both engines.
func TestMultiTurn(t *testing.T) {
	for _, engine := range engines {
		t.Run(strings.ReplaceAll(engine, "/", ""), func(t *testing.T) {
			dir := t.TempDir()
			const conversations, turns = 8, 3
			args := serveArgs(the.server, dir, conversations, "--backend", "openai-chat", "--endpoint", "/v1/chat/completions",
				"--multi-turn", "--multi-turn-num-turns", strconv.Itoa(turns), "--max-concurrency", "4", "--client-engine", engine)
			r := gobench(t, deadline(t), args...)
			if r.exit != 0 {
				t.Fatalf("exit %d\n%s", r.exit, r.stderr)
			}
			res := readResult(t, filepath.Join(dir, "r.json"))
			if num(res, "completed") != conversations*turns || num(res, "failed") != 0 {
				t.Errorf("completed %v failed %v, want %d and 0\n%s", res["completed"], res["failed"], conversations*turns, r.stderr)
			}
		})
	}
}

// TestSweep: two points of --sweep-max-concurrency, below and above the
// slots, each a whole run with nothing lost, on both engines.
func TestSweep(t *testing.T) {
	for _, engine := range engines {
		t.Run(strings.ReplaceAll(engine, "/", ""), func(t *testing.T) { sweep(t, engine) })
	}
}

func sweep(t *testing.T, engine string) {
	dir := t.TempDir()
	args := []string{"serve", "--base-url", the.server.url, "--model", "tiny-qwen2", "--tokenizer", the.tokenizer,
		"--dataset-name", "random", "--random-input-len", "64", "--random-output-len", "16", "--ignore-eos",
		"--num-prompts", "24", "--disable-tqdm", "--sweep-max-concurrency", "2," + strconv.Itoa(2*slots),
		"--save-result", "--result-dir", dir, "--client-engine", engine}
	r := gobench(t, deadline(t), args...)
	if r.exit != 0 {
		t.Fatalf("exit %d\n%s", r.exit, r.stderr)
	}
	points := 0
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var res map[string]any
		if json.Unmarshal(b, &res) != nil || res["completed"] == nil {
			continue // the sweep's own table
		}
		points++
		if num(res, "completed") != 24 || num(res, "failed") != 0 {
			t.Errorf("%s: completed %v failed %v, want 24 and 0", filepath.Base(f), res["completed"], res["failed"])
		}
	}
	if points != 2 {
		t.Errorf("%d result files of points in %v, want 2", points, files)
	}
}

// TestInterrupt: SIGINT in the middle of a run ends it with status 130 and
// saves what was measured, marked interrupted.
func TestInterrupt(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.CommandContext(deadline(t), the.bin, serveArgs(the.server, dir, 400, "--max-concurrency", "4")...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitBusy(t, the.server)
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want status 130\n%s", err, stderr.String())
	}
	res := readResult(t, filepath.Join(dir, "r.json"))
	if res["end_reason"] != "interrupted" || num(res, "completed") == 0 || num(res, "completed") >= 400 {
		t.Errorf("end_reason %v completed %v, want interrupted and some of 400", res["end_reason"], res["completed"])
	}
}

// TestServerKilled: the server dies in the middle of a run; the requests
// it did not answer are failures, counted, and the result is saved.
func TestServerKilled(t *testing.T) {
	srv, err := startLlama(4)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.stop()
	dir := t.TempDir()
	cmd := exec.CommandContext(deadline(t), the.bin, serveArgs(srv, dir, 400, "--max-concurrency", "4")...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitBusy(t, srv)
	srv.stop()
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("gobench: %v", err)
	} else if ok && ee.ExitCode() != 0 && ee.ExitCode() != 3 {
		t.Fatalf("exit %d, want 0 (some succeeded) or 3 (all failed)\n%s", ee.ExitCode(), stderr.String())
	}
	res := readResult(t, filepath.Join(dir, "r.json"))
	done, failed := num(res, "completed"), num(res, "failed")
	if failed == 0 || done+failed != 400 {
		t.Errorf("completed %v failed %v, want failures and 400 in all\n%s", done, failed, stderr.String())
	}
}

// TestDiagnose: gobench diagnose over a window in which a run holds twice
// as many requests as the server has slots names the queue, from
// llama.cpp's own metrics.
func TestDiagnose(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(deadline(t))
	defer cancel()
	load := exec.CommandContext(ctx, the.bin, serveArgs(the.server, dir, 2000, "--max-concurrency", strconv.Itoa(2*slots))...)
	if err := load.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); _ = load.Wait() }()
	waitBusy(t, the.server)
	r := gobench(t, deadline(t), "diagnose", "--base-url", the.server.url, "--window", "5s", "--format", "json")
	if r.exit != 0 {
		t.Fatalf("exit %d\n%s", r.exit, r.stderr)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if v, _ := rep["verdict"].(string); !strings.HasPrefix(v, "queue/") {
		t.Errorf("verdict %q, want one that names the queue\n%s", v, r.stdout)
	}
}

// waitBusy waits until srv is generating: its llamacpp:requests_processing
// gauge is above 0.
func waitBusy(t *testing.T, srv *llama) {
	t.Helper()
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if gauge(srv, "llamacpp:requests_processing") > 0 {
			return
		}
	}
	t.Fatal("the server never got busy")
}

// gauge reads one sample of srv's /metrics (0 when absent).
func gauge(srv *llama, name string) float64 {
	resp, err := http.Get(srv.url + "/metrics")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == name {
			v, _ := strconv.ParseFloat(f[1], 64)
			return v
		}
	}
	return 0
}
