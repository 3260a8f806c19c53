package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gobench/gobench/internal/exitcode"
	"github.com/gobench/gobench/internal/sim"
	"github.com/gobench/gobench/internal/tokenizer"
)

// countingServer serves gobench's simulator on 127.0.0.1 and counts every
// request it receives, of any method and path.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	s, err := sim.NewServer(sim.Config{Tokenizer: tokenizer.Builtin(), Root: tokenizer.BuiltinName})
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// dirNames lists dir, sorted.
func dirNames(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}

// TestResultDestinationCheckedFirst: a result that
// cannot be saved fails before the first request, with exit 2 naming the
// flag and the path, and leaves nothing behind.
func TestResultDestinationCheckedFirst(t *testing.T) {
	t.Parallel()
	srv, requests := countingServer(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string // in the message, besides the flag
	}{
		{"result dir under a regular file", []string{"--save-result", "--result-dir", filepath.Join(file, "sub")}, file},
		{"result file is a directory", []string{"--save-result", "--result-dir", dir, "--result-filename", "adir"},
			filepath.Join(dir, "adir") + " is a directory"},
		{"appended file is a directory", []string{"--append-result", "--result-dir", dir, "--result-filename", "adir"},
			filepath.Join(dir, "adir") + " is a directory"},
		{"result file path under a regular file", []string{"--save-result", "--result-filename", filepath.Join(file, "r.json")}, file},
		{"/proc/nope", []string{"--save-result", "--result-dir", "/proc/nope"}, "/proc/nope"},
	}
	for _, tt := range tests {
		if tt.want == "/proc/nope" && runtime.GOOS != "linux" {
			continue
		}
		args := append([]string{"serve", "--base-url", srv.URL, "--num-prompts", "2", "--random-input-len", "8",
			"--random-output-len", "2", "--disable-tqdm"}, tt.args...)
		_, errOut, code := runMain(t, args...)
		if code != int(exitcode.BadUsage) || !strings.Contains(errOut, tt.want) || !strings.Contains(errOut, "argument --result-") {
			t.Errorf("%s: exit %d, want %d naming the flag and %q:\n%s", tt.name, code, exitcode.BadUsage, tt.want, errOut)
		}
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d requests sent before the destination was refused", n)
	}
	if got := dirNames(t, dir); got != "adir file" {
		t.Errorf("the result directory holds %s, want only what the test made", got)
	}
}

// TestDamagedRunsFile: a JSON Lines file with a garbage
// line and a record cut short still serves its intact runs to compare,
// check and analyze, by index (counting intact runs) and by label, with a
// warning naming the file and line; a run appended after the cut record is
// readable too.
func TestDamagedRunsFile(t *testing.T) {
	t.Parallel()
	var lines []string
	for _, name := range []string{"gobench_fast.json", "gobench_slow.json"} { // labels fast, slow
		b, err := os.ReadFile(fixture(name))
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.TrimSpace(string(b)))
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "runs.jsonl")
	damaged := lines[0] + "\n" + "garbage {\n" + lines[1] + "\n" + `{"date": "2026`
	if err := os.WriteFile(path, []byte(damaged), 0o644); err != nil {
		t.Fatal(err)
	}
	warned := func(name, errOut string) {
		t.Helper()
		if !strings.Contains(errOut, path+":2: skipped a damaged line") || !strings.Contains(errOut, path+":4: skipped a damaged line") {
			t.Errorf("%s: no warning naming %s:2 and :4:\n%s", name, path, errOut)
		}
	}
	for _, c := range []struct {
		name   string
		args   []string
		code   exitcode.Code
		stdout string
	}{
		{"compare by index and label", []string{"compare", path + "#0", path + "#slow"}, exitcode.OK, path + "#1"},
		{"compare the whole file", []string{"compare", path}, exitcode.OK, path + "#1"},
		{"check by label", []string{"check", path + "#fast", "--threshold", "completed>=1"}, exitcode.OK, "Result: " + path + "#0"},
		{"check the last", []string{"check", path + "#-1", "--threshold", "completed>=1"}, exitcode.OK, "Result: " + path + "#1"},
		{"indices count intact runs", []string{"check", path + "#2", "--threshold", "completed>=1"}, exitcode.BadUsage, ""},
		{"analyze by label", []string{"analyze", path + "#slow"}, exitcode.OK, "Serving Benchmark Result"},
	} {
		out, errOut, code := runMain(t, c.args...)
		if code != int(c.code) || !strings.Contains(out, c.stdout) {
			t.Errorf("%s: exit %d, want %d with %q\n%s\n%s", c.name, code, c.code, c.stdout, out, errOut)
		}
		warned(c.name, errOut)
	}

	for _, cmd := range []string{"compare", "check", "analyze"} {
		if out, _, _ := runMain(t, cmd, "--help"); !strings.Contains(out, "intact runs only") || !strings.Contains(out, "damaged line") {
			t.Errorf("gobench %s --help does not say how damaged lines are counted:\n%s", cmd, out)
		}
	}

	srv, _ := countingServer(t)
	out, errOut, code := runMain(t, "serve", "--base-url", srv.URL, "--num-prompts", "2", "--random-input-len", "8",
		"--random-output-len", "2", "--disable-tqdm", "--label", "new", "--append-result", "--result-dir", dir,
		"--result-filename", "runs.jsonl")
	if code != 0 {
		t.Fatalf("serve --append-result: exit %d\n%s\n%s", code, out, errOut)
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(b, []byte(damaged+"\n{")) || !bytes.HasSuffix(b, []byte("}")) || bytes.Count(b, []byte("\n")) != 4 {
		t.Fatalf("after the append the file is\n%s", b)
	}
	out, errOut, code = runMain(t, "check", path+"#new", "--threshold", "completed>=2")
	if code != 0 || !strings.Contains(out, "Result: "+path+"#2") {
		t.Errorf("the appended run: exit %d\n%s\n%s", code, out, errOut)
	}
	warned("check the appended run", errOut)
}

// TestNoTemporaryFileLeft: the save prepared before the run is given up,
// its temporary file removed, when the run fails before saving; a run
// whose every request failed still saves (exit 3).
func TestNoTemporaryFileLeft(t *testing.T) {
	t.Parallel()
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "nope", http.StatusBadGateway)
	}))
	defer bad.Close()
	dir := t.TempDir()
	base := []string{"serve", "--base-url", bad.URL, "--num-prompts", "2", "--random-input-len", "8", "--random-output-len", "2",
		"--disable-tqdm", "--save-result", "--result-dir", dir, "--result-filename", "r.json"}
	if _, errOut, code := runMain(t, base...); code != int(exitcode.Failure) || !strings.Contains(errOut, "models") {
		t.Errorf("no model: exit %d\n%s", code, errOut)
	}
	if got := dirNames(t, dir); got != "" {
		t.Errorf("after a run that failed before its save the directory holds %s", got)
	}
	if _, errOut, code := runMain(t, append(base, "--model", "m", "--tokenizer", tokenizer.BuiltinName)...); code != int(exitcode.AllFailed) {
		t.Errorf("every request failed: exit %d\n%s", code, errOut)
	}
	if got := dirNames(t, dir); got != "r.json" {
		t.Errorf("after a run whose requests all failed the directory holds %s", got)
	}
}
