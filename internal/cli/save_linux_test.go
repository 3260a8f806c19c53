package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gobench/gobench/internal/run"
)

// childEnv names the test a re-executed test binary runs as a child, with
// a process-wide resource limit that must not touch the other tests.
const childEnv = "GOBENCH_TEST_CHILD"

// inChild reports whether this process is the child of t (runChild).
func inChild(t *testing.T) bool { return os.Getenv(childEnv) == t.Name() }

// runChild runs t again in a child process with env added, and returns
// what the child printed.
func runChild(t *testing.T, env ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(append(os.Environ(), childEnv+"="+t.Name()), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	return string(out)
}

// childServe runs `gobench serve` in the child against a simulator of its
// own, after limit (a resource limit) is applied, and prints its exit
// status and stderr for the parent.
func childServe(t *testing.T, deps Deps, limit func() error, args ...string) {
	srv, _ := simServer(t, time.Millisecond, time.Millisecond, 0)
	if err := limit(); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	deps.Stdout, deps.Stderr = &out, &errOut
	code := Main(context.Background(), append([]string{"serve", "--base-url", srv.URL, "--disable-tqdm"}, args...), deps)
	t.Logf("CHILD exit=%d stderr=%q", code, errOut.String())
}

// TestFailedSaveKeepsPrevious: a save that fails part
// way (here the file-size limit, as a full disk would) leaves the previous
// result and the previous summary byte for byte, and no temporary file.
func TestFailedSaveKeepsPrevious(t *testing.T) {
	const limit = 1024 // bytes: more than the previous files, less than the new ones
	if inChild(t) {
		dir := os.Getenv("GOBENCH_TEST_DIR")
		childServe(t, Deps{}, func() error {
			return syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: limit})
		}, "--num-prompts", "4", "--random-input-len", "16", "--random-output-len", "3", "--save-result", "--save-detailed",
			"--result-dir", dir, "--result-filename", "r.json", "--summary-file", filepath.Join(dir, "summary.md"))
		return
	}
	t.Parallel()
	dir := t.TempDir()
	prevResult := []byte(`{"duration": 1.0, "completed": 1, "failed": 0}`)
	prevSummary := []byte(strings.Repeat("previous step's summary\n", 40)) // 960 bytes
	for name, b := range map[string][]byte{"r.json": prevResult, "summary.md": prevSummary} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := runChild(t, "GOBENCH_TEST_DIR="+dir)
	if !strings.Contains(out, "CHILD exit=1 ") || !strings.Contains(out, "file too large") {
		t.Errorf("the save did not fail on the file-size limit:\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "r.json")); !bytes.Equal(b, prevResult) {
		t.Errorf("the previous result became %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "summary.md")); !bytes.Equal(b, prevSummary) {
		t.Errorf("the previous summary became %d bytes:\n%s", len(b), b)
	}
	if got := dirNames(t, dir); got != "r.json summary.md" {
		t.Errorf("the directory holds %s", got)
	}
}

// exhaustOnClose is a response body whose Close uses up every descriptor
// the process may still open, keeping them in hog.
type exhaustOnClose struct {
	io.ReadCloser
	hog *[]*os.File
}

func (b exhaustOnClose) Close() error {
	err := b.ReadCloser.Close()
	for {
		f, ferr := os.Open(os.DevNull)
		if ferr != nil {
			break
		}
		*b.hog = append(*b.hog, f)
	}
	return err
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestSaveWithoutFreeDescriptors: when
// the run has used up its open-file limit by the time it ends, the result
// and its .pytorch.json are still written, with the descriptors taken
// before the run.
func TestSaveWithoutFreeDescriptors(t *testing.T) {
	if inChild(t) {
		dir := os.Getenv("GOBENCH_TEST_DIR")
		var hog []*os.File
		deps := Deps{
			Getenv: func(k string) string {
				if k == "SAVE_TO_PYTORCH_BENCHMARK_FORMAT" {
					return "1"
				}
				return ""
			},
			// When the last request ends, no descriptor is left.
			Transport: func(maxConns int, insecure bool) http.RoundTripper {
				base := run.NewTransport(maxConns, insecure)
				return roundTripFunc(func(r *http.Request) (*http.Response, error) {
					resp, err := base.RoundTrip(r)
					if err == nil && r.Header.Get("X-Request-Id") == "fd-2" {
						resp.Body = exhaustOnClose{ReadCloser: resp.Body, hog: &hog}
					}
					return resp, err
				})
			},
		}
		childServe(t, deps, func() error {
			return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 256, Max: 256})
		}, "--num-prompts", "3", "--max-concurrency", "1", "--request-id-prefix", "fd-", "--random-input-len", "8",
			"--random-output-len", "2", "--save-result", "--result-dir", dir, "--result-filename", "r.json")
		t.Logf("CHILD hogged=%d", len(hog))
		for _, f := range hog {
			_ = f.Close()
		}
		runtime.KeepAlive(hog)
		return
	}
	t.Parallel()
	dir := t.TempDir()
	out := runChild(t, "GOBENCH_TEST_DIR="+dir)
	if !strings.Contains(out, "CHILD exit=0 ") || strings.Contains(out, "CHILD hogged=0") {
		t.Fatalf("the run did not end well with every descriptor in use:\n%s", out)
	}
	for _, name := range []string{"r.json", "r.pytorch.json"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !json.Valid(b) {
			t.Errorf("%s: %v\n%s", name, err, b)
		}
	}
	if got := dirNames(t, dir); got != "r.json r.pytorch.json" {
		t.Errorf("the directory holds %s", got)
	}
}
