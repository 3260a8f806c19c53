package cli

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/testserver"
	"github.com/gobench/gobench/internal/tokenizer"
)

// TestBaseURLCredentialsRedacted: the user and password
// of --base-url http://user:pw@host authenticate the requests (HTTP Basic,
// as aiohttp sends them) and appear in no output and no file, the
// PyTorch-format file included, nor in the error of a server that cannot
// be reached.
func TestBaseURLCredentialsRedacted(t *testing.T) {
	t.Parallel()
	const user, pw = "alice", "s3cret-pw"
	sim, _ := simServer(t, 0, 0, 0)
	var unauthorized atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != user || p != pw {
			unauthorized.Add(1)
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		testserver.Proxy(sim.URL).ServeHTTP(w, r)
	}))
	defer srv.Close()
	withCreds := strings.Replace(srv.URL, "://", "://"+user+":"+pw+"@", 1)
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	deps := Deps{Stdout: &out, Stderr: &errOut, Getenv: func(k string) string {
		if k == "SAVE_TO_PYTORCH_BENCHMARK_FORMAT" {
			return "1"
		}
		return ""
	}}
	code := Main(context.Background(), []string{"serve", "--base-url", withCreds, "--num-prompts", "3",
		"--random-input-len", "8", "--random-output-len", "2", "--save-result", "--save-detailed",
		"--result-dir", dir, "--result-filename", "r.json"}, deps)
	if code != 0 || unauthorized.Load() != 0 {
		t.Fatalf("exit %d, %d unauthorized calls\n%s\n%s", code, unauthorized.Load(), &out, &errOut)
	}
	texts := map[string]string{"stdout": out.String(), "stderr": errOut.String()}
	for _, name := range []string{"r.json", "r.pytorch.json"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		texts[name] = string(b)
	}
	if !strings.Contains(texts["r.pytorch.json"], "<redacted>@127.0.0.1") {
		t.Errorf("the PyTorch records do not show the redacted base URL:\n%.500s", texts["r.pytorch.json"])
	}
	for where, s := range texts {
		if strings.Contains(s, pw) || strings.Contains(s, user+":") {
			t.Errorf("the credentials leaked into %s", where)
		}
	}

	// A server that cannot be reached: the model discovery fails, naming
	// the URL without its credentials.
	out.Reset()
	errOut.Reset()
	code = Main(context.Background(), []string{"serve", "--base-url", "http://" + user + ":" + pw + "@127.0.0.1:1",
		"--tokenizer", tokenizer.BuiltinName, "--num-prompts", "1"}, deps)
	if code != int(exitcode.Failure) || strings.Contains(out.String()+errOut.String(), pw) ||
		!strings.Contains(errOut.String(), "http://127.0.0.1:1") {
		t.Errorf("unreachable: exit %d\n%s\n%s", code, &out, &errOut)
	}
}
